//! A finished run read back as a plan: its successful calls in the order
//! they ran, each element's description taken from what the run saw (the
//! element the tool reports it acted on, the snapshot lines and landmarks
//! before it), profile values masked to their placeholders, parameters
//! proposed, the answer turned into a template.

use std::collections::HashMap;

use serde_json::Value;

use super::answer::{self, ReadValue};
use super::{
    LEFT_OUT, PLAN_VERSION, Param, ParamKind, Plan, RoutineView, Step, TargetDescription, not_replayable, reads,
    rewrite_strings,
};
use crate::error::{Error, Result};
use crate::protocol::RoutineRefusal;
use crate::secrets::keys::SecretValue;
use crate::secrets::matching::mask;
use crate::store::Store;
use crate::store::messages::Role;
use crate::store::runs::RunStatus;
use crate::store::tool_calls::ToolCallStatus;
use crate::tools::ToolResultV2;

/// Keep run `run_id` as the routine `name`. Refused (`not_found`) for an
/// unknown run, (`invalid_arguments`) for a run that did not complete, one
/// that used a tool a replay cannot redo (named, with why), one with
/// nothing to replay, or a name that is taken.
pub async fn save(store: &Store, run_id: &str, name: &str) -> Result<RoutineView> {
    check_name(name)?;
    let plan = match plan(store, run_id).await? {
        Ok(plan) => plan,
        Err(refusal) => return Err(refused(run_id, &refusal)),
    };
    let value = serde_json::to_value(&plan).map_err(|e| Error::internal("cannot write the plan").with_source(e))?;
    let row = store.routines().create(name, Some(run_id), &value).await?;
    RoutineView::from_row(row)
}

/// Whether run `run_id` can be saved ([`save`] would keep it): `None`, or
/// why not. Nothing is written.
pub async fn savable(store: &Store, run_id: &str) -> Result<Option<RoutineRefusal>> {
    Ok(plan(store, run_id).await?.err())
}

/// A refusal in the CLI's words, as the error [`save`] returns.
fn refused(run_id: &str, refusal: &RoutineRefusal) -> Error {
    match refusal {
        RoutineRefusal::NotFound => {
            Error::not_found(format!("no run `{run_id}`; `halley runs list` shows recent ones"))
        }
        RoutineRefusal::NotCompleted { status } => Error::invalid_arguments(format!(
            "run `{run_id}` did not complete (it is {status}): only a finished, successful run can be saved as a routine"
        )),
        RoutineRefusal::NotReplayable { tool, why } => Error::invalid_arguments(format!(
            "run `{run_id}` cannot be saved as a routine: it used `{tool}`, which cannot be replayed ({why})"
        )),
        RoutineRefusal::NothingToReplay => Error::invalid_arguments(format!(
            "run `{run_id}` made no call a routine could replay (a routine replays browser steps and reads)"
        )),
    }
}

/// A tab switch is kept as what the tab showed: its page, opened again (a
/// tab's id lives only as long as the run's browser).
const SWITCH_TAB: &str = "browser_switch_tab";

