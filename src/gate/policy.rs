//! The gate's policy: from the user's rules, the effective scope of the real
//! action, this session's approvals and the task's allowed origins to a
//! [`Decision`]. Pure and synchronous once the rules are loaded.
//!
//! The order, each step adding to the verdict (Deny beats Ask beats Allow;
//! among equals the earlier step's reason is kept):
//! 1. the classifier's deny (a challenge, a secret leaving...) → Deny;
//! 2. a matching `never` rule → Deny; a matching `ask` rule → Ask;
//! 3. an effective scope of SUBMIT or above → Ask, unless a matching `allow`
//!    rule or an "allow for this session" approval of exactly (tool,
//!    effective scope, origin) lifts it. An `allow` rule lifts PAYMENT and
//!    DESTRUCTIVE only when its `min_scope` is itself PAYMENT or DESTRUCTIVE:
//!    a rule without `min_scope` (or with a lower one) allows up to PUBLISH;
//! 4. an origin outside the task's allowed origins → Ask, unless this
//!    session approved exactly (tool, effective scope, origin); `allow`
//!    rules do not lift it (the task's limit is narrower than a standing rule);
//! 5. otherwise (READ_ONLY, WRITE_NON_DESTRUCTIVE) → Allow.
//!
//! The origin is where the action happens or goes: for a request a page
//! sends (the gate at the wire), the request's destination, so an "always
//! for this session" given on one shop never lifts a request to another
//! site.
//!
//! A rule matches when its site and tool fit the call and the effective
//! scope is at least its `min_scope`. Origins and site patterns are those of
//! [`crate::vocab::origin`] (`https://shop.vn`, `*.shop.vn`). The effective
//! scope is never taken below the declared one.

use std::collections::HashSet;
use std::sync::{Mutex, RwLock};

use serde::Serialize;
use serde_json::Value;

use super::classify::sentence::english;
use crate::error::Result;
use crate::protocol::Grading;
use crate::store::Store;
use crate::store::gate_rules::{GateRuleRow, RuleDecision};
use crate::tools::PermissionScope;
use crate::vocab::origin::{self, SitePattern, origin_of};

/// The gate's verdict on one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", content = "reason", rename_all = "lowercase")]
pub enum Decision {
    Allow,
    /// The user must be asked; the reason says why.
    Ask(String),
    /// Refused; the reason says why.
    Deny(String),
}

impl Decision {
    fn rank(&self) -> u8 {
        match self {
            Self::Allow => 0,
            Self::Ask(_) => 1,
            Self::Deny(_) => 2,
        }
    }

    /// The stricter of the two: Deny beats Ask beats Allow; between equals,
    /// `self` (and its reason) is kept.
    pub fn merge(self, other: Decision) -> Decision {
        if other.rank() > self.rank() { other } else { self }
    }

    /// `allow`, `ask` or `deny` (the audit log's spelling).
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask(_) => "ask",
            Self::Deny(_) => "deny",
        }
    }

    /// The reason of an Ask or a Deny.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::Allow => None,
            Self::Ask(r) | Self::Deny(r) => Some(r),
        }
    }
}

/// A decision with what led to it, for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub decision: Decision,
    /// `policy` (the scope or origin defaults, a classifier deny), `rule`
    /// (a user rule decided or lifted it) or `session` (a session approval lifted it).
    pub answered_by: &'static str,
    /// Every step that asked, refused or lifted an ask, in order.
    pub reasons: Vec<String>,
    /// The same steps by kind (`reasons` holds their English sentences).
    pub grading: Vec<Grading>,
}

type SessionKey = (String, PermissionScope, Option<String>);

/// The user's rules and this session's approvals (a run's allowed
/// origins come with each call: `Policy::evaluate`).
#[derive(Debug, Default)]
pub struct Policy {
    /// Behind a lock: the user edits rules while the session goes.
    rules: RwLock<Vec<GateRuleRow>>,
    session: Mutex<HashSet<SessionKey>>,
}

impl Policy {
    /// A policy over these rules, with no session approvals and no origin limit.
    pub fn new(rules: Vec<GateRuleRow>) -> Policy {
        Policy { rules: RwLock::new(rules), ..Policy::default() }
    }

