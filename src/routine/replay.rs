//! A routine replayed: each step through [`Core::call_tool`] (preflight,
//! the gate, the handler: a SUBMIT step asks the caller's confirmer every
//! time), element steps re-found from their description, the run recorded
//! as a run of its own (its calls in `halley runs show`), the replay
//! journaled step by step, the answer written from the template. No model
//! is asked anything: the context carries none, nor a model-assisted
//! extraction.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use serde_json::{Value, json};

use super::repair::{Repaired, repair};
use super::save::parse_item;
use super::{
    Param, ParamKind, Plan, StandingApproval, Step, TEXT_FIELDS, TargetDescription, answer, find, plan_of, reads,
    rewrite_strings,
};
use crate::context::{CallContext, Confirmer, Language, StillThere};
use crate::core::Core;
use crate::error::{Error, ErrorCode, Result, WireError};
use crate::protocol::{ChallengeAnswer, ChallengeRequest, ConfirmationRequest};
use crate::store::Store;
use crate::store::routines::ReplayRow;
use crate::store::runs::{RunStatus, StopReason};
use crate::store::tool_calls::{NewToolCall, ToolCallStatus};
use crate::tools::catalogue::safety::ConfirmResultV1;
use crate::tools::{PermissionScope, ToolResultV2};
use crate::vocab::text::fold;

/// How a replay is asked for.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// `--param NAME=VALUE`.
    pub params: Vec<(String, String)>,
    /// The user checked what an interrupted replay may have done: settle it
    /// and go on.
    pub after_interrupted: bool,
    /// Keep what the user approves in this replay as the routine's standing
    /// approvals ([`super::StandingApproval`]).
    pub remember_approval: bool,
    /// Started by the routine's schedule (the host's scheduler), not by a
    /// person: journaled as such.
    pub scheduled: bool,
    /// The model that may repair a step whose element cannot be found, when
    /// the routine allows it (`Plan::repair`); none: such a step stops the
    /// replay.
    pub repairer: Option<Arc<dyn Language>>,
}

/// The caller's confirmer behind the routine's standing approvals: a
/// request of an approved shape is answered yes without asking; any other
/// goes to the caller's confirmer, and what a person approves there is
/// learned when the replay was asked to remember it.
#[derive(Debug)]
struct Standing {
    inner: Arc<dyn Confirmer>,
    approvals: Vec<StandingApproval>,
    remember: bool,
    learned: Mutex<Vec<StandingApproval>>,
    notes: Mutex<Vec<String>>,
}

impl Standing {
    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Confirmer for Standing {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        Box::pin(async move {
            if let Some(a) = self.approvals.iter().find(|a| a.covers(request)) {
                Self::lock(&self.notes).push(format!(
                    "{} ({}) approved by the routine's standing approval of {}",
                    request.action_summary, request.scope, a.approved_at
                ));
                return ConfirmResultV1 {
                    approved: true,
                    user_edits: serde_json::Map::new(),
                    reason: format!("the routine's standing approval of {} (same request shape)", a.approved_at),
                };
            }
            let answer = self.inner.confirm(request).await;
            // Only a person's plain yes is remembered (not `--yes`, not an edited one).
            if self.remember && answer.approved && answer.user_edits.is_empty() && self.inner.answered_by() == "user" {
                Self::lock(&self.learned).push(StandingApproval::of(request));
            }
            answer
        })
    }

    fn challenge<'a>(
        &'a self,
        request: &'a ChallengeRequest,
        still_there: StillThere<'a>,
    ) -> Pin<Box<dyn Future<Output = ChallengeAnswer> + Send + 'a>> {
        self.inner.challenge(request, still_there)
    }

    fn answered_by(&self) -> &'static str {
        self.inner.answered_by()
    }

    fn waits_for_client(&self, tool: Option<&str>) {
        self.inner.waits_for_client(tool);
    }
}

