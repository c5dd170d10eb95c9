//! The confirmation channel: what the user is asked (written by code from
//! the real action), and who answers (a terminal prompt, a desktop dialog,
//! `--yes`, or nobody: a refusal).

use std::time::Duration;

use super::action::{Action, FieldFacts, SecretValue};
use super::request::WireRequest;
use super::secrets;
pub use crate::context::{ApproveAll, Confirmer, DenyAll};
pub use crate::protocol::{
    AmountParts, AmountSource, ChallengeAnswer, ChallengeRequest, ConfirmAmount, ConfirmField, ConfirmKind,
    ConfirmationRequest, Grading, PlainReason,
};
use crate::tools::catalogue::safety::RequestUserConfirmationArgs;
use crate::tools::{PermissionScope, RiskLevel};
use crate::vocab::money::{Decimal, MoneyAmount};
use crate::vocab::text::{fold, readable};

/// How long the user has to answer before the answer counts as no.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(120);

impl ConfirmationRequest {
    /// A request about `action`, graded `scope`, for the reasons given.
    pub fn for_action(
        action: &Action,
        scope: PermissionScope,
        risk: RiskLevel,
        reasons: &[Grading],
        secrets: &[SecretValue],
    ) -> ConfirmationRequest {
        let fields: Vec<ConfirmField> = action
            .target
            .as_ref()
            .and_then(|t| t.form.as_ref())
            .filter(|_| action.target.as_ref().is_some_and(|t| t.submits_form))
            .map(|f| f.fields.iter().map(|field| confirm_field(field, secrets)).collect())
            .unwrap_or_default();
        let expires = chrono::Utc::now() + chrono::Duration::seconds(ANSWER_WITHIN.as_secs().cast_signed());
        let kind = kind_of(action, scope);
        let plain = plain_reasons(action, kind, &fields);
        ConfirmationRequest {
            id: uuid::Uuid::new_v4().to_string(),
            tool: action.tool.clone(),
            action_summary: summary(action, secrets),
            fields,
            destination: action.destination.as_deref().map(|d| secrets::mask(d, secrets)),
            url: action.url.clone(),
            origin: action.origin.clone(),
            page_total: page_total_shown(action),
            risks: reasons.iter().map(super::classify::sentence::english).collect(),
            grading: reasons.to_vec(),
            method: method_of(action),
            scope,
            risk_level: risk,
            expires_at: expires.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            run_id: None,
            kind,
            amount: amount_of(action).map(Box::new),
            site: site_of(action).map(|s| secrets::mask(&s, secrets)),
            target: target_label(action).map(|s| secrets::mask(&s, secrets)),
            plain,
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
            grading: args.risks.iter().map(|r| Grading::Text { text: secrets::mask(r, secrets) }).collect(),
            method: None,
            scope: PermissionScope::Submit,
            risk_level: RiskLevel::High,
            expires_at: expires.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            run_id: None,
            kind: ConfirmKind::Ask,
            amount: args.cost_estimate.as_ref().map(|m| {
                Box::new(ConfirmAmount {
                    value: m.amount,
                    currency: crate::vocab::money::currency_code(&m.currency),
                    source: AmountSource::Assistant,
                    parts: None,
                })
            }),
            site: None,
            target: None,
            plain: vec![PlainReason::AssistantAsks],
        }
    }
}

/// What the action does, in one word: by the tool for what only a tool
/// does (open, close, upload, type), else by the effective scope.
fn kind_of(action: &Action, scope: PermissionScope) -> ConfirmKind {
    match action.tool.as_str() {
        "browser_navigate" | "browser_new_tab" | "browser_download" => return ConfirmKind::Open,
        "browser_close_tab" => return ConfirmKind::Close,
        "browser_upload_file" => return ConfirmKind::Upload,
        _ => {}
    }
    match scope {
        PermissionScope::Payment => ConfirmKind::Pay,
        PermissionScope::Publish => ConfirmKind::Publish,
        PermissionScope::Destructive => ConfirmKind::Delete,
        _ if action.tool == "browser_type" => ConfirmKind::Type,
        _ if action.target.is_none() && action.url.is_none() => ConfirmKind::Other,
        PermissionScope::Submit => ConfirmKind::Send,
        _ => ConfirmKind::Other,
    }
}

