//! What the gatekeeper sees of a call: the real action, read by code from
//! the page and the arguments just before it runs, never taken from the
//! model's description of it.

pub use crate::secrets::keys::SecretValue;
use serde::{Deserialize, Serialize};

use crate::tools::PermissionScope;

/// One call about to run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Action {
    /// The tool (`browser_click`).
    pub tool: String,
    /// The tool's declared scope (the floor of the effective one).
    pub declared: Option<PermissionScope>,
    /// The page the action happens on (`https://shop.vn/p/1`), if any.
    pub url: Option<String>,
    /// Its origin (`https://shop.vn`).
    pub origin: Option<String>,
    /// The URL of the frame that holds the target element, when not the top page.
    pub frame_url: Option<String>,
    /// The element acted on (click, type, select, check, upload, press with a target).
    pub target: Option<ElementFacts>,
    /// For `browser_press_key`: the keys pressed (`["Tab", "Enter"]`).
    pub keys: Vec<String>,
    /// Text to be typed (`browser_type`), as given.
    pub text: Option<String>,
    /// Where data or the browser goes: the URL of a navigation, a new tab, a
    /// download, or the action of the form a submit sends.
    pub destination: Option<String>,
    /// The file an upload sends (its name).
    pub upload: Option<String>,
    /// Closing this tab loses form edits that were not submitted.
    pub closes_unsaved_form: bool,
    /// A total line read from the page (`Tổng cộng: 21.490.000 ₫`), shown to the user.
    pub page_total: Option<String>,
    /// The price of what the control buys, as the page shows it (`browser::js`
    /// `productPrice`): the amount a payment names when nothing else does.
    pub price: Option<PagePrice>,
    /// Profile keys whose real values the call fills in for placeholders
    /// (`{{profile.travel.passport_no}}`), and the labels of sensitive
    /// client results' values (`{{secret.ID.PATH}}`: `card from get_card`):
    /// the value goes onto the page.
    pub fills: Vec<String>,
    /// A tool of another program (an MCP server Halley attached), whose
    /// own description of itself is not trusted: it is asked about,
    /// whatever its scope, unless a rule or this session allows it. The
    /// reason shown to the user.
    pub untrusted: Option<String>,
    /// A file the call takes from outside the user's ordinary folders (a
    /// key store, a hidden folder, `/etc`): always asked about, whatever
    /// the scope and the rules; the reason (with the path) shown.
    pub private_file: Option<String>,
    /// A request the page really sends while the action runs (the gate at
    /// the wire, `gate::request`, graded by `gate::classify::wire`): graded from what it is, whatever the
    /// control that caused it said.
    pub request: Option<super::request::WireRequest>,
    /// What the call sends off this machine in its arguments (a search
    /// query, a watch's URL, an MCP or client tool's arguments), as JSON
    /// text: the user's values in it ask first.
    pub carries: Option<String>,
    /// What the call would change that lasts beyond the run (the profile,
    /// memory, watches: `gate::lasting`), as the user is shown it.
    pub changes: Option<String>,
    /// What others' words the run read before this call (a page, a file,
    /// another program's result): with `changes`, the user is asked first,
    /// whatever the rules say, and told where the idea may come from.
    pub read_from: Vec<String>,
    /// Why a page's request is asked about because the person's values
    /// were typed into the tab's page of another site (`browser::intercept::Filled`).
    pub after_fill: Option<String>,
}