/// What a replay did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayReport {
    pub routine: String,
    pub replay_id: String,
    pub run_id: String,
    /// `completed`, `stopped` (a step refused, not found or denied) or
    /// `failed` (a step's tool failed).
    pub status: String,
    /// The answer written from the template (none when the run had none or
    /// the replay stopped first).
    pub answer: Option<String>,
    /// What the read steps found (the values of an extraction, a table's
    /// cells), whether or not the answer quoted them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<answer::ReadField>,
    pub params: HashMap<String, String>,
    pub steps: Vec<StepOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// Slots of the answer left unfilled, replays settled before this one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub duration_ms: u64,
}

/// One step as replayed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepOutcome {
    /// 1-based.
    pub step: usize,
    pub tool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// How the element was found: `description` (role and name),
    /// `selector` (the one the run used).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_by: Option<String>,
    pub status: ToolCallStatus,
    /// The effective scope the gate graded it.
    pub scope: PermissionScope,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
    pub duration_ms: u64,
}

/// Why a replay stopped before its end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stopped {
    pub step: usize,
    pub tool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    pub code: ErrorCode,
    pub why: String,
    /// The page when it stopped (`file://` in the data directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
}

/// Replay routine `name` with the context `base` (its front end, confirmer,
/// origins and cancel switch). Bad input (`not_found` routine,
/// `invalid_arguments` parameters) is refused before anything runs; a
/// replay an earlier process left cut short at a step that may have taken
/// effect is reported (`cancelled`) and not gone on with unless
/// `after_interrupted`.
pub async fn replay(core: &Core, base: CallContext, name: &str, options: ReplayOptions) -> Result<ReplayReport> {
    let store = core.store();
    let row = find(store, name).await?;
    let plan = plan_of(&row)?;
    let values = resolve_params(&plan, &options.params)?;
    let mut notes = settle_interrupted(store, &row.id, &plan, name, options.after_interrupted).await?;

    let began = Instant::now();
    let trigger = if options.scheduled { "schedule" } else { "user" };
    let agent = crate::builtin::memory::blocks::default_agent(store).await?;
    let run = store.runs().create(&agent, None).await?;
    let params_json = serde_json::to_value(&values).unwrap_or_default();
    let journal = store.routines().begin_replay(&row.id, Some(&run.id), &params_json, trigger).await?;
    let standing = Arc::new(Standing {
        inner: Arc::clone(&base.confirmer),
        approvals: plan.standing.clone(),
        remember: options.remember_approval,
        learned: Mutex::default(),
        notes: Mutex::default(),
    });
    // No model: no language, no model-assisted extraction.
    let cx = base
        .with_run(run.id.clone())
        .with_fallback(None)
        .with_language(None)
        .with_steps(None)
        .with_confirmer(Arc::clone(&standing) as Arc<dyn Confirmer>);

    let mut outcomes = Vec::new();
    let mut repaired: Vec<(usize, TargetDescription)> = Vec::new();
    let mut results: Vec<Option<Value>> = vec![None; plan.steps.len()];
    let mut stopped = None;
    let mut status = "completed";
    for (i, step) in plan.steps.iter().enumerate() {
        if cx.cancel.is_cancelled() {
            stopped = Some(stop(core, &cx, i, step, ErrorCode::Cancelled, "the replay was stopped".into()).await);
            status = "stopped";
            break;
        }
        let mut args = step.args.clone();
        fill_params(&mut args, &values);
        let mut found_by = None;
        // The target the model chose for this step, kept once it worked.
        let mut fixed: Option<TargetDescription> = None;
        if let Some(target) = &step.target {
            match locate(core, &cx, step, target).await {
                Ok((located, how)) => {
                    retarget(&mut args, located);
                    found_by = Some(how.to_owned());
                }
                Err(why) => match try_repair(core, &cx, &plan, &options, step, target, &why).await {
                    Some(Ok(r)) => {
                        notes.push(repaired_note(i, target, &r, &why));
                        retarget(&mut args, r.located);
                        found_by = Some("model".to_owned());
                        fixed = Some(r.target);
                    }
                    failed => {
                        let why = failed.and_then(Result::err).map_or(why.clone(), |no| format!("{why}; {no}"));
                        stopped = Some(stop(core, &cx, i, step, ErrorCode::ElementNotFound, why).await);
                        status = "stopped";
                        break;
                    }
                },
            }
        }
        let side_effect =
            core.registry().get(&step.tool).is_none_or(|s| s.permission_scope != PermissionScope::ReadOnly);
        store.routines().step_started(&journal.id, i, side_effect).await?;
        let started_at = crate::store::now();
        let t0 = Instant::now();
        let mut result = core.call_tool(&cx, &step.tool, args.clone()).await;
        // The recorded selector (the fallback below SUBMIT) found nothing
        // either: nothing was done, so the model may repair it and the step
        // is tried once more on its pick.
        if let (Some(target), Some(err), None) = (&step.target, &result.error, &fixed)
            && err.code == ErrorCode::ElementNotFound
        {
            let why = err.message.clone();
            if let Some(Ok(r)) = try_repair(core, &cx, &plan, &options, step, target, &why).await {
                notes.push(repaired_note(i, target, &r, &why));
                retarget(&mut args, r.located);
                found_by = Some("model".to_owned());
                fixed = Some(r.target);
                result = core.call_tool(&cx, &step.tool, args.clone()).await;
            }
        }
        if result.is_ok()
            && let Some(t) = fixed.take()
        {
            repaired.push((i, t));
        }
        let duration_ms = u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX);
        record_call(store, &run.id, i, step, &args, &result, duration_ms, &started_at).await?;
        store.routines().step_ended(&journal.id, i).await?;
        outcomes.push(StepOutcome {
            step: i + 1,
            tool: step.tool.clone(),
            target: step.target.as_ref().map(TargetDescription::describe),
            found_by,
            status: if result.is_ok() { ToolCallStatus::Ok } else { ToolCallStatus::Error },
            scope: result.permission_scope,
            error: result.error.clone(),
            duration_ms,
        });
        if let Some(err) = &result.error {
            let why = format!("{} failed: {}", step.tool, err.message);
            status = match err.code {
                ErrorCode::Denied | ErrorCode::ElementNotFound | ErrorCode::NotInteractable | ErrorCode::Cancelled => {
                    "stopped"
                }
                _ => "failed",
            };
            stopped = Some(stop(core, &cx, i, step, err.code, why).await);
            break;
        }
        if reads(&step.tool) {
            results[i] = Some(result.data);
        }
    }

    notes.extend(Standing::lock(&standing.notes).drain(..));
    let learned: Vec<StandingApproval> = Standing::lock(&standing.learned).drain(..).collect();
    let mut kept = plan.clone();
    for a in &learned {
        notes.push(format!("remembered for every replay: {} ({})", a.summary, a.scope));
        kept.standing.retain(|s| !(s.tool == a.tool && s.destination == a.destination && s.site == a.site));
        kept.standing.push(a.clone());
    }
    let to_json =
        |p: &Plan| serde_json::to_value(p).map_err(|e| Error::internal("cannot write the plan").with_source(e));
    if repaired.is_empty() {
        if !learned.is_empty() {
            store.routines().set_plan(&row.name, &to_json(&kept)?).await?;
        }
    } else {
        // The repaired steps as a new version; the plan as it was kept.
        let mut because = Vec::new();
        for (i, t) in &repaired {
            let was = plan.steps[*i].target.as_ref().map_or_else(String::new, TargetDescription::describe);
            because.push(format!("step {} repaired by the model: {was} → {}", i + 1, t.describe()));
            kept.steps[*i].target = Some(t.clone());
        }
        kept.revision = plan.revision.saturating_add(1);
        let because = because.join("; ");
        store.routines().new_version(&row.id, plan.revision, &row.plan, &to_json(&kept)?, &because).await?;
        notes.push(format!("{because}: kept as version {}", kept.revision));
    }
    // What the read steps found; written under the answer when it quoted
    // none of it, so a replay always carries what it read now.
    let read = if status == "completed" { answer::read_fields(&results) } else { Vec::new() };
    let answer = match (&plan.answer, status) {
        (Some(template), "completed") => {
            let (text, missing) = answer::render(template, &results);
            notes.extend(missing);
            if template.slots.is_empty() { answer::with_read(Some(&text), &read) } else { Some(text) }
        }
        (None, "completed") => answer::with_read(None, &read),
        _ => None,
    };
    let report = ReplayReport {
        routine: row.name.clone(),
        replay_id: journal.id.clone(),
        run_id: run.id.clone(),
        status: status.to_owned(),
        answer,
        read,
        params: values,
        steps: outcomes,
        stopped,
        notes,
        duration_ms: u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    let report_json = serde_json::to_value(&report).unwrap_or_default();
    let (run_status, reason) = if status == "completed" {
        (RunStatus::Completed, Some(StopReason::EndTurn))
    } else {
        (RunStatus::Failed, None)
    };
    store.runs().set_status(&run.id, run_status, reason).await?;
    // The replay's last write: until it is durable a crash leaves the
    // replay `running`, reported by the next one.
    store.routines().end_replay(&journal.id, status, &report_json).await?;
    core.browser().release(&run.id).await;
    Ok(report)
}

