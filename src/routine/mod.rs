//! Routines: a finished run's tool calls kept as a plan and replayed
//! without the model (issue "Routines"). `save` reads the run as it was
//! recorded (its calls, their results, the page snapshots it saw, its final
//! answer) and writes the plan: each call with its target described (role,
//! accessible name, the landmark it sat in, the selector or ref that
//! worked), its arguments with the user's profile values as placeholders,
//! the parameters proposed from it (addresses, dates, quantities typed) and
//! the answer as a template whose values are re-read at each replay.
//! `replay` runs the plan through [`Core::call_tool`], the same dispatch
//! and gate as a live call (a SUBMIT step asks every time), and never
//! calls a model: the call context carries no model and no model-assisted
//! extraction.

mod answer;
mod repair;
mod replay;
mod save;
pub mod schedule;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use self::replay::{ReplayOptions, ReplayReport, replay};
pub use self::save::{savable, save};
use crate::error::{Error, Result};
use crate::protocol::ConfirmationRequest;
use crate::store::Store;
use crate::store::routines::RoutineRow;
use crate::tools::PermissionScope;

/// The version of the plan's JSON written now.
pub const PLAN_VERSION: u32 = 1;

/// What a routine does: its steps, its parameters, its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub version: u32,
    /// The task of the run it was saved from.
    pub task: String,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub params: Vec<Param>,
    /// The run's final answer with the values it read as slots.
    #[serde(default)]
    pub answer: Option<answer::Template>,
    /// Calls of the run not kept, and why (a snapshot only the model needed).
    #[serde(default)]
    pub left_out: Vec<String>,
    /// Requests the user approved once for every replay, each bound to its
    /// exact shape ([`StandingApproval`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub standing: Vec<StandingApproval>,
    /// The user allows the model to repair a step whose element cannot be
    /// found any more (never a SUBMIT-or-above step): the repaired step is
    /// kept as a new version.
    #[serde(default)]
    pub repair: bool,
    /// This plan's version: 1 as saved, one more at each repair (the older
    /// plans are kept in `routine_versions`).
    #[serde(default = "first_revision")]
    pub revision: u32,
}

fn first_revision() -> u32 {
    1
}

/// A question the user answered yes for every replay of the routine
/// (`--remember-approval`): it is answered yes again only for a request of
/// exactly this shape: the same tool, a scope no higher, the same site and
/// destination, the same fields with the same values, and an amount in the
/// same currency no higher than approved (none when none was). Anything
/// else is asked as usual.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StandingApproval {
    pub tool: String,
    pub scope: PermissionScope,
    #[serde(default)]
    pub site: Option<String>,
    #[serde(default)]
    pub destination: Option<String>,
    /// (name, value as shown: sensitive ones masked), sorted.
    #[serde(default)]
    pub fields: Vec<(String, String)>,
    #[serde(default)]
    pub amount: Option<f64>,
    #[serde(default)]
    pub currency: Option<String>,
    /// What the user approved, as they were shown it.
    pub summary: String,
    pub approved_at: String,
}

impl StandingApproval {
    /// The shape of `request`, approved now.
    pub fn of(request: &ConfirmationRequest) -> StandingApproval {
        StandingApproval {
            tool: request.tool.clone(),
            scope: request.scope,
            site: request.site.clone(),
            destination: request.destination.clone(),
            fields: fields_of(request),
            amount: request.amount.as_ref().map(|a| a.value),
            currency: request.amount.as_ref().and_then(|a| a.currency.clone()),
            summary: request.action_summary.clone(),
            approved_at: crate::store::now(),
        }
    }

    /// Whether `request` has this approval's shape (see the type).
    pub fn covers(&self, request: &ConfirmationRequest) -> bool {
        let amount_ok = match (self.amount, request.amount.as_ref()) {
            (None, None) => true,
            (Some(max), Some(a)) => a.currency == self.currency && a.value <= max,
            _ => false,
        };
        request.tool == self.tool
            && request.scope <= self.scope
            && request.site == self.site
            && request.destination == self.destination
            && fields_of(request) == self.fields
            && amount_ok
    }
}

fn fields_of(request: &ConfirmationRequest) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = request.fields.iter().map(|f| (f.name.clone(), f.value.clone())).collect();
    fields.sort();
    fields
}

