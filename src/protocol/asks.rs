//! What the user is asked: a confirmation written by code from the real
//! action (the gate writes it, `gate::confirm`), a challenge handed to them,
//! and what they answer.

use serde::Serialize;
use ts_rs::TS;

use crate::tools::{PermissionScope, RiskLevel};

/// What the user is asked to approve, written by code from the real
/// action: never the model's own description of it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ConfirmationRequest {
    pub id: String,
    pub tool: String,
    /// One sentence: what will happen, where.
    pub action_summary: String,
    /// The form fields that would be sent (sensitive values masked).
    pub fields: Vec<ConfirmField>,
    /// Where the data or the browser goes.
    pub destination: Option<String>,
    /// The page it happens on.
    pub url: Option<String>,
    pub origin: Option<String>,
    /// A price or total read from the page.
    pub page_total: Option<String>,
    /// Why it is asked: the evidence, in plain words.
    pub risks: Vec<String>,
    pub scope: PermissionScope,
    pub risk_level: RiskLevel,
    /// RFC 3339; after it, no answer is a refusal.
    pub expires_at: String,
    /// The run that asks (none: a direct call).
    pub run_id: Option<String>,
    /// What kind of thing will happen: the dialog writes its one plain
    /// sentence from it, in the user's language.
    pub kind: ConfirmKind,
    /// The amount of money involved, when there is one: what the request
    /// sends, else the page's cart or total, else the assistant's estimate.
    pub amount: Option<ConfirmAmount>,
    /// The site the data or the browser goes to (`shop.vn`, `127.0.0.1`).
    pub site: Option<String>,
    /// The control acted on, as the page labels it ("Đặt hàng").
    pub target: Option<String>,
    /// Why it is asked, in plain words (the dialog writes them in the
    /// user's language); `risks` holds the technical grading.
    pub plain: Vec<PlainReason>,
}

/// What a confirmed action does, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmKind {
    /// Pays or places an order (PAYMENT).
    Pay,
    /// Posts something others see (PUBLISH).
    Publish,
    /// Deletes or cancels something (DESTRUCTIVE).
    Delete,
    /// Sends a form or data to a site (SUBMIT).
    Send,
    /// Types the user's details into a field.
    Type,
    /// Uploads a file.
    Upload,
    /// Opens a page or downloads.
    Open,
    /// Closes a tab with unsaved edits.
    Close,
    /// The assistant's own question (`request_user_confirmation`).
    Ask,
    /// Runs a tool that is none of the above.
    Other,
}

/// An amount of money an action involves.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ConfirmAmount {
    /// In the currency's major unit (21490000 for 21.490.000 ₫).
    pub value: f64,
    /// ISO 4217 code, when known.
    pub currency: Option<String>,
    pub source: AmountSource,
}

/// Where an amount was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AmountSource {
    /// The request the page sends.
    Request,
    /// The page's cart or total.
    Page,
    /// The assistant's estimate (its own question).
    Assistant,
}

/// One reason to ask, in plain words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlainReason {
    /// Money may be charged.
    Payment,
    /// Others will see it.
    Publish,
    /// It may not be undone.
    Delete,
    /// Information leaves this computer for the site.
    Submit,
    /// A file leaves this computer.
    Upload,
    /// The user's own details go out: the fields or profile keys.
    PersonalData { what: Vec<String> },
    /// It goes to another site than the page's.
    OtherSite { site: String },
    /// The assistant asks in its own words.
    AssistantAsks,
    /// Another program's tool, whose description is not trusted.
    Untrusted,
    /// A file from a private place (a key store, a hidden folder).
    PrivateFile,
}

/// A challenge handed to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ChallengeRequest {
    /// The tab holding it (`tab-2`).
    pub tab_id: String,
    pub url: String,
    pub challenge_type: crate::tools::catalogue::safety::ChallengeType,
    /// Where to look, in the assistant's words.
    pub page_hint: Option<String>,
    /// The run that waits (none: a direct call).
    pub run_id: Option<String>,
}

/// What the user said about a challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeAnswer {
    /// They say they solved it (the page is checked).
    Done,
    /// They gave up.
    GaveUp,
}

/// One field of a form that would be sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ConfirmField {
    pub name: String,
    pub label: String,
    /// The value, or `••••` and its last characters when it is sensitive.
    pub value: String,
    pub masked: bool,
}