/// The parameters' values: the routine's defaults overridden by `given`.
/// `invalid_arguments` for a name the routine does not take, one given
/// twice, a missing one, or an address that is not http(s).
pub(super) fn resolve_params(plan: &Plan, given: &[(String, String)]) -> Result<HashMap<String, String>> {
    let mut values = HashMap::new();
    for (k, v) in given {
        let Some(param) = plan.params.iter().find(|p| &p.name == k) else {
            return Err(super::unknown_param(plan, k));
        };
        check_value(param, v)?;
        if values.insert(k.clone(), v.clone()).is_some() {
            return Err(Error::invalid_arguments(format!("--param `{k}` is given twice")));
        }
    }
    for p in &plan.params {
        if values.contains_key(&p.name) {
            continue;
        }
        match &p.default {
            Some(d) => {
                values.insert(p.name.clone(), d.clone());
            }
            None => {
                return Err(Error::invalid_arguments(format!(
                    "missing parameter `{}` (used in {}): give --param {}=VALUE",
                    p.name, p.used_in, p.name
                )));
            }
        }
    }
    Ok(values)
}

fn check_value(param: &Param, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        return Err(Error::invalid_arguments(format!("--param `{}` is empty", param.name)));
    }
    if param.kind == ParamKind::Url
        && !url::Url::parse(value).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
    {
        return Err(Error::invalid_arguments(format!("--param `{}`: `{value}` is not an http(s) address", param.name)));
    }
    Ok(())
}