/// One tool call of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub tool: String,
    /// The arguments as the run gave them, profile values as
    /// `{{profile.KEY}}` and parameters as `{{param.NAME}}`.
    pub args: Value,
    /// The element it acted on, for the element tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetDescription>,
    /// What the gate graded the recorded call to really do.
    pub recorded_scope: PermissionScope,
    /// The page it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// An element as the run saw it, enough to find it again when its
/// selector or ref no longer works.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetDescription {
    /// Its ARIA role (or the snapshot's kind: `textbox`, `date`, `file`...).
    pub role: String,
    /// Its accessible name (a button's text, a field's label).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The field's label, for form fields (its accessible name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The visible text, for buttons and links (its accessible name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The landmark it sat in, as the snapshot heads it (`## form #checkout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landmark: Option<String>,
    /// The selector the run used, when it used one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The ref the run used (valid only for that page load).
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "ref")]
    pub element_ref: Option<String>,
}

impl TargetDescription {
    /// `button "Đặt hàng"` (in `## form #checkout`).
    pub fn describe(&self) -> String {
        let mut s = self.role.clone();
        if let Some(n) = &self.name {
            s.push_str(&format!(" \"{n}\""));
        } else if let Some(sel) = &self.selector {
            s.push_str(&format!(" `{sel}`"));
        }
        if let Some(l) = &self.landmark {
            s.push_str(&format!(" in {}", l.trim_start_matches("## ")));
        }
        s
    }
}

/// A value the user may change at each replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    /// The run's value; none: each replay must give it.
    #[serde(default)]
    pub default: Option<String>,
    /// Where it goes: `step 2 browser_type text`.
    pub used_in: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    Url,
    Date,
    Number,
    Text,
}

/// The snapshot's kinds of a text field (a `textbox` and its input types).
const TEXT_FIELDS: &[&str] = &[
    "textbox",
    "searchbox",
    "date",
    "datetime-local",
    "email",
    "number",
    "password",
    "tel",
    "time",
    "url",
    "month",
    "week",
];

/// Whether an element of this snapshot kind is a form field (described by
/// its label) rather than something clicked (described by its text).
fn is_field(kind: &str) -> bool {
    !matches!(kind, "button" | "link" | "clickable" | "menuitem" | "tab" | "option" | "element")
}

/// Tools a plan keeps and replays.
const REPLAYED: &[&str] = &[
    "browser_navigate",
    "browser_new_tab",
    "browser_click",
    "browser_type",
    "browser_scroll",
    "browser_press_key",
    "browser_select_option",
    "browser_check",
    "browser_uncheck",
    "browser_upload_file",
    "browser_download",
    "browser_wait",
    "browser_read_text",
    "browser_get_dom",
    "browser_extract",
    "browser_extract_table",
    "browser_detect_state",
    "normalize_compare",
    "user_profile_get",
    "request_user_confirmation",
    "notify_send",
];

/// Tools a plan leaves out: only the model needed what they showed.
const LEFT_OUT: &[&str] = &["browser_snapshot", "browser_find", "browser_list_tabs", "browser_screenshot"];

/// Whether a replayed step's result is read (a slot of the answer may come
/// from it).
fn reads(tool: &str) -> bool {
    matches!(
        tool,
        "browser_read_text"
            | "browser_get_dom"
            | "browser_extract"
            | "browser_extract_table"
            | "browser_detect_state"
            | "normalize_compare"
    )
}

/// Why `tool` cannot be replayed, when it cannot.
fn not_replayable(tool: &str) -> Option<&'static str> {
    if REPLAYED.contains(&tool) || LEFT_OUT.contains(&tool) {
        return None;
    }
    Some(match tool {
        "browser_switch_tab" | "browser_close_tab" => {
            "it names a tab by an id that lives only as long as the run's browser"
        }
        "browser_retry" => "it runs another call chosen at the time",
        "human_solve_challenge" => "it hands the page to a person",
        t if t.starts_with("memory_") || t.starts_with("core_memory") || t.starts_with("archival_") => {
            "it edits the model's memory"
        }
        t if t.contains("__") => "it is another program's (MCP) tool, whose effects Halley cannot read again",
        _ => "it is not one of the tools a replay can redo without the model",
    })
}