/// Run `run_id` read back as a plan, or why it cannot be one.
async fn plan(store: &Store, run_id: &str) -> Result<std::result::Result<Plan, RoutineRefusal>> {
    let Some(run) = store.runs().get(run_id).await? else { return Ok(Err(RoutineRefusal::NotFound)) };
    if run.status != RunStatus::Completed {
        let status = serde_json::to_value(run.status).ok().and_then(|v| v.as_str().map(str::to_owned));
        let status = format!(
            "{}{}",
            status.unwrap_or_default(),
            run.stop_reason.as_deref().map(|r| format!(", {r}")).unwrap_or_default()
        );
        return Ok(Err(RoutineRefusal::NotCompleted { status }));
    }
    let calls = store.tool_calls().for_run(run_id).await?;
    let ok_calls: HashMap<String, _> =
        calls.iter().filter(|c| c.status == ToolCallStatus::Ok).map(|c| (c.call_id.clone(), c)).collect();
    let not_replayed =
        |tool: &str, why: &str| Ok(Err(RoutineRefusal::NotReplayable { tool: tool.to_owned(), why: why.to_owned() }));
    for c in ok_calls.values() {
        if c.tool == SWITCH_TAB {
            continue;
        }
        if let Some(why) = not_replayable(&c.tool) {
            return not_replayed(&c.tool, why);
        }
    }
    let messages = match &run.conversation_id {
        Some(conv) => store.messages().for_conversation(conv).await?,
        None => Vec::new(),
    };
    let messages: Vec<_> = messages.into_iter().filter(|m| m.run_id.as_deref() == Some(run_id)).collect();
    let secrets = crate::gate::secrets::profile_values(store).await?;

    let mut seen = Seen::default();
    let mut steps: Vec<Step> = Vec::new();
    let mut left_out = Vec::new();
    let mut read_values: Vec<ReadValue> = Vec::new();
    for m in &messages {
        if m.role != Role::Tool {
            continue;
        }
        let Some(call) = m.tool_call_id.as_deref().and_then(|id| ok_calls.get(id)) else { continue };
        let Some(result) = m.content.as_deref().and_then(stored_result) else { continue };
        if LEFT_OUT.contains(&call.tool.as_str()) {
            seen.remember(&call.tool, &result.data);
            left_out.push(format!("{} (only the model needed what it showed)", call.tool));
            continue;
        }
        if call.tool == SWITCH_TAB {
            let Some(url) =
                result.current_url.clone().filter(|u| u.starts_with("http://") || u.starts_with("https://"))
            else {
                return not_replayed(SWITCH_TAB, "the tab it switched to showed no web page to open again");
            };
            steps.push(Step {
                tool: "browser_navigate".to_owned(),
                args: serde_json::json!({ "url": url }),
                target: None,
                recorded_scope: result.permission_scope,
                url: Some(url),
            });
            continue;
        }
        let mut args = call.arguments.clone();
        mask_values(&mut args, &secrets);
        let target = describe_target(&call.tool, &args, &result.data, &seen);
        let index = steps.len();
        if reads(&call.tool) {
            answer::collect(index, &result.data, &mut read_values);
        }
        steps.push(Step {
            tool: call.tool.clone(),
            args,
            target,
            recorded_scope: result.permission_scope,
            url: result.current_url.clone(),
        });
    }
    if steps.is_empty() {
        return Ok(Err(RoutineRefusal::NothingToReplay));
    }
    let params = propose_params(&mut steps);
    let final_answer = messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant && m.content.as_deref().is_some_and(|c| !c.trim().is_empty()))
        .and_then(|m| m.content.clone());
    let answer = final_answer.map(|text| answer::build(&mask(&text, &secrets), &read_values));
    let task = messages
        .iter()
        .find(|m| m.role == Role::User)
        .and_then(|m| m.content.clone())
        .map(|t| mask(&t, &secrets))
        .unwrap_or_default();
    let plan = Plan {
        version: PLAN_VERSION,
        task,
        steps,
        params,
        answer,
        left_out,
        standing: Vec::new(),
        repair: false,
        revision: 1,
    };
    Ok(Ok(plan))
}

fn check_name(name: &str) -> Result<()> {
    if name.trim().is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
        return Err(Error::invalid_arguments(format!(
            "`{name}` is not a routine name: give 1 to 100 characters, no control characters"
        )));
    }
    Ok(())
}

/// A result as the run stored it: the envelope's JSON, fenced (and its
/// delimiters defused) when it carried page content.
pub(super) fn stored_result(content: &str) -> Option<ToolResultV2> {
    if let Ok(r) = serde_json::from_str::<ToolResultV2>(content) {
        return Some(r);
    }
    let body = content.strip_prefix("<<<PAGE_DATA ")?;
    let body = &body[body.find('\n')? + 1..];
    let end = body.rfind("\n<<<END_PAGE_DATA")?;
    let body = &body[..end];
    let json = &body[..=body.rfind('}')?];
    // The flagged lines' note follows the JSON: cut at the last `}` that parses.
    let mut text = json.replace("‹‹‹", "<<<").replace("›››", ">>>");
    loop {
        if let Ok(r) = serde_json::from_str::<ToolResultV2>(&text) {
            return Some(r);
        }
        let shorter = text[..text.len() - 1].rfind('}')?;
        text.truncate(shorter + 1);
    }
}

/// Profile values written in clear in the arguments, as their placeholders.
fn mask_values(args: &mut Value, secrets: &[SecretValue]) {
    if secrets.is_empty() {
        return;
    }
    rewrite_strings(args, &|s| mask(s, secrets));
}

