//! What the user is asked: a confirmation written by code from the real
//! action (the gate writes it, `gate::confirm`), a challenge handed to them,
//! and what they answer.

use serde::{Deserialize, Serialize};
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
    /// Why it is asked: the gate's evidence, in English (the audit log's
    /// words; the CLI and MCP show them).
    pub risks: Vec<String>,
    /// The same evidence by kind, so a front end writes it in its own
    /// language (`risks` holds the English sentence of each).
    pub grading: Vec<Grading>,
    /// The HTTP method of the form or request it sends (`POST`), if any.
    pub method: Option<String>,
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
    /// (Boxed: it is the largest part, and the request rides in events.)
    pub amount: Option<Box<ConfirmAmount>>,
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
    /// How it adds up, when it is more than one price: the unit price, the
    /// quantity the form sends, the shipping the page shows.
    pub parts: Option<AmountParts>,
}

/// The parts of an amount read from a product page (`2 × 10.745.000 ₫ +
/// 30.000 ₫ shipping`), in the amount's currency.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AmountParts {
    pub unit: f64,
    pub quantity: u32,
    pub shipping: Option<f64>,
}

/// Where an amount was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AmountSource {
    /// The request the page sends.
    Request,
    /// The total (or cart) line the page shows.
    Page,
    /// The price of the option chosen in the control's form (a variant).
    Variant,
    /// The price the page shows nearest the control.
    NearButton,
    /// The product's structured data (JSON-LD offer, microdata, meta).
    StructuredData,
    /// The page's current-price element.
    PriceElement,
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

/// One piece of the gate's technical grading, by kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Grading {
    /// The control, its link or its form says what it does: clicking
    /// "Mua ngay" (button), its id "buy-now" says "buy now", which means
    /// buy now: PAYMENT.
    Says {
        act: Act,
        control: Control,
        place: Place,
        /// The id, class, URL... that says it (none: the control's label).
        place_text: Option<String>,
        /// The words found, as written (`buy now`).
        phrase: String,
        means: Means,
        scope: PermissionScope,
    },
    /// Activating the control submits its form (to that address).
    SubmitsForm { act: Act, control: Control, to: Option<String> },
    /// The submitted form asks for a card's details (`card number`), in that field.
    CardField { meaning: String, field: String },
    /// The submitted form is a DELETE request (`_method=delete`).
    DeleteRequest,
    /// One of the user's values (a profile key: `travel.passport_no`) goes
    /// to `to` (a site; for `arguments`, the tool that sends it); for a
    /// link, the control that follows it.
    Carries { key: String, how: Carry, to: String, act: Option<Act>, control: Option<Control> },
    /// A file is uploaded to `to` (it leaves this computer).
    Upload { file: Option<String>, to: String },
    /// Closing the tab loses form edits not submitted.
    CloseUnsaved,
    /// Closing a tab with no unsaved edits: below its declared scope.
    CloseSaved { declared: PermissionScope },
    /// The gate could not read the control: it may submit a form.
    Unread { act: Act },
    /// The tool declares no scope: taken as DESTRUCTIVE.
    NoScope { tool: String },
    /// A CAPTCHA or a one-time code: Halley never does it (DENY).
    Challenge { act: Act, control: Control, evidence: ChallengeEvidence },
    /// Its scope needs the user's confirmation (SUBMIT, PUBLISH, PAYMENT, DESTRUCTIVE).
    ScopeAsks { scope: PermissionScope },
    /// Any other reason (a request's grading, a rule), in English as written.
    Text { text: String },
}

/// How a control is acted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    Click,
    EnterOn,
    EnterIn,
    SpaceOn,
    Type,
    Keys,
    Check,
    Other,
}

/// A control as reasons name it: its label (none: unlabelled) and role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Control {
    pub label: Option<String>,
    /// `button`, `link`, `textbox`, else the tag.
    pub role: String,
}

/// Where a control says what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    Label,
    Id,
    Name,
    Class,
    Link,
    FormAction,
    FormId,
    FormName,
}

/// What the words found mean.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Means {
    /// An action of that scope (`meaning`: the phrase's sense, in English: `buy now`).
    Scope { meaning: String },
    /// Cancel, and it submits a form: DESTRUCTIVE.
    CancelSubmits,
    /// Cancel alone, submitting nothing: it closes a dialog.
    CancelOnly,
    /// Send, outside a form: a message (PUBLISH).
    MessageOutsideForm,
    /// Send, in a form with a message field (PUBLISH).
    MessageField { field: String },
    /// Send, in a form with no message (SUBMIT).
    FormNoMessage,
}

/// How one of the user's values goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Carry {
    /// A GET form puts it in the URL.
    FormUrl,
    /// A form sends it.
    Form,
    /// A link carries it.
    Link,
    /// The address navigated to carries it.
    Url,
    /// A tool sends it in its arguments.
    Arguments,
    /// It is filled into a field of the page.
    Fill,
    /// It is typed into a field of the page.
    Typed,
}

/// What makes a control a challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChallengeEvidence {
    /// A CAPTCHA widget or a one-time-code field.
    Widget,
    /// Inside a CAPTCHA provider's frame.
    Frame { host: String },
    /// A field named for a code (`meaning`: `one-time code`).
    Field { meaning: String },
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
