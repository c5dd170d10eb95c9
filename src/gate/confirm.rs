//! The confirmation channel: what the user is asked (written by code from
//! the real action), and who answers (a terminal prompt, a desktop dialog,
//! `--yes`, or nobody: a refusal).

use std::time::Duration;

use super::action::{Action, FieldFacts, SecretValue};
use super::secrets;
pub use crate::context::{ApproveAll, Confirmer, DenyAll};
pub use crate::protocol::{ChallengeAnswer, ChallengeRequest, ConfirmField, ConfirmationRequest};
use crate::tools::catalogue::safety::RequestUserConfirmationArgs;
use crate::tools::{PermissionScope, RiskLevel};
use crate::vocab::text::{fold, readable};

/// How long the user has to answer before the answer counts as no.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(120);

impl ConfirmationRequest {
    /// A request about `action`, graded `scope`, for the reasons given.
    pub fn for_action(
        action: &Action,
        scope: PermissionScope,
        risk: RiskLevel,
        reasons: &[String],
        secrets: &[SecretValue],
    ) -> ConfirmationRequest {
        let fields = action
            .target
            .as_ref()
            .and_then(|t| t.form.as_ref())
            .filter(|_| action.target.as_ref().is_some_and(|t| t.submits_form))
            .map(|f| f.fields.iter().map(|field| confirm_field(field, secrets)).collect())
            .unwrap_or_default();
        let expires = chrono::Utc::now() + chrono::Duration::seconds(ANSWER_WITHIN.as_secs().cast_signed());
        ConfirmationRequest {
            id: uuid::Uuid::new_v4().to_string(),
            tool: action.tool.clone(),
            action_summary: summary(action, secrets),
            fields,
            destination: action.destination.as_deref().map(|d| secrets::mask(d, secrets)),
            url: action.url.clone(),
            origin: action.origin.clone(),
            page_total: action.page_total.clone(),
            risks: reasons.to_vec(),
            scope,
            risk_level: risk,
            expires_at: expires.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            run_id: None,
        }
    }
}