/// A routine as the front ends show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoutineView {
    pub id: String,
    pub name: String,
    pub source_run_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub plan: Plan,
}

impl RoutineView {
    pub fn from_row(row: RoutineRow) -> Result<RoutineView> {
        let plan = plan_of(&row)?;
        Ok(RoutineView {
            id: row.id,
            name: row.name,
            source_run_id: row.source_run_id,
            created_at: row.created_at,
            updated_at: row.updated_at,
            plan,
        })
    }
}

/// The stored plan of `row`.
pub fn plan_of(row: &RoutineRow) -> Result<Plan> {
    serde_json::from_value(row.plan.clone()).map_err(|e| {
        Error::internal(format!("routine `{}` holds a plan this version cannot read", row.name)).with_source(e)
    })
}

/// A routine by name, `not_found` (naming the ones there are) when none.
pub async fn find(store: &Store, name: &str) -> Result<RoutineRow> {
    if let Some(row) = store.routines().get(name).await? {
        return Ok(row);
    }
    let names: Vec<String> = store.routines().list().await?.into_iter().map(|r| r.name).collect();
    let known = if names.is_empty() {
        "there are none yet: `halley routine save RUN_ID --name NAME` keeps a finished run".to_owned()
    } else {
        format!("there are: {}", names.join(", "))
    };
    Err(Error::not_found(format!("no routine `{name}`; {known}")))
}

/// Edits to a routine's parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ParamEdits {
    /// `old` → `new` names.
    #[serde(default)]
    pub rename: Vec<(String, String)>,
    /// New default values.
    #[serde(default)]
    pub set: Vec<(String, String)>,
    /// Parameters each replay must give (their default dropped).
    #[serde(default)]
    pub require: Vec<String>,
}

/// Apply `edits` to `plan`: `invalid_arguments` naming an unknown
/// parameter or a name taken or not usable.
pub fn edit_params(plan: &mut Plan, edits: &ParamEdits) -> Result<()> {
    let index = |plan: &Plan, name: &str| -> Result<usize> {
        plan.params.iter().position(|p| p.name == name).ok_or_else(|| unknown_param(plan, name))
    };
    for (old, new) in &edits.rename {
        let at = index(plan, old)?;
        check_param_name(new)?;
        if plan.params.iter().any(|p| &p.name == new) {
            return Err(Error::invalid_arguments(format!("the routine has a parameter `{new}` already")));
        }
        plan.params[at].name.clone_from(new);
        let (from, to) = (format!("{{{{param.{old}}}}}"), format!("{{{{param.{new}}}}}"));
        for step in &mut plan.steps {
            rewrite_strings(&mut step.args, &|s| s.replace(&from, &to));
        }
    }
    for (name, value) in &edits.set {
        let at = index(plan, name)?;
        plan.params[at].default = Some(value.clone());
    }
    for name in &edits.require {
        let at = index(plan, name)?;
        plan.params[at].default = None;
    }
    Ok(())
}

fn unknown_param(plan: &Plan, name: &str) -> Error {
    let names: Vec<&str> = plan.params.iter().map(|p| p.name.as_str()).collect();
    let takes = if names.is_empty() { "it takes none".to_owned() } else { format!("it takes: {}", names.join(", ")) };
    Error::invalid_arguments(format!("the routine has no parameter `{name}`; {takes}"))
}

fn check_param_name(name: &str) -> Result<()> {
    let ok =
        !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_arguments(format!(
            "`{name}` is not a parameter name: use letters, digits, `_` and `-` (at most 64)"
        )))
    }
}

/// Every string of `value` through `f`.
fn rewrite_strings(value: &mut Value, f: &dyn Fn(&str) -> String) {
    match value {
        Value::String(s) => *s = f(s),
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_strings(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| rewrite_strings(v, f)),
        _ => {}
    }
}

/// `k=v` pairs of `--param`: `invalid_arguments` for one without `=` or
/// with an empty name.
pub fn parse_pairs(pairs: &[String], flag: &str) -> Result<Vec<(String, String)>> {
    pairs
        .iter()
        .map(|p| match p.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.to_owned())),
            _ => Err(Error::invalid_arguments(format!("{flag} `{p}` is not NAME=VALUE (e.g. {flag} url=https://…)"))),
        })
        .collect()
}

#[cfg(test)]
mod tests;