/// The amount involved: what the request sends (its total and currency,
/// read from its fields in major units: `gate::request::WireRequest::amount`),
/// or the form the action submits, else what the page says it costs
/// ([`page_amount`]); the currency of the other when one of them names
/// none and both say the same amount. The page's text never overrides what
/// is sent.
fn amount_of(action: &Action) -> Option<ConfirmAmount> {
    let page = page_amount(action);
    let Some(sent) = sent_amount(action).as_deref().and_then(read_money) else {
        let page = page?;
        return Some(ConfirmAmount {
            value: page.money.amount.to_f64(),
            currency: page.money.currency.map(str::to_owned),
            source: page.source,
            parts: page.parts,
        });
    };
    let currency = sent.currency.or_else(|| {
        page.filter(|p| p.money.amount.normalized() == sent.amount.normalized()).and_then(|p| p.money.currency)
    });
    Some(ConfirmAmount {
        value: sent.amount.to_f64(),
        currency: currency.map(str::to_owned),
        source: AmountSource::Request,
        parts: None,
    })
}

fn read_money(text: &str) -> Option<MoneyAmount> {
    crate::vocab::money::parse_amount(text).ok().map(|(m, _)| m)
}

/// What the page says an action costs.
struct PageAmount {
    money: MoneyAmount,
    source: AmountSource,
    parts: Option<AmountParts>,
    /// As the page writes it, for the technical details.
    text: String,
}

/// What the page says the action costs: its total line, else the price of
/// what the control buys times the quantity its form sends, plus the
/// shipping the page shows (when it is in the price's currency).
fn page_amount(action: &Action) -> Option<PageAmount> {
    if let Some(total) = action.page_total.as_deref()
        && let Some(money) = read_money(total)
    {
        return Some(PageAmount { money, source: AmountSource::Page, parts: None, text: total.to_owned() });
    }
    let price = action.price.as_ref()?;
    let unit = read_money(&price.price)?;
    let quantity = price.quantity.max(1);
    let shipping = price
        .shipping
        .as_deref()
        .and_then(read_money)
        .filter(|s| s.currency.is_none() || unit.currency.is_none() || s.currency == unit.currency);
    let items = Decimal::new(unit.amount.units.checked_mul(i128::from(quantity))?, unit.amount.scale);
    let total = match &shipping {
        Some(s) => items.checked_add(s.amount)?,
        None => items,
    };
    let mut text = if quantity > 1 { format!("{quantity} × {}", price.price) } else { price.price.clone() };
    if let Some(fee) = price.shipping.as_deref().filter(|_| shipping.is_some()) {
        text.push_str(&format!(" + shipping {fee}"));
    }
    let parts = (quantity > 1 || shipping.is_some()).then(|| AmountParts {
        unit: unit.amount.to_f64(),
        quantity,
        shipping: shipping.map(|s| s.amount.to_f64()),
    });
    let currency = unit.currency.or_else(|| shipping.and_then(|s| s.currency));
    Some(PageAmount { money: MoneyAmount { amount: total, currency }, source: price.from, parts, text })
}

/// The amount the action's request, or the form it submits, sends
/// (`99900000 VND`).
fn sent_amount(action: &Action) -> Option<String> {
    if let Some(request) = &action.request {
        return request.amount();
    }
    let target = action.target.as_ref().filter(|t| t.submits_form)?;
    let form = target.form.as_ref()?;
    WireRequest::of_form(form, action.url.as_deref(), None)?.amount()
}

/// What the page says it costs, shown unless what is sent names another
/// amount (a page saying "pay 10 USD" over a form that charges 99,900,000
/// VND shows only the form's).
fn page_total_shown(action: &Action) -> Option<String> {
    let page = page_amount(action)
        .map(|p| (p.text, Some(p.money)))
        .or_else(|| action.page_total.clone().map(|t| (t, None)))?;
    let Some(sent) = sent_amount(action) else { return Some(page.0) };
    match (read_money(&sent), page.1) {
        (Some(s), Some(p))
            if s.amount.normalized() == p.amount.normalized()
                && (s.currency.is_none() || p.currency.is_none() || s.currency == p.currency) =>
        {
            Some(page.0)
        }
        _ => None,
    }
}

/// The method of the request the action sends, or of the form it submits (`POST`).
fn method_of(action: &Action) -> Option<String> {
    if let Some(request) = &action.request {
        return Some(request.method.to_uppercase());
    }
    let target = action.target.as_ref().filter(|t| t.submits_form)?;
    target.form.as_ref().map(|f| f.method.to_uppercase()).filter(|m| !m.is_empty())
}