/// What the run had seen of its pages: the snapshot lines and the search
/// matches with their landmarks, latest first when looked up.
#[derive(Default)]
struct Seen {
    /// (line, the landmark heading it) in the order seen.
    lines: Vec<(String, Option<String>)>,
}

impl Seen {
    fn remember(&mut self, tool: &str, data: &Value) {
        match tool {
            "browser_snapshot" => {
                let mut landmark = None;
                for line in data["text"].as_str().unwrap_or_default().lines() {
                    if line.starts_with("## ") {
                        landmark = Some(line.trim().to_owned());
                    } else {
                        self.lines.push((line.to_owned(), landmark.clone()));
                    }
                }
            }
            "browser_find" => {
                for m in data["matches"].as_array().into_iter().flatten() {
                    let line = m["line"].as_str().unwrap_or_default().to_owned();
                    let section = m["section"].as_str().map(str::to_owned);
                    self.lines.push((line, section));
                }
            }
            _ => {}
        }
    }

    /// The latest line holding `[ref]`, with its landmark.
    fn by_ref(&self, r: &str) -> Option<(String, Option<String>)> {
        let tag = format!("[{r}] ");
        self.lines.iter().rev().find(|(l, _)| l.contains(&tag)).cloned()
    }
}

/// `[e12] button "Thêm vào giỏ"` (a snapshot item, or what an element tool
/// reports it acted on) as its ref, kind and name.
pub(super) fn parse_item(text: &str, want_ref: Option<&str>) -> Option<(String, String, Option<String>)> {
    let mut rest = text;
    while let Some(open) = rest.find("[e") {
        let after = &rest[open + 1..];
        let close = after.find(']')?;
        let r = &after[..close];
        let tail = after[close + 1..].trim_start();
        rest = &after[close + 1..];
        if !r[1..].chars().all(|c| c.is_ascii_digit()) || want_ref.is_some_and(|w| w != r) {
            continue;
        }
        let kind: String = tail.chars().take_while(|c| !c.is_whitespace()).collect();
        if kind.is_empty() {
            continue;
        }
        let after_kind = tail[kind.len()..].trim_start();
        let name = after_kind.strip_prefix('"').and_then(|n| n.find('"').map(|end| n[..end].to_owned()));
        return Some((r.to_owned(), kind, name.filter(|n| !n.is_empty())));
    }
    None
}

/// What an element tool reports it acted on: `button "Đặt hàng" [e8]`
/// (role, name, ref), as its ref, role and name.
pub(super) fn parse_report(text: &str) -> Option<(String, String, Option<String>)> {
    let text = text.trim();
    let open = text.rfind(" [e")?;
    let r = text[open + 2..].strip_suffix(']')?;
    if !r[1..].chars().all(|c| c.is_ascii_digit()) || r.len() < 2 {
        return None;
    }
    let head = &text[..open];
    let (role, rest) = head.split_once(' ').unwrap_or((head, ""));
    let name = rest.trim().strip_prefix('"').and_then(|n| n.strip_suffix('"')).map(str::to_owned);
    (!role.is_empty()).then(|| (r.to_owned(), role.to_owned(), name.filter(|n| !n.is_empty())))
}

/// The element an element tool acted on, described from the snapshot line
/// of the ref it reports (the snapshot's kind and name, and its landmark),
/// else from its own report, else from a role selector.
fn describe_target(tool: &str, args: &Value, data: &Value, seen: &Seen) -> Option<TargetDescription> {
    let selector = args["selector"].as_str().map(str::to_owned);
    let element_ref = args["ref"].as_str().map(str::to_owned);
    if selector.is_none() && element_ref.is_none() {
        return None;
    }
    let reported = data["element"].as_str().and_then(|e| parse_report(e).or_else(|| parse_item(e, None)));
    let acted_ref = reported.as_ref().map(|(r, _, _)| r.clone()).or_else(|| element_ref.clone());
    let (mut role, mut name, mut landmark) = (None, None, None);
    if let Some((line, land)) = acted_ref.as_deref().and_then(|r| seen.by_ref(r)) {
        if let Some((_, kind, n)) = parse_item(&line, acted_ref.as_deref()) {
            role = Some(kind);
            name = n;
        }
        landmark = land;
    }
    if role.is_none()
        && let Some((_, r, n)) = reported
    {
        role = Some(r);
        name = n;
    }
    if role.is_none()
        && let Some((r, n)) = selector.as_deref().and_then(role_selector)
    {
        role = Some(r);
        name = n;
    }
    let role = role.unwrap_or_else(|| if tool == "browser_type" { "textbox".into() } else { "element".into() });
    let name = name.map(|n| n.trim_end_matches('…').trim().to_owned()).filter(|n| !n.is_empty());
    let field = super::is_field(&role);
    Some(TargetDescription {
        label: name.clone().filter(|_| field),
        text: name.clone().filter(|_| !field),
        name,
        role,
        landmark,
        selector,
        element_ref,
    })
}

