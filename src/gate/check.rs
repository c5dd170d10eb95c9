//! The gate every call passes: grade the real action, decide, ask the user
//! when the decision is Ask, and write the decision to the audit log. The
//! model cannot talk its way past it: it sees only the result.

use std::time::Duration;

use serde_json::{Map, Value};

use super::action::{Action, SecretValue};
use super::audit::{self, GateRecord};
use super::classify::grade;
use super::confirm::{ANSWER_WITHIN, ConfirmationRequest};
use super::exfil::find_secrets;
use super::policy::{Decision, Policy, answer_to_decision};
use super::secrets;
use crate::context::CallContext;
use crate::error::{Error, ErrorCode, Result};
use crate::protocol::Grading;
use crate::store::Store;
use crate::store::confirmations::{ConfirmationStatus, NewConfirmation};
use crate::tools::catalogue::safety::{ConfirmResultV1, RequestUserConfirmationArgs};
use crate::tools::{PermissionScope, RiskLevel};

/// An answer's `user_edits.remember` value that approves the same action
/// (tool, scope, origin) for the rest of the session.
pub const REMEMBER_SESSION: &str = "session";

/// What "always, for this session" is keyed by besides the scope and the
/// destination's origin: the tool, and for a page's request its method
/// (approving a POST there lifts nothing for a GET that orders).
fn session_tool(action: &Action) -> String {
    let method = match &action.request {
        Some(request) => Some(request.method.as_str()),
        // A click that submits its form: the method the form sends with,
        // so the approval covers the request that click sets off.
        None => action
            .target
            .as_ref()
            .filter(|el| el.submits_form)
            .and_then(|el| el.form.as_ref())
            .map(|form| if form.method.is_empty() { "get" } else { form.method.as_str() }),
    };
    match method {
        Some(method) => format!("{} {}", action.tool, method.to_ascii_uppercase()),
        None => action.tool.clone(),
    }
}

/// The gate of one session: the store and the policy (with its session
/// approvals). Who answers a call's questions, its run and its allowed
/// origins come with each call ([`CallContext`]).
#[derive(Debug)]
pub struct Gate {
    store: Store,
    policy: Policy,
}

/// How the gate graded one call: the effective scope of what the call
/// really does (the button, the form, the URL), not the tool's declared
/// one, and the risk of doing it: the tool's declared risk, raised to what
/// that scope implies. The call's ToolResultV2 reports these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grade {
    pub scope: PermissionScope,
    pub risk: RiskLevel,
}

impl Grade {
    /// A call graded `scope`, of a tool that declares `risk`.
    pub fn new(scope: PermissionScope, risk: RiskLevel) -> Grade {
        let floor = match scope {
            PermissionScope::Payment | PermissionScope::Destructive => RiskLevel::High,
            PermissionScope::Submit | PermissionScope::Publish => RiskLevel::Medium,
            PermissionScope::ReadOnly | PermissionScope::WriteNonDestructive => RiskLevel::Low,
        };
        Grade { scope, risk: risk.max(floor) }
    }

    /// The more serious of two gradings of one call (an action read again
    /// after the page changed it, `browser_retry` and the call it wraps).
    #[must_use]
    pub fn max(self, other: Grade) -> Grade {
        Grade { scope: self.scope.max(other.scope), risk: self.risk.max(other.risk) }
    }
}

/// What [`Gate::begin`] found: the decision, or the question to put.
#[derive(Debug)]
pub enum Checked {
    Decided(std::result::Result<Pass, Refused>),
    Ask(Box<Asking>),
}

/// A call waiting for the user's answer ([`Gate::answer`]).
#[derive(Debug)]
pub struct Asking {
    /// What the user is asked.
    pub request: ConfirmationRequest,
    graded: Graded,
}

/// How the gate saw one call, as its audit entry says.
#[derive(Debug)]
struct Graded {
    action: Action,
    grade: Grade,
    /// The effective scope of the action itself.
    effective: PermissionScope,
    declared: PermissionScope,
    args_hash: String,
    reasons: Vec<String>,
}

/// A call the gate let through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pass {
    /// How the call was graded.
    pub grade: Grade,
    /// The binding of the approved action, when the user approved it: the
    /// action must still match it when it runs.
    pub approved: Option<String>,
}