impl ConfirmationRequest {
    /// The model's own question (`request_user_confirmation`): its summary
    /// is quoted as the assistant's words, its fields masked like a form's.
    pub fn from_model(
        args: &RequestUserConfirmationArgs,
        secrets: &[SecretValue],
        within: Duration,
    ) -> ConfirmationRequest {
        let fields = args
            .fields_to_submit
            .iter()
            .flatten()
            .map(|(name, value)| {
                let value = match value {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                confirm_field(
                    &FieldFacts { name: name.clone(), kind: "text".into(), value, label: String::new() },
                    secrets,
                )
            })
            .collect();
        let expires =
            chrono::Utc::now() + chrono::Duration::milliseconds(i64::try_from(within.as_millis()).unwrap_or(i64::MAX));
        ConfirmationRequest {
            id: uuid::Uuid::new_v4().to_string(),
            tool: "request_user_confirmation".into(),
            action_summary: format!("The assistant asks: {}", secrets::mask(&args.action_summary, secrets)),
            fields,
            destination: None,
            url: None,
            origin: None,
            page_total: args.cost_estimate.as_ref().map(|m| format!("{} {}", m.amount, m.currency)),
            risks: args.risks.iter().map(|r| secrets::mask(r, secrets)).collect(),
            scope: PermissionScope::Submit,
            risk_level: RiskLevel::High,
            expires_at: expires.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            run_id: None,
        }
    }
}

fn confirm_field(field: &FieldFacts, secrets: &[SecretValue]) -> ConfirmField {
    let hint = fold(&readable(&format!("{} {}", field.name, field.label)));
    // Sensitive by the field's name or label, by the shape of its value (a
    // card number, a phone...), or because it holds one of the user's
    // values however written.
    let sensitive = field.kind == "password"
        || secrets::is_sensitive_key(&field.name, &[])
        || secrets::is_sensitive_key(&field.label, &[])
        || ["card", "cvv", "cvc", "passport", "ho chieu", "mat khau", "otp"].iter().any(|w| hint.contains(w))
        || crate::secrets::shapes::shape_of(&field.name, &field.value).is_some()
        || secrets.iter().any(|s| s.value.chars().count() >= 4 && field.value.contains(&s.value))
        || !crate::secrets::matching::find_in_text(&field.value, secrets).is_empty();
    let value = if sensitive { mask_value(&field.value) } else { shown(&field.value) };
    ConfirmField { name: field.name.clone(), label: field.label.clone(), value, masked: sensitive }
}

/// A value as the dialog shows it: whole up to 500 characters, then cut
/// (the approval still binds to the whole value).
fn shown(value: &str) -> String {
    if value.chars().count() <= 500 {
        return value.to_owned();
    }
    let head: String = value.chars().take(499).collect();
    format!("{}…", head.trim_end())
}

/// `••••4567`: the last characters of longer values, nothing of short ones.
fn mask_value(value: &str) -> String {
    let n = value.chars().count();
    if n == 0 {
        return String::new();
    }
    if n < 8 {
        return "••••".to_owned();
    }
    let tail: String = value.chars().skip(n - 4).collect();
    format!("••••{tail}")
}

/// The one-sentence summary, from the action itself.
fn summary(action: &Action, secrets: &[SecretValue]) -> String {
    let place = action.origin.as_deref().map(|o| format!(" on {o}")).unwrap_or_default();
    let what = action.target.as_ref().map(|t| {
        let label =
            [&t.name, &t.text, &t.value, &t.id].into_iter().find(|s| !s.trim().is_empty()).cloned().unwrap_or_default();
        let kind = if t.role.is_empty() { t.tag.clone() } else { t.role.clone() };
        if label.is_empty() { kind } else { format!("{kind} \"{label}\"") }
    });
    let sends = action
        .target
        .as_ref()
        .filter(|t| t.submits_form)
        .and_then(|t| t.form.as_ref())
        .map(|f| format!(" — sends the form to {} ({})", f.action, f.method.to_uppercase()))
        .unwrap_or_default();
    let mut out = match action.tool.as_str() {
        "browser_click" => format!("Click {}{place}{sends}", what.unwrap_or_else(|| "the page".into())),
        "browser_press_key" => {
            format!("Press {} in {}{place}{sends}", action.keys.join(", "), what.unwrap_or_else(|| "the page".into()))
        }
        "browser_type" => format!("Type into {}{place}", what.unwrap_or_else(|| "the page".into())),
        "browser_upload_file" => format!(
            "Upload {} into {}{place} (the file leaves this computer)",
            action.upload.as_deref().unwrap_or("a file"),
            what.unwrap_or_else(|| "a file field".into())
        ),
        "browser_close_tab" => {
            format!("Close the tab at {} (unsaved form edits are lost)", action.url.as_deref().unwrap_or("?"))
        }
        "browser_navigate" | "browser_new_tab" | "browser_download" => {
            format!(
                "Open {}",
                action.destination.as_deref().map_or_else(|| "a page".into(), |d| secrets::mask(d, secrets))
            )
        }
        other => format!("Run {other}{place}"),
    };
    if let Some(total) = &action.page_total {
        out.push_str(&format!(" (the page shows: {total})"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::action::{ElementFacts, FormFacts};

    #[test]
    fn the_request_is_written_from_the_action_with_secrets_masked() {
        let secrets = vec![SecretValue::profile("travel.passport_no", "B1234567")];
        let form = FormFacts {
            action: "https://visa.gov/apply".into(),
            method: "post".into(),
            fields: vec![
                FieldFacts {
                    name: "ho_ten".into(),
                    kind: "text".into(),
                    value: "Nguyễn An".into(),
                    label: "Họ tên".into(),
                },
                FieldFacts {
                    name: "so_ho_chieu".into(),
                    kind: "text".into(),
                    value: "B1234567".into(),
                    label: "Số hộ chiếu".into(),
                },
            ],
            ..FormFacts::default()
        };
        let action = Action {
            tool: "browser_click".into(),
            origin: Some("https://visa.gov".into()),
            destination: Some("https://visa.gov/apply".into()),
            page_total: Some("Lệ phí: 1.200.000 ₫".into()),
            target: Some(ElementFacts {
                tag: "button".into(),
                role: "button".into(),
                name: "Gửi hồ sơ".into(),
                submits_form: true,
                form: Some(form),
                ..ElementFacts::default()
            }),
            ..Action::default()
        };
        let req = ConfirmationRequest::for_action(
            &action,
            PermissionScope::Submit,
            RiskLevel::High,
            &["it sends a form".into()],
            &secrets,
        );
        assert_eq!(
            req.action_summary,
            "Click button \"Gửi hồ sơ\" on https://visa.gov — sends the form to https://visa.gov/apply (POST) (the page shows: Lệ phí: 1.200.000 ₫)"
        );
        assert_eq!(req.fields[0].value, "Nguyễn An");
        assert_eq!((req.fields[1].value.as_str(), req.fields[1].masked), ("••••4567", true));
        assert!(!serde_json::to_string(&req).unwrap().contains("B1234567"));
    }
}