impl Action {
    /// A hash of what makes the action this action: where it happens, what
    /// it targets, where its form goes and what fields it sends, where the
    /// browser or the data goes. An approval is bound to it; if the page
    /// changes any of these before the action runs, the user is asked again.
    /// Field values are left out (typing more into a field is not a new
    /// action), except that a changed destination or form action is.
    pub fn binding(&self) -> String {
        use sha2::{Digest, Sha256};
        let target = self.target.as_ref().map(|t| {
            let form = t.form.as_ref().map(|f| {
                let names: Vec<&str> = f.fields.iter().map(|x| x.name.as_str()).collect();
                serde_json::json!([f.action, f.method, f.id, names])
            });
            serde_json::json!([
                t.tag,
                t.role,
                t.kind,
                t.name,
                t.text,
                t.value,
                t.id,
                t.field_name,
                t.href,
                t.submits_form,
                form
            ])
        });
        let key = serde_json::json!([
            self.tool,
            self.origin,
            self.frame_url,
            target,
            self.keys,
            self.destination,
            self.upload,
            self.private_file
        ]);
        hex::encode(Sha256::digest(key.to_string().as_bytes()))
    }
}

/// The price of what a control buys, read from its page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PagePrice {
    /// As the page writes it (`21.490.000 ₫`, `21490000 VND`).
    pub price: String,
    /// Where it was read: the chosen option, the price nearest the control,
    /// the product's structured data, the page's price element.
    pub from: crate::protocol::AmountSource,
    /// The quantity the control's form sends (1 when it sends none).
    #[serde(default = "one")]
    pub quantity: u32,
    /// A shipping fee the page shows (`Phí vận chuyển: 30.000 ₫`).
    #[serde(default)]
    pub shipping: Option<String>,
}

const fn one() -> u32 {
    1
}

/// The element an action targets, as the page shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ElementFacts {
    /// `button`, `input`, `a`...
    pub tag: String,
    /// ARIA role, explicit or implicit (`button`, `link`, `textbox`).
    pub role: String,
    /// The `type` attribute (`submit`, `password`, `file`), if any.
    #[serde(rename = "type")]
    pub kind: String,
    /// Accessible name (label, aria-label, text content).
    pub name: String,
    /// Visible text (short).
    pub text: String,
    /// `value` attribute of buttons and inputs.
    pub value: String,
    /// `id` and `name` attributes, and the class list, as hints.
    pub id: String,
    pub field_name: String,
    pub class: String,
    /// The link target for `a[href]`.
    pub href: String,
    /// Clicking it (or Enter in it) submits its form.
    pub submits_form: bool,
    /// It is (or sits in) a CAPTCHA widget or an OTP / 2FA code field.
    pub challenge_field: bool,
    /// The form it belongs to.
    pub form: Option<FormFacts>,
}

/// A form and what it would send.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FormFacts {
    /// Absolute URL the form submits to.
    pub action: String,
    /// `get` or `post`.
    pub method: String,
    pub id: String,
    /// Its accessible name or heading, if any (`Thanh toán`).
    pub name: String,
    /// The fields that would be sent.
    pub fields: Vec<FieldFacts>,
}

/// One form field that would be sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FieldFacts {
    pub name: String,
    /// Input type (`text`, `password`, `email`, `file`, `hidden`...).
    pub kind: String,
    /// Its current value (files: their names).
    pub value: String,
    /// Its label, if any.
    pub label: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn click_on(action: &str) -> Action {
        Action {
            tool: "browser_click".into(),
            origin: Some("https://shop.vn".into()),
            target: Some(ElementFacts {
                tag: "button".into(),
                name: "Mua ngay".into(),
                submits_form: true,
                form: Some(FormFacts { action: action.into(), method: "post".into(), ..FormFacts::default() }),
                ..ElementFacts::default()
            }),
            ..Action::default()
        }
    }

    #[test]
    fn the_binding_changes_when_the_form_goes_elsewhere() {
        let a = click_on("https://shop.vn/checkout");
        assert_eq!(a.binding(), click_on("https://shop.vn/checkout").binding());
        assert_ne!(a.binding(), click_on("https://evil.example/collect").binding());
        let mut typed = a.clone();
        typed.page_total = Some("Tổng: 1 ₫".into());
        assert_eq!(a.binding(), typed.binding(), "what the page shows is not what the action is");
    }
}
