//! Reading the real action from the page for the gatekeeper: the element,
//! its form and what the form would send, the page's origin and a total it
//! shows. Read just before acting, and again after an approval.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::browser::runtime;
use crate::browser::session::TabHandle;
use crate::builtin::browser::act::target_json;
use crate::error::Result;
use crate::gate::action::{Action, ElementFacts, PagePrice};
use crate::tools::catalogue::common::Target;

/// What `__halley.actionFacts` returns.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PageFacts {
    url: String,
    origin: String,
    frame_url: Option<String>,
    page_total: Option<String>,
    /// Unreadable (a page overriding the runtime's shape): none.
    #[serde(deserialize_with = "lenient")]
    price: Option<PagePrice>,
    target: Option<TargetFacts>,
}

fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<PagePrice>, D::Error> {
    Ok(serde_json::from_value(Value::deserialize(d)?).ok())
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TargetFacts {
    #[serde(flatten)]
    element: ElementFacts,
    enter_submits: bool,
}

/// The action `tool` would take on `target` (or on the focused element when
/// `target` is the whole page) in `tab`.
pub(crate) async fn read(tab: &TabHandle, tool: &str, target: Option<&Target>) -> Result<Action> {
    let arg = match target.filter(|t| !t.is_page()) {
        Some(t) => json!({"target": target_json(t)}),
        None => json!({}),
    };
    let raw = runtime::call(tab, "actionFacts", &arg).await?;
    Ok(from_value(tool, raw))
}

fn from_value(tool: &str, raw: Value) -> Action {
    let facts: PageFacts = serde_json::from_value(raw).unwrap_or_default();
    let (target, enter) = match facts.target {
        Some(t) => (Some(t.element), t.enter_submits),
        None => (None, false),
    };
    let mut action = Action {
        tool: tool.to_owned(),
        url: Some(facts.url).filter(|u| !u.is_empty()),
        origin: Some(facts.origin).filter(|o| !o.is_empty() && o != "null"),
        frame_url: facts.frame_url,
        page_total: facts.page_total,
        price: facts.price,
        target,
        ..Action::default()
    };
    if let Some(t) = action.target.as_mut() {
        // For keys, "submits" means Enter submits; the caller knows the keys.
        if tool == "browser_press_key" {
            t.submits_form = enter;
        }
    }
    if let Some(form) = action.target.as_ref().and_then(|t| t.form.as_ref())
        && action.target.as_ref().is_some_and(|t| t.submits_form)
    {
        action.destination = Some(form.action.clone());
    }
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submit_button_sends_its_form_to_the_form_action() {
        let raw = json!({
            "url": "https://shop.vn/p/1", "origin": "https://shop.vn", "frame_url": null, "page_total": "Tổng: 21.490.000 ₫",
            "target": {"tag": "button", "role": "button", "type": "submit", "name": "Mua ngay", "text": "Mua ngay", "value": "buy",
                       "id": "buy-now", "field_name": "action", "class": "btn", "href": "", "submits_form": true,
                       "enter_submits": false, "challenge_field": false,
                       "form": {"action": "https://shop.vn/checkout", "method": "post", "id": "buy-form", "name": "",
                                "fields": [{"name": "sku", "kind": "hidden", "value": "A1", "label": ""}]}}
        });
        let a = from_value("browser_click", raw);
        assert_eq!(a.origin.as_deref(), Some("https://shop.vn"));
        assert_eq!(a.destination.as_deref(), Some("https://shop.vn/checkout"));
        let t = a.target.unwrap();
        assert!(t.submits_form);
        assert_eq!(t.form.unwrap().fields[0].name, "sku");
        assert_eq!(a.page_total.as_deref(), Some("Tổng: 21.490.000 ₫"));
    }

    #[test]
    fn garbage_is_an_empty_action() {
        let a = from_value("browser_click", json!([1, 2]));
        assert_eq!(a.tool, "browser_click");
        assert!(a.target.is_none() && a.origin.is_none());
    }
}