/// The host of where the data or the browser goes, else of the page.
fn site_of(action: &Action) -> Option<String> {
    let host = |u: &str| url::Url::parse(u).ok().and_then(|u| u.host_str().map(str::to_owned));
    action.destination.as_deref().and_then(host).or_else(|| action.url.as_deref().and_then(host))
}

/// The control's label as the page shows it.
fn target_label(action: &Action) -> Option<String> {
    let t = action.target.as_ref()?;
    if t.tag == "request" {
        return None;
    }
    [&t.name, &t.text, &t.value].into_iter().map(|s| s.trim()).find(|s| !s.is_empty()).map(str::to_owned)
}

/// Why it is asked, plainly: what the kind means for the user, their own
/// details going out, another site than the page's, a program's tool or a
/// private file.
fn plain_reasons(action: &Action, kind: ConfirmKind, fields: &[ConfirmField]) -> Vec<PlainReason> {
    let mut out = Vec::new();
    match kind {
        ConfirmKind::Pay => out.push(PlainReason::Payment),
        ConfirmKind::Publish => out.push(PlainReason::Publish),
        ConfirmKind::Delete | ConfirmKind::Close => out.push(PlainReason::Delete),
        ConfirmKind::Upload => out.push(PlainReason::Upload),
        ConfirmKind::Send => out.push(PlainReason::Submit),
        ConfirmKind::Type | ConfirmKind::Open | ConfirmKind::Ask | ConfirmKind::Other => {}
    }
    let mut what: Vec<String> = fields
        .iter()
        .filter(|f| f.masked)
        .map(|f| if f.label.trim().is_empty() { f.name.clone() } else { f.label.clone() })
        .collect();
    for fill in &action.fills {
        if !what.contains(fill) {
            what.push(fill.clone());
        }
    }
    if !what.is_empty() {
        out.push(PlainReason::PersonalData { what });
    }
    if let (Some(page), Some(to)) = (action.url.as_deref(), action.destination.as_deref())
        && kind != ConfirmKind::Open
        && !crate::vocab::origin::same_site(page, to)
        && let Some(site) = url::Url::parse(to).ok().and_then(|u| u.host_str().map(str::to_owned))
    {
        out.push(PlainReason::OtherSite { site });
    }
    if action.untrusted.is_some() {
        out.push(PlainReason::Untrusted);
    }
    if action.private_file.is_some() {
        out.push(PlainReason::PrivateFile);
    }
    out
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
    // A change that lasts: exactly what would change (`gate::lasting`).
    if let Some(change) = &action.changes {
        return change.clone();
    }
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
    match (sent_amount(action), page_total_shown(action)) {
        (_, Some(total)) => out.push_str(&format!(" (the page shows: {total})")),
        (Some(sent), None) => out.push_str(&format!(" (it sends: {sent})")),
        (None, None) => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::action::{ElementFacts, FormFacts};

    /// An amount with no parts, as a test expects it.
    fn amount(value: f64, currency: Option<&str>, source: AmountSource) -> Option<Box<ConfirmAmount>> {
        Some(Box::new(ConfirmAmount { value, currency: currency.map(str::to_owned), source, parts: None }))
    }

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
            &[Grading::Text { text: "it sends a form".into() }],
            &secrets,
        );
        assert_eq!(
            req.action_summary,
            "Click button \"Gửi hồ sơ\" on https://visa.gov — sends the form to https://visa.gov/apply (POST) (the page shows: Lệ phí: 1.200.000 ₫)"
        );
        assert_eq!(req.fields[0].value, "Nguyễn An");
        assert_eq!((req.fields[1].value.as_str(), req.fields[1].masked), ("••••4567", true));
        assert!(!serde_json::to_string(&req).unwrap().contains("B1234567"));
        // What the dialog writes its plain sentence from.
        assert_eq!(req.kind, ConfirmKind::Send);
        assert_eq!(req.site.as_deref(), Some("visa.gov"));
        assert_eq!(req.target.as_deref(), Some("Gửi hồ sơ"));
        assert_eq!(req.amount, amount(1_200_000.0, Some("VND"), AmountSource::Page));
        assert_eq!(req.plain, [PlainReason::Submit, PlainReason::PersonalData { what: vec!["Số hộ chiếu".into()] }]);
    }

    fn order_click(page_total: Option<&str>) -> Action {
        Action {
            tool: "browser_click".into(),
            url: Some("https://shop.vn/checkout".into()),
            origin: Some("https://shop.vn".into()),
            destination: Some("https://pay.example.com/charge".into()),
            page_total: page_total.map(str::to_owned),
            target: Some(ElementFacts {
                tag: "button".into(),
                role: "button".into(),
                name: "Đặt hàng".into(),
                ..ElementFacts::default()
            }),
            fills: vec!["shopping.delivery.phone".into()],
            ..Action::default()
        }
    }

    #[test]
    fn a_payment_names_its_amount_site_and_plain_reasons() {
        let action = order_click(Some("Tổng cộng: 21.490.000 ₫"));
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.kind, ConfirmKind::Pay);
        assert_eq!(req.amount, amount(21_490_000.0, Some("VND"), AmountSource::Page));
        assert_eq!(req.site.as_deref(), Some("pay.example.com"));
        assert_eq!(
            req.plain,
            [
                PlainReason::Payment,
                PlainReason::PersonalData { what: vec!["shopping.delivery.phone".into()] },
                PlainReason::OtherSite { site: "pay.example.com".into() },
            ]
        );
        // No total on the page, or one that is no amount: none shown.
        for total in [None, Some("Tổng cộng: liên hệ")] {
            let req = ConfirmationRequest::for_action(
                &order_click(total),
                PermissionScope::Payment,
                RiskLevel::High,
                &[],
                &[],
            );
            assert_eq!(req.amount, None, "{total:?}");
        }
    }

    #[test]
    fn the_amount_a_request_sends_comes_first_with_the_page_s_currency_when_it_names_none() {
        use crate::gate::request::WireRequest;
        let request = WireRequest::parse(
            "POST",
            "https://shop.vn/api/order",
            Some("application/x-www-form-urlencoded"),
            Some("sku=ROG&total=21490000"),
        );
        let mut action = order_click(Some("21.490.000 ₫"));
        action.request = Some(request.clone());
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.amount, amount(21_490_000.0, Some("VND"), AmountSource::Request));
        // The page showing another amount lends it no currency.
        action.page_total = Some("1.000 ₫".into());
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.amount, amount(21_490_000.0, None, AmountSource::Request));
    }

    /// The clicked button submits a form that charges 99,900,000 VND in minor units.
    fn charges_99_900_000_vnd(action: &mut Action) {
        if let Some(t) = action.target.as_mut() {
            t.submits_form = true;
            t.form = Some(FormFacts {
                action: "/api/pay".into(),
                method: "post".into(),
                fields: vec![
                    FieldFacts { name: "charge_minor".into(), value: "99900000".into(), ..FieldFacts::default() },
                    FieldFacts { name: "currency".into(), value: "VND".into(), ..FieldFacts::default() },
                ],
                ..FormFacts::default()
            });
        }
    }

    #[test]
    fn the_amount_is_the_forms_and_the_page_s_other_amount_is_not_shown() {
        // "Pay 10 USD" over a form that charges 99,900,000 VND in minor units.
        let mut action = order_click(Some("Total: 10 USD"));
        charges_99_900_000_vnd(&mut action);
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.amount, amount(99_900_000.0, Some("VND"), AmountSource::Request));
        assert_eq!(req.page_total, None);
        assert!(!req.action_summary.contains("10 USD"), "{}", req.action_summary);
        assert!(req.action_summary.contains("it sends: 99900000 VND"), "{}", req.action_summary);
        // The page saying the same amount is shown beside it.
        action.page_total = Some("Tổng: 99.900.000 ₫".into());
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.page_total.as_deref(), Some("Tổng: 99.900.000 ₫"));
        // In cents, with the currency of the request.
        let request = crate::gate::request::WireRequest::parse(
            "POST",
            "https://pay.example/x",
            Some("application/json"),
            Some(r#"{"amount_cents":1999,"currency":"USD"}"#),
        );
        let mut action = order_click(Some("Total: 10 USD"));
        action.request = Some(request);
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.amount, amount(19.99, Some("USD"), AmountSource::Request));
        assert_eq!(req.page_total, None);
    }

    #[test]
    fn a_product_page_s_price_is_the_amount_times_the_quantity_plus_the_shipping_it_shows() {
        use crate::gate::action::PagePrice;
        let price = |price: &str, from, quantity, shipping: Option<&str>| PagePrice {
            price: price.into(),
            from,
            quantity,
            shipping: shipping.map(str::to_owned),
        };
        // "Mua ngay" under a product whose JSON-LD offer says 21490000 VND.
        let mut action = order_click(None);
        action.price = Some(price("21490000 VND", AmountSource::StructuredData, 1, None));
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.amount, amount(21_490_000.0, Some("VND"), AmountSource::StructuredData));
        assert_eq!(req.page_total.as_deref(), Some("21490000 VND"));
        // Two of them, and the shipping the page shows.
        action.price = Some(price("10.745.000 ₫", AmountSource::NearButton, 2, Some("30.000 ₫")));
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(
            req.amount.as_deref(),
            Some(&ConfirmAmount {
                value: 21_520_000.0,
                currency: Some("VND".into()),
                source: AmountSource::NearButton,
                parts: Some(AmountParts { unit: 10_745_000.0, quantity: 2, shipping: Some(30_000.0) }),
            })
        );
        assert_eq!(req.page_total.as_deref(), Some("2 × 10.745.000 ₫ + shipping 30.000 ₫"));
        // Shipping in another currency is not added to it.
        action.price = Some(price("10.745.000 ₫", AmountSource::Variant, 1, Some("$5")));
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.amount.as_ref().map(|a| (a.value, a.parts.clone())), Some((10_745_000.0, None)));
        // A total line the page shows comes before the product's price.
        action.page_total = Some("Tổng cộng: 21.520.000 ₫".into());
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.amount.as_ref().map(|a| (a.value, a.source)), Some((21_520_000.0, AmountSource::Page)));
        // What the form sends wins over both, and the page's other price is not shown.
        let mut action = order_click(None);
        action.price = Some(price("10 USD", AmountSource::NearButton, 1, None));
        charges_99_900_000_vnd(&mut action);
        let req = ConfirmationRequest::for_action(&action, PermissionScope::Payment, RiskLevel::High, &[], &[]);
        assert_eq!(req.amount.as_ref().map(|a| (a.value, a.source)), Some((99_900_000.0, AmountSource::Request)));
        assert_eq!(req.page_total, None);
        assert!(!req.action_summary.contains("10 USD"), "{}", req.action_summary);
    }

    #[test]
    fn the_kind_follows_the_tool_then_the_scope() {
        let with = |tool: &str, target: bool| Action {
            tool: tool.into(),
            url: target.then(|| "https://a.vn/".to_owned()),
            target: target.then(ElementFacts::default),
            ..Action::default()
        };
        let cases = [
            (with("browser_navigate", true), PermissionScope::Submit, ConfirmKind::Open),
            (with("browser_upload_file", true), PermissionScope::Submit, ConfirmKind::Upload),
            (with("browser_close_tab", true), PermissionScope::Destructive, ConfirmKind::Close),
            (with("browser_type", true), PermissionScope::Submit, ConfirmKind::Type),
            (with("browser_click", true), PermissionScope::Publish, ConfirmKind::Publish),
            (with("browser_click", true), PermissionScope::Destructive, ConfirmKind::Delete),
            (with("browser_click", true), PermissionScope::Submit, ConfirmKind::Send),
            (with("watch_delete", false), PermissionScope::Destructive, ConfirmKind::Delete),
            (with("query_local_db", false), PermissionScope::Submit, ConfirmKind::Other),
        ];
        for (action, scope, kind) in cases {
            let req = ConfirmationRequest::for_action(&action, scope, RiskLevel::High, &[], &[]);
            assert_eq!(req.kind, kind, "{} at {scope:?}", action.tool);
        }
    }

    #[test]
    fn the_assistant_s_question_carries_its_estimate_as_the_amount() {
        let args: RequestUserConfirmationArgs = serde_json::from_value(serde_json::json!({
            "action_summary": "Đặt vé máy bay HAN-SGN",
            "cost_estimate": {"amount": 1890000, "currency": "VND"},
            "risks": ["non-refundable"],
        }))
        .unwrap();
        let req = ConfirmationRequest::from_model(&args, &[], Duration::from_secs(60));
        assert_eq!(req.kind, ConfirmKind::Ask);
        assert_eq!(req.amount, amount(1_890_000.0, Some("VND"), AmountSource::Assistant));
        assert_eq!(req.plain, [PlainReason::AssistantAsks]);
    }
}