/// A call the gate did not let through: the refusal (`denied`, or the
/// store failing under the gate; either way nothing ran) and how the call
/// was graded, when the gate got that far.
#[derive(Debug)]
pub struct Refused {
    pub grade: Option<Grade>,
    pub error: Error,
}

impl From<Error> for Refused {
    fn from(error: Error) -> Refused {
        Refused { grade: None, error }
    }
}

impl From<Refused> for Error {
    fn from(refused: Refused) -> Error {
        refused.error
    }
}

impl Gate {
    /// A gate over the user's rules.
    pub async fn open(store: Store) -> Result<Gate> {
        let policy = Policy::load(&store).await?;
        Ok(Gate { store, policy })
    }

    /// Read the user's rules again from the store (after they were edited).
    pub async fn reload_rules(&self) -> Result<()> {
        self.policy.set_rules(self.store.gate_rules().list().await?);
        Ok(())
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The user's sensitive values (for exfiltration checks and masking).
    pub async fn secrets(&self) -> Result<Vec<SecretValue>> {
        secrets::secret_values(&self.store).await
    }

    /// Grade and decide `action` (risk: the tool's declared risk), asking
    /// the call's confirmer when needed. Ok when the action may run;
    /// refused with a `denied` error (with the reason) when it may not.
    /// Both carry how the call was graded. Every decision is audited with
    /// the call's run.
    pub async fn check(
        &self,
        cx: &CallContext,
        action: &Action,
        risk: RiskLevel,
        args: &Value,
    ) -> std::result::Result<Pass, Refused> {
        match self.begin(cx, action, risk, args).await? {
            Checked::Decided(done) => done,
            Checked::Ask(asking) => self.answer(cx, asking).await,
        }
    }

    /// The first half of [`Gate::check`]: grade and decide. A decision
    /// that needs no one is audited and returned; an Ask comes back as the
    /// question to put ([`Gate::answer`]), so a caller holding something
    /// others wait for (the browser) can let go of it while the user thinks.
    pub async fn begin(
        &self,
        cx: &CallContext,
        action: &Action,
        risk: RiskLevel,
        args: &Value,
    ) -> std::result::Result<Checked, Refused> {
        let secrets = self.secrets().await?;
        let (graded, grading) = grade(action, &secrets);
        let grade = Grade::new(graded.scope, risk);
        let declared = action.declared.unwrap_or(PermissionScope::ReadOnly);
        let mut verdict = self.policy.evaluate_as(
            &action.tool,
            &session_tool(action),
            declared,
            graded.scope,
            action.origin.as_deref(),
            graded.deny.as_deref(),
            cx.allowed_origins.as_deref(),
        );
        if let Some(why) = action.untrusted.as_ref().filter(|_| verdict.decision == Decision::Allow) {
            let scope = graded.scope.max(declared);
            match self.policy.standing_allow(&action.tool, scope, action.origin.as_deref()) {
                Some(lifted) => {
                    verdict.grading.push(Grading::Text { text: lifted.clone() });
                    verdict.reasons.push(lifted);
                }
                None => {
                    verdict.decision = Decision::Ask(why.clone());
                    verdict.answered_by = "policy";
                }
            }
        }
        // A private file is asked about even where a rule allows the tool.
        if let Some(why) = action.private_file.as_ref().filter(|_| verdict.decision == Decision::Allow) {
            verdict.decision = Decision::Ask(why.clone());
            verdict.answered_by = "policy";
        }
        // The user's values in arguments that leave this machine (an MCP or
        // client tool's, a search query, a watch's URL), in clear or in any
        // spelling `find_secrets` reads: asked whatever a rule or this
        // session allows for the tool.
        if verdict.decision == Decision::Allow
            && let Some(text) = action.carries.as_deref()
        {
            let mut keys: Vec<&str> = find_secrets(text, &secrets).iter().map(|s| s.key.as_str()).collect();
            keys.dedup();
            if !keys.is_empty() {
                verdict.decision = Decision::Ask(format!(
                    "{} sends your {} off this computer in its arguments (asked whatever your rules allow)",
                    action.tool,
                    keys.join(", ")
                ));
                verdict.answered_by = "policy";
            }
        }
        // A change that lasts (the profile, memory, watches), made after the
        // run read others' words: the user's to make, whatever the rules.
        // The question's summary is the change itself; the reason (which a
        // refused call's model reads) names only where the idea came from.
        if action.changes.is_some() && !action.read_from.is_empty() {
            let why = format!(
                "it changes what lasts beyond this task, and this run read {} before it asked for it, so the \
                 idea may come from there and not from you",
                action.read_from.join(", ")
            );
            match &verdict.decision {
                Decision::Allow => {
                    verdict.decision = Decision::Ask(why);
                    verdict.answered_by = "policy";
                }
                Decision::Ask(_) => {
                    verdict.grading.push(Grading::Text { text: why.clone() });
                    verdict.reasons.push(why);
                }
                Decision::Deny(_) => {}
            }
        }
        let mut reasons = graded.reasons.clone();
        reasons.extend(verdict.reasons.iter().filter(|r| !graded.reasons.contains(r)).cloned());
        let seen = Graded {
            action: action.clone(),
            grade,
            effective: graded.scope,
            declared,
            args_hash: audit::args_hash(args),
            reasons,
        };
        match verdict.decision {
            Decision::Ask(why) => {
                // The grading's reasons by kind, then the policy's, then
                // the question's own (each once).
                let mut risks = grading;
                for (text, g) in verdict.reasons.iter().zip(&verdict.grading) {
                    if !graded.reasons.contains(text) && !risks.contains(g) {
                        risks.push(g.clone());
                    }
                }
                if !seen.reasons.contains(&why) {
                    risks.push(Grading::Text { text: why });
                }
                // The risk of what the action really does, not of the tool.
                let mut request = ConfirmationRequest::for_action(action, grade.scope, grade.risk, &risks, &secrets);
                request.run_id.clone_from(&cx.run_id);
                Ok(Checked::Ask(Box::new(Asking { request, graded: seen })))
            }
            decided => Ok(Checked::Decided(self.settle(cx, &seen, decided, verdict.answered_by, None).await)),
        }
    }

    /// The second half of [`Gate::check`]: put the question to the call's
    /// confirmer, keep it with its answer, remember "always, for this
    /// session", audit the decision.
    pub async fn answer(&self, cx: &CallContext, asking: Box<Asking>) -> std::result::Result<Pass, Refused> {
        let Asking { request, graded } = *asking;
        let (answer, who) = self.ask(cx, &request, &graded.action, ANSWER_WITHIN).await;
        let decision = answer_to_decision(answer.as_ref());
        let by = if answer.is_some() { who } else { "timeout" };
        let remember = answer
            .as_ref()
            .and_then(|a| a.pointer("/user_edits/remember"))
            .and_then(Value::as_str)
            .is_some_and(|r| r == REMEMBER_SESSION);
        let action = &graded.action;
        if decision == Decision::Allow && remember {
            // "Always, for this session": this tool, at this scope, on this origin.
            self.policy.allow_for_session(
                &session_tool(action),
                graded.effective.max(graded.declared),
                action.origin.as_deref(),
            );
        }
        let approved = (decision == Decision::Allow).then(|| action.binding());
        self.settle(cx, &graded, decision, by, approved).await
    }

    /// Audit `decision` and turn it into a pass or a refusal.
    async fn settle(
        &self,
        cx: &CallContext,
        graded: &Graded,
        decision: Decision,
        by: &str,
        approved: Option<String>,
    ) -> std::result::Result<Pass, Refused> {
        let grade = graded.grade;
        audit::record(
            &self.store,
            GateRecord {
                tool: graded.action.tool.clone(),
                args_hash: graded.args_hash.clone(),
                declared: graded.declared,
                effective: graded.effective,
                decision: &decision,
                answered_by: by,
                origin: graded.action.origin.clone(),
                run_id: cx.run_id.clone(),
                reasons: graded.reasons.clone(),
            },
        )
        .await
        .map_err(|error| Refused { grade: Some(grade), error })?;
        match decision {
            Decision::Allow => Ok(Pass { grade, approved }),
            Decision::Deny(why) | Decision::Ask(why) => Err(Refused {
                grade: Some(grade),
                error: Error::new(ErrorCode::Denied, format!("not done: {why}. Nothing was sent.")),
            }),
        }
    }

    /// `request_user_confirmation`: the model's own question, put to the
    /// user through the same channel, stored and audited. No answer in
    /// time is a refusal.
    pub async fn ask_for_model(
        &self,
        cx: &CallContext,
        args: &RequestUserConfirmationArgs,
        within: Duration,
    ) -> Result<ConfirmResultV1> {
        let secrets = self.secrets().await?;
        let mut request = ConfirmationRequest::from_model(args, &secrets, within);
        request.run_id.clone_from(&cx.run_id);
        let action = Action { tool: request.tool.clone(), ..Action::default() };
        let (answer_json, who) = self.ask(cx, &request, &action, within).await;
        let by = if answer_json.is_some() { who } else { "timeout" };
        let answer = answer_json
            .as_ref()
            .and_then(|v| serde_json::from_value::<ConfirmResultV1>(v.clone()).ok())
            .unwrap_or(ConfirmResultV1 { approved: false, user_edits: Map::new(), reason: "no answer in time".into() });
        let answer_json = answer_json.unwrap_or(Value::Null);
        let decision = answer_to_decision(Some(&answer_json).filter(|v| !v.is_null()));
        audit::record(
            &self.store,
            GateRecord {
                tool: request.tool.clone(),
                args_hash: audit::args_hash(&serde_json::to_value(args).unwrap_or(Value::Null)),
                declared: PermissionScope::ReadOnly,
                effective: PermissionScope::ReadOnly,
                decision: &decision,
                answered_by: by,
                origin: None,
                run_id: cx.run_id.clone(),
                reasons: vec![request.action_summary.clone()],
            },
        )
        .await?;
        Ok(answer)
    }

    /// Put the request to the user, keep it in the store with its answer,
    /// and return the answer (None: no answer in time).
    async fn ask(
        &self,
        cx: &CallContext,
        request: &ConfirmationRequest,
        action: &Action,
        within: Duration,
    ) -> (Option<Value>, &'static str) {
        let stored = self
            .store
            .confirmations()
            .create(&NewConfirmation {
                run_id: cx.run_id.clone(),
                tool: request.tool.clone(),
                action_summary: request.action_summary.clone(),
                action_hash: action.binding(),
                scope: request.scope,
                risk_level: request.risk_level,
                request: serde_json::to_value(request).unwrap_or(Value::Null),
                expires_at: Some(request.expires_at.clone()),
            })
            .await;
        let confirmer = &cx.confirmer;
        let who = confirmer.answered_by();
        let answer = tokio::time::timeout(within, confirmer.confirm(request)).await.ok();
        let answer = answer.and_then(|a| serde_json::to_value(a).ok());
        if let Ok(row) = stored {
            let status = match answer.as_ref().and_then(|a| a.get("approved")).and_then(Value::as_bool) {
                Some(true) => ConfirmationStatus::Approved,
                Some(false) => ConfirmationStatus::Denied,
                None => ConfirmationStatus::Expired,
            };
            let _ = self.store.confirmations().answer(&row.id, status, answer.as_ref().unwrap_or(&Value::Null)).await;
        }
        (answer, who)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PermissionScope as S;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_grade_takes_the_risk_its_scope_implies_never_less_than_declared() {
        let graded = |scope, risk| {
            let g = Grade::new(scope, risk);
            (g.scope, g.risk)
        };
        assert_eq!(graded(S::Payment, RiskLevel::Low), (S::Payment, RiskLevel::High));
        assert_eq!(graded(S::Destructive, RiskLevel::Medium), (S::Destructive, RiskLevel::High));
        assert_eq!(graded(S::Submit, RiskLevel::Low), (S::Submit, RiskLevel::Medium));
        assert_eq!(graded(S::Publish, RiskLevel::High), (S::Publish, RiskLevel::High));
        assert_eq!(graded(S::WriteNonDestructive, RiskLevel::Low), (S::WriteNonDestructive, RiskLevel::Low));
        assert_eq!(graded(S::ReadOnly, RiskLevel::Medium), (S::ReadOnly, RiskLevel::Medium));
    }

    #[test]
    fn a_call_graded_twice_keeps_the_more_serious_grading() {
        let wrapper = Grade::new(S::WriteNonDestructive, RiskLevel::Medium);
        let click = Grade::new(S::Payment, RiskLevel::Low);
        let both = Grade { scope: S::Payment, risk: RiskLevel::High };
        assert_eq!(wrapper.max(click), both);
        assert_eq!(click.max(wrapper), both);
        assert_eq!(wrapper.max(wrapper), wrapper);
    }
}