/// `role=button[name="Đặt hàng"]` as its role and name.
fn role_selector(selector: &str) -> Option<(String, Option<String>)> {
    let rest = selector.trim().strip_prefix("role=")?;
    let role: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
    if role.is_empty() {
        return None;
    }
    let name = rest.find("name=").map(|at| {
        rest[at + 5..]
            .trim_start_matches(['"', '\''])
            .trim_end_matches([']', ' '])
            .trim_end_matches(['"', '\''])
            .to_owned()
    });
    Some((role.to_ascii_lowercase(), name))
}

/// Parameters proposed from the steps: each address navigated to, each
/// text typed (a date, a number, or words); profile placeholders never.
/// The values in the steps' arguments become `{{param.NAME}}`.
fn propose_params(steps: &mut [Step]) -> Vec<Param> {
    let mut params: Vec<Param> = Vec::new();
    for (i, step) in steps.iter_mut().enumerate() {
        let (key, kind, base) = match step.tool.as_str() {
            "browser_navigate" | "browser_new_tab" => ("url", ParamKind::Url, "url".to_owned()),
            "browser_type" => {
                let text = step.args["text"].as_str().unwrap_or_default();
                if text.trim().is_empty() || text.contains("{{profile.") || text.contains("{{secret.") {
                    continue;
                }
                let kind = kind_of_text(text);
                let label = step.target.as_ref().and_then(|t| t.name.as_deref()).map(crate::vocab::text::fold_key);
                let base = match (label.filter(|l| !l.is_empty() && l.len() <= 40), kind) {
                    (Some(l), _) => l,
                    (None, ParamKind::Date) => "date".to_owned(),
                    (None, ParamKind::Number) => "quantity".to_owned(),
                    (None, _) => "text".to_owned(),
                };
                ("text", kind, base)
            }
            _ => continue,
        };
        let Some(value) = step.args.get(key).and_then(Value::as_str).map(str::to_owned) else { continue };
        if value.contains("{{") {
            continue;
        }
        let name = unique(&params, &base);
        step.args[key] = Value::String(format!("{{{{param.{name}}}}}"));
        params.push(Param { name, kind, default: Some(value), used_in: format!("step {} {} {key}", i + 1, step.tool) });
    }
    params
}

fn unique(params: &[Param], base: &str) -> String {
    let base: String = base.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').take(40).collect();
    let base = if base.is_empty() { "value".to_owned() } else { base };
    if !params.iter().any(|p| p.name == base) {
        return base;
    }
    (2..).map(|n| format!("{base}_{n}")).find(|n| !params.iter().any(|p| &p.name == n)).unwrap_or(base)
}

/// A typed text's kind: a date (`2026-02-10`, `10/02/2026`), a number, words.
fn kind_of_text(text: &str) -> ParamKind {
    let t = text.trim();
    let digits_and = |seps: &[char]| t.chars().all(|c| c.is_ascii_digit() || seps.contains(&c));
    let parts: Vec<&str> = t.split(['-', '/', '.']).collect();
    if parts.len() == 3
        && digits_and(&['-', '/', '.'])
        && parts.iter().all(|p| (1..=4).contains(&p.len()))
        && parts.iter().any(|p| p.len() == 4)
    {
        return ParamKind::Date;
    }
    if !t.is_empty() && digits_and(&['.', ',', ' ']) && t.chars().any(|c| c.is_ascii_digit()) {
        return ParamKind::Number;
    }
    ParamKind::Text
}
