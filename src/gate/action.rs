//! What the gatekeeper sees of a call: the real action, read by code from
//! the page and the arguments just before it runs, never taken from the
//! model's description of it.

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
    /// A price or total read from the page (`21.490.000 ₫`), shown to the user.
    pub page_total: Option<String>,
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

/// A value of the user's that must not leave without consent (a profile
/// value: passport number, card, phone...), by its profile key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecretValue {
    /// Profile key, e.g. `travel.passport_no`.
    pub key: String,
    pub value: String,
}