    /// A policy over the user's rules as stored now.
    pub async fn load(store: &Store) -> Result<Policy> {
        Ok(Policy::new(store.gate_rules().list().await?))
    }

    /// The rules as loaded (a copy).
    pub fn rules(&self) -> Vec<GateRuleRow> {
        self.rules.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Replace the rules (after the user added or removed one): calls from
    /// now on are decided on these.
    pub fn set_rules(&self, rules: Vec<GateRuleRow>) {
        *self.rules.write().unwrap_or_else(|e| e.into_inner()) = rules;
    }

    /// Remember the user's "allow for this session" for exactly this tool,
    /// effective scope and origin.
    pub fn allow_for_session(&self, tool: &str, scope: PermissionScope, origin: Option<&str>) {
        self.session.lock().unwrap_or_else(|e| e.into_inner()).insert(session_key(tool, scope, origin));
    }

    /// Whether this session approved exactly this tool, scope and origin.
    pub fn session_allows(&self, tool: &str, scope: PermissionScope, origin: Option<&str>) -> bool {
        self.session.lock().unwrap_or_else(|e| e.into_inner()).contains(&session_key(tool, scope, origin))
    }

    /// The decision for a call of `tool` on `origin` (a URL or an origin;
    /// `None` when there is no page), `deny` being the classifier's refusal.
    pub fn decide(
        &self,
        tool: &str,
        declared: PermissionScope,
        effective: PermissionScope,
        origin: Option<&str>,
        deny: Option<&str>,
    ) -> Decision {
        self.evaluate(tool, declared, effective, origin, deny, None).decision
    }

    /// [`Policy::decide`], with who decided and every reason. `allowed`:
    /// the run's allowed origins or host patterns (acting anywhere else
    /// asks; entries that are not origins or patterns match nothing).
    pub fn evaluate(
        &self,
        tool: &str,
        declared: PermissionScope,
        effective: PermissionScope,
        origin: Option<&str>,
        deny: Option<&str>,
        allowed: Option<&[String]>,
    ) -> Verdict {
        self.evaluate_as(tool, tool, declared, effective, origin, deny, allowed)
    }

    /// [`Policy::evaluate`], with "always, for this session" looked up
    /// under `session_tool` (a page's request: the tool and the request's
    /// method, `browser_click POST`, so an approval of one method lifts
    /// nothing for another) while the rules match `tool`.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate_as(
        &self,
        tool: &str,
        session_tool: &str,
        declared: PermissionScope,
        effective: PermissionScope,
        origin: Option<&str>,
        deny: Option<&str>,
        allowed: Option<&[String]>,
    ) -> Verdict {
        let scope = effective.max(declared);
        let origin = origin.map(|o| origin_of(o).unwrap_or_else(|| o.trim().to_owned()));
        let origin = origin.as_deref();
        // Each step with its reason by kind (most as written).
        let mut steps: Vec<(Decision, &'static str, Option<Grading>)> = Vec::new();
        let mut lifted: Vec<(String, &'static str)> = Vec::new();

        if let Some(reason) = deny {
            steps.push((Decision::Deny(reason.to_owned()), "policy", None));
        }
        let rules = self.rules.read().unwrap_or_else(|e| e.into_inner());
        let matching: Vec<&GateRuleRow> =
            rules.iter().filter(|r| r.applies_to(origin, tool) && r.covers_scope(scope)).collect();
        for rule in matching.iter().filter(|r| r.decision == RuleDecision::Never) {
            steps.push((Decision::Deny(format!("you set never for {}", rule.describe())), "rule", None));
        }
        for rule in matching.iter().filter(|r| r.decision == RuleDecision::Ask) {
            steps.push((Decision::Ask(format!("you set ask for {}", rule.describe())), "rule", None));
        }
        let session = self.session_allows(session_tool, scope, origin);
        if scope.needs_confirmation() {
            let allow = matching.iter().find(|r| r.decision == RuleDecision::Allow && allow_reaches(r, scope));
            match (allow, session) {
                (Some(rule), _) => {
                    lifted.push((format!("{scope} allowed by your rule for {}", rule.describe()), "rule"))
                }
                (None, true) => lifted.push((format!("{scope} allowed for this session"), "session")),
                (None, false) => {
                    let why = Grading::ScopeAsks { scope };
                    steps.push((Decision::Ask(english(&why)), "policy", Some(why)));
                }
            }
        }
        let allowed: Option<Vec<SitePattern>> =
            allowed.map(|list| list.iter().filter_map(|o| SitePattern::parse(o).ok()).collect());
        if let Some(allowed) = &allowed {
            let inside = origin.is_none_or(|o| allowed.iter().any(|p| p.matches(o)));
            if !inside {
                let o = origin.unwrap_or_default();
                if session {
                    lifted.push((format!("{o} (outside the task's origins) allowed for this session"), "session"));
                } else {
                    let list: Vec<String> = allowed.iter().map(SitePattern::to_string).collect();
                    let reason = format!("{o} is outside this task's allowed origins ({})", list.join(", "));
                    steps.push((Decision::Ask(reason), "policy", None));
                }
            }
        }

        let mut reasons = Vec::new();
        let mut grading = Vec::new();
        for (d, _, g) in &steps {
            if let Some(text) = d.reason() {
                grading.push(g.clone().unwrap_or_else(|| Grading::Text { text: text.to_owned() }));
                reasons.push(text.to_owned());
            }
        }
        for (text, _) in &lifted {
            reasons.push(text.clone());
            grading.push(Grading::Text { text: text.clone() });
        }
        let mut decision = Decision::Allow;
        let mut answered_by = lifted.first().map_or("policy", |(_, by)| *by);
        for (step, by, _) in steps {
            if step.rank() > decision.rank() {
                answered_by = by;
            }
            decision = decision.merge(step);
        }
        Verdict { decision, answered_by, reasons, grading }
    }
}

impl Policy {
    /// What lifts the ask of a call that asks by default whatever its scope
    /// (a tool of another program): a matching `allow` rule or this
    /// session's approval of exactly (tool, scope, origin). The reason, or
    /// `None` when nothing does.
    pub fn standing_allow(&self, tool: &str, scope: PermissionScope, origin: Option<&str>) -> Option<String> {
        let rules = self.rules.read().unwrap_or_else(|e| e.into_inner());
        let rule = rules.iter().find(|r| {
            r.decision == RuleDecision::Allow
                && r.applies_to(origin, tool)
                && r.covers_scope(scope)
                && allow_reaches(r, scope)
        });
        if let Some(rule) = rule {
            return Some(format!("allowed by your rule for {}", rule.describe()));
        }
        self.session_allows(tool, scope, origin).then(|| "allowed for this session".to_owned())
    }
}

/// Whether a matching `allow` rule may lift the Ask of `scope`: PAYMENT
/// and DESTRUCTIVE only when the rule's `min_scope` names one of them.
fn allow_reaches(rule: &GateRuleRow, scope: PermissionScope) -> bool {
    scope < PermissionScope::Payment || rule.min_scope.is_some_and(|min| min >= PermissionScope::Payment)
}

fn session_key(tool: &str, scope: PermissionScope, origin: Option<&str>) -> SessionKey {
    (tool.to_owned(), scope, origin.map(origin::normalize))
}

/// The decision a confirmation answer (ConfirmResultV1 JSON) stands for:
/// `approved: true` → Allow; `approved: false` → Deny with the user's
/// reason; no answer (a timeout, nobody to ask) or a malformed one → Deny.
pub fn answer_to_decision(answer: Option<&Value>) -> Decision {
    let Some(answer) = answer else {
        return Decision::Deny("no answer came (timed out, or nobody could be asked)".into());
    };
    let Some(fields) = answer.as_object() else {
        return Decision::Deny("the answer was malformed (not a JSON object)".into());
    };
    match fields.get("approved") {
        Some(Value::Bool(true)) => Decision::Allow,
        Some(Value::Bool(false)) => match fields.get("reason").and_then(Value::as_str).map(str::trim) {
            Some(reason) if !reason.is_empty() => Decision::Deny(format!("the user said no: {reason}")),
            _ => Decision::Deny("the user said no".into()),
        },
        _ => Decision::Deny("the answer was malformed (`approved` is missing or not true/false)".into()),
    }
}

#[cfg(test)]
mod tests;