fn fill_params(args: &mut Value, values: &HashMap<String, String>) {
    rewrite_strings(args, &|s| {
        if !s.contains("{{param.") {
            return s.to_owned();
        }
        let mut out = s.to_owned();
        for (k, v) in values {
            out = out.replace(&format!("{{{{param.{k}}}}}"), v);
        }
        out
    });
}

/// The model's repair of step `step`, when the routine allows it, a model
/// is there and the step is below SUBMIT (`None`: not attempted).
async fn try_repair(
    core: &Core,
    cx: &CallContext,
    plan: &Plan,
    options: &ReplayOptions,
    step: &Step,
    target: &TargetDescription,
    why: &str,
) -> Option<std::result::Result<Repaired, String>> {
    if !plan.repair || step.recorded_scope >= PermissionScope::Submit {
        return None;
    }
    let language = options.repairer.as_ref()?;
    Some(repair(core, cx, language.as_ref(), step, target, why).await)
}

fn repaired_note(i: usize, target: &TargetDescription, r: &Repaired, why: &str) -> String {
    format!(
        "step {}: {} was not found ({why}); the model chose {} instead",
        i + 1,
        target.describe(),
        r.target.describe()
    )
}

/// Replays of this routine a process left `running`: settled
/// `interrupted`. One cut once a step that may reach a site had started
/// (a step recorded SUBMIT or above, or any step once the user had
/// approved something in that replay) stops this replay (`cancelled`,
/// naming the step) until the user says they checked it
/// (`after_interrupted`): a new replay would do it again. One cut before
/// (its steps only changed the browser, lost with it) is settled and the
/// routine replays. One still going in a live process is refused.
async fn settle_interrupted(
    store: &Store,
    routine_id: &str,
    plan: &Plan,
    name: &str,
    after_interrupted: bool,
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for r in store.routines().running_replays(routine_id).await? {
        if r.pid.is_some_and(alive) {
            return Err(Error::invalid_arguments(format!(
                "routine `{name}` is being replayed now (replay {}, process {}): wait for it to end",
                r.id,
                r.pid.unwrap_or_default()
            )));
        }
        let at = r.step.and_then(|s| usize::try_from(s).ok());
        let step = at.and_then(|s| plan.steps.get(s));
        let what = match (at, step) {
            (Some(at), Some(step)) => describe_step(at, step),
            _ => "its start".to_owned(),
        };
        // What may have reached a site: a step recorded SUBMIT or above
        // that had started (in flight or done), or anything once the user
        // had approved something in that replay.
        let approved = match &r.run_id {
            Some(run) => store
                .confirmations()
                .for_run(run)
                .await?
                .iter()
                .any(|c| c.status == crate::store::confirmations::ConfirmationStatus::Approved),
            None => false,
        };
        let started = at.map_or(0, |s| s + 1).min(plan.steps.len());
        let reached = plan.steps[..started].iter().rposition(|s| s.recorded_scope >= PermissionScope::Submit);
        let risky = match (reached, approved) {
            (Some(k), _) => Some(describe_step(k, &plan.steps[k])),
            (None, true) => Some("a step you had approved".to_owned()),
            (None, false) => None,
        };
        if let Some(risky) = risky.filter(|_| !after_interrupted) {
            return Err(Error::new(
                ErrorCode::Cancelled,
                format!(
                    "the last replay of `{name}` ({}) was cut short at {what}, after {risky} had started: it may \
                     have reached the site, and nothing was run again. Check the site, then replay with \
                     --after-interrupted",
                    r.id
                ),
            ));
        }
        settle(store, &r, &what).await?;
        notes.push(format!("replay {} had been cut short at {what}; settled as interrupted", r.id));
    }
    Ok(notes)
}

/// `step 3 (browser_click on button "Đặt hàng" in form #checkout)`.
fn describe_step(i: usize, step: &Step) -> String {
    format!(
        "step {} ({}{})",
        i + 1,
        step.tool,
        step.target.as_ref().map(|t| format!(" on {}", t.describe())).unwrap_or_default()
    )
}

async fn settle(store: &Store, r: &ReplayRow, what: &str) -> Result<()> {
    let report = json!({"interrupted_at": what, "step_in_flight": r.in_flight});
    store.routines().end_replay(&r.id, "interrupted", &report).await?;
    if let Some(run) = &r.run_id {
        // Already ended is fine: the process may have ended it first.
        let _ = store.runs().set_status(run, RunStatus::Failed, Some(StopReason::Cancelled)).await;
    }
    Ok(())
}

/// Whether process `pid` (not this one) lives.
fn alive(pid: i64) -> bool {
    if pid == i64::from(std::process::id()) {
        return false;
    }
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Find a step's element on the page as it is now: by its role and
/// accessible name (one match, or one in the same landmark), else by the
/// selector the run used when the step is below SUBMIT or its element had
/// no name to check. Never a merely similar element for a SUBMIT-or-above
/// step: an ambiguous or missing one stops the replay.
async fn locate(
    core: &Core,
    cx: &CallContext,
    step: &Step,
    target: &TargetDescription,
) -> std::result::Result<(Value, &'static str), String> {
    let high = step.recorded_scope >= PermissionScope::Submit;
    let selector = target.selector.clone();
    let Some(name) = target.name.as_deref() else {
        return match selector {
            Some(sel) => Ok((json!({"selector": sel}), "selector")),
            None => Err(format!("{} had no name or selector to find it again by", target.describe())),
        };
    };
    let found = core.call_tool(cx, "browser_find", json!({"query": name, "max_results": 100})).await;
    let why_missing = match candidates(&found, target) {
        Err(e) => e,
        Ok(c) if c.is_empty() => format!("no {} on the page now", target.describe()),
        Ok(c) => {
            let same_land: Vec<&(String, Option<String>)> =
                c.iter().filter(|(_, l)| target.landmark.is_some() && *l == target.landmark).collect();
            let pick = match (c.len(), same_land.len()) {
                (1, _) => Some(&c[0]),
                (_, 1) => Some(same_land[0]),
                _ if !high => Some(same_land.first().copied().unwrap_or(&c[0])),
                _ => None,
            };
            match pick {
                Some((r, _)) => return Ok((json!({"ref": r}), "description")),
                None => format!(
                    "{} elements match {} and the step is {}: Halley cannot tell which one the routine meant",
                    c.len(),
                    target.describe(),
                    step.recorded_scope
                ),
            }
        }
    };
    match selector {
        Some(sel) if !high => Ok((json!({"selector": sel}), "selector")),
        _ => Err(why_missing),
    }
}

/// The refs (and landmarks) of the elements `browser_find` returned whose
/// kind and accessible name are the description's.
fn candidates(
    found: &ToolResultV2,
    target: &TargetDescription,
) -> std::result::Result<Vec<(String, Option<String>)>, String> {
    if let Some(e) = &found.error {
        return Err(format!("the page could not be searched: {}", e.message));
    }
    let want = fold(target.name.as_deref().unwrap_or_default());
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for m in found.data["matches"].as_array().into_iter().flatten() {
        let line = m["line"].as_str().unwrap_or_default();
        let section = m["section"].as_str().map(str::to_owned);
        // Every item of the line: a line may hold several links or buttons.
        let mut rest = line;
        while let Some((r, kind, name)) = parse_item(rest, None) {
            let tag = format!("[{r}]");
            rest = rest.find(&tag).map_or("", |at| &rest[at + tag.len()..]);
            let Some(name) = name else { continue };
            let have = fold(name.trim_end_matches('…').trim());
            let same_name = have == want
                || (name.ends_with('…') && want.starts_with(&have))
                || (want.chars().count() >= 45 && have.starts_with(&want));
            if same_kind(&kind, &target.role) && same_name && !out.iter().any(|(o, _)| *o == r) {
                out.push((r, section.clone()));
            }
        }
    }
    Ok(out)
}

/// Whether a snapshot line's kind is the description's role: the same, or
/// a text field's input type (`date`, `email`...) for a `textbox`.
fn same_kind(kind: &str, role: &str) -> bool {
    kind == role || (TEXT_FIELDS.contains(&kind) && TEXT_FIELDS.contains(&role))
}

/// The step's arguments aimed at the element found.
fn retarget(args: &mut Value, located: Value) {
    if let Some(map) = args.as_object_mut() {
        map.remove("selector");
        map.remove("ref");
        if let Some(found) = located.as_object() {
            for (k, v) in found {
                map.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Why the replay stopped at step `i`, with a screenshot of the page.
async fn stop(core: &Core, cx: &CallContext, i: usize, step: &Step, code: ErrorCode, why: String) -> Stopped {
    let shot = core.call_tool(cx, "browser_screenshot", json!({})).await;
    let screenshot = shot.artifacts.first().map(|a| a.reference.clone());
    Stopped {
        step: i + 1,
        tool: step.tool.clone(),
        target: step.target.as_ref().map(TargetDescription::describe),
        code,
        why,
        screenshot,
    }
}

/// The step's call in the replay's run (its timeline).
#[allow(clippy::too_many_arguments)]
async fn record_call(
    store: &Store,
    run_id: &str,
    i: usize,
    step: &Step,
    args: &Value,
    result: &ToolResultV2,
    duration_ms: u64,
    started_at: &str,
) -> Result<()> {
    let call_id = format!("routine-step-{}", i + 1);
    store
        .tool_calls()
        .insert(&NewToolCall {
            run_id,
            step_id: None,
            call_id: &call_id,
            tool: &step.tool,
            arguments: args,
            reasoning: Some("replayed from a routine"),
            executor: "builtin",
            status: if result.is_ok() { ToolCallStatus::Ok } else { ToolCallStatus::Error },
            error_code: result.error.as_ref().map(|e| e.code),
            duration_ms: i64::try_from(duration_ms).unwrap_or(i64::MAX),
            started_at,
        })
        .await?;
    Ok(())
}
