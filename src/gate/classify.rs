//! The effective scope of a call: what it really does, worked out by code
//! from the action as the page shows it (never from the model's account of
//! it), and the calls that must never run (typing a one-time code, solving a
//! CAPTCHA).
//!
//! The effective scope is the highest of the tool's declared scope and
//! everything found:
//! - a click, or Enter / Space, that submits a form is SUBMIT (Enter in any
//!   field of a form counts, textareas included: comment boxes post on
//!   Enter; a search form is no exception here, the policy may allow it);
//! - what the control, its link and (when submitted) its form say they do,
//!   in English and Vietnamese (`phrases.rs`): pay / buy / "thanh toán" is
//!   PAYMENT, post / "đăng" PUBLISH, delete / "xóa" DESTRUCTIVE;
//! - a submitted form that asks for a card number is PAYMENT;
//! - an upload is SUBMIT; closing a tab that holds unsaved form edits is
//!   DESTRUCTIVE;
//! - a URL, link or form that carries one of the user's secret values, in
//!   any encoding (`exfil.rs`), is at least SUBMIT (reasons name the key,
//!   never the value).
//!
//! Every label, id, class, field name and URL is read as a person reads it
//! (`vocab::text::readable`, in `words.rs`): invisible format characters
//! dropped, look-alike letters of other scripts read as the Latin ones, so
//! a "Place order" written with a Greek Ρ and a Cyrillic о, or split by
//! zero-width spaces, is still PAYMENT.
//!
//! One exception to "never below the declaration": `browser_close_tab` is
//! declared DESTRUCTIVE defensively (the tool cannot know), but here the
//! facts are known, so a tab with no unsaved form edits closes at
//! WRITE_NON_DESTRUCTIVE. A tool with no declared scope counts as DESTRUCTIVE.

pub(in crate::gate) mod phrases;
pub(in crate::gate) mod sentence;
pub mod wire;
pub(in crate::gate) mod words;

use serde::{Deserialize, Serialize};
use url::Url;

use self::phrases::{
    ACTION_PARAMS, ACTIONS, CAPTCHA_HOSTS, CARD_FIELDS, CHALLENGE_FIELDS, Effect, MESSAGE_FIELDS, Phrase,
};
use self::words::{find, words};
use super::action::{Action, ElementFacts, FormFacts, SecretValue};
use super::exfil::{find_secrets, percent_decode};
use crate::protocol::{Act, Carry, ChallengeEvidence, Control, Grading, Means, Place};
use crate::tools::PermissionScope::{self, Destructive, Payment, Publish, ReadOnly, Submit, WriteNonDestructive};
use crate::vocab::origin::{host_within, origin_in, resolve};
use crate::vocab::text::visible;

/// Why a call on a challenge is refused.
pub const CHALLENGE_DENY: &str =
    "Halley never types a one-time code or solves a CAPTCHA: hand it to the user with human_solve_challenge";

/// A URL path segment longer than this many words is a slug (a title), not
/// an action, and is not read for keywords (`/checkout` is read,
/// `/how-to-book-cheap-flights-to-tokyo` is not).
const MAX_SEGMENT_WORDS: usize = 4;

/// What a call really does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Classification {
    /// The effective scope: the declared one raised by everything found.
    pub scope: PermissionScope,
    /// The evidence, one short sentence each, for the user and the audit log.
    pub reasons: Vec<String>,
    /// Set when the call must never run, whatever the user's rules say.
    pub deny: Option<String>,
}

/// The effective scope of `action`, given the user's secret values.
pub fn classify(action: &Action, secrets: &[SecretValue]) -> Classification {
    grade(action, secrets).0
}

/// [`classify`], with its reasons by kind (the confirmation's `grading`):
/// the classification's reasons are their English sentences.
pub fn grade(action: &Action, secrets: &[SecretValue]) -> (Classification, Vec<Grading>) {
    if let Some(request) = &action.request {
        // What leaves, not what the control said: the request alone decides.
        let mut out = wire::classify_request(request, action.url.as_deref(), secrets);
        if let Some(declared) = action.declared.filter(|d| *d > out.scope) {
            out.scope = declared;
        }
        if let Some(why) = &action.after_fill {
            out.scope = out.scope.max(Submit);
            out.reasons.push(why.clone());
        }
        let grading = out.reasons.iter().map(|text| Grading::Text { text: text.clone() }).collect();
        return (out, grading);
    }
    let mut cx = Reading {
        action,
        secrets,
        out: Classification { scope: ReadOnly, reasons: Vec::new(), deny: None },
        grading: Vec::new(),
    };
    cx.out.scope = match (action.tool.as_str(), action.declared) {
        ("browser_close_tab", _) => WriteNonDestructive,
        (_, Some(declared)) => declared,
        (tool, None) => {
            cx.note(Grading::NoScope { tool: tool.to_owned() });
            Destructive
        }
    };
    match action.tool.as_str() {
        "browser_click" => match &action.target {
            Some(el) => cx.activate(el, Act::Click, submits(el)),
            None => cx.raise(Submit, Grading::Unread { act: Act::Click }),
        },
        "browser_press_key" => cx.press_keys(),
        "browser_upload_file" => cx.upload(),
        "browser_close_tab" => cx.close_tab(),
        _ => {}
    }
    cx.destination();
    cx.carries();
    cx.fills();
    cx.challenge();
    (cx.out, cx.grading)
}

struct Reading<'a> {
    action: &'a Action,
    secrets: &'a [SecretValue],
    out: Classification,
    grading: Vec<Grading>,
}

/// Text to look for phrases in, and where it was read.
struct Source {
    place: Place,
    /// The id, class or URL read (none for the control's own label), shortened.
    shown: Option<String>,
    text: String,
    /// Split camelCase (ids, classes, URLs).
    camel: bool,
}

impl Reading<'_> {
    fn raise(&mut self, scope: PermissionScope, reason: Grading) {
        self.out.scope = self.out.scope.max(scope);
        self.note(reason);
    }

    /// A reason, once: its English sentence in the classification, itself
    /// in the grading.
    fn note(&mut self, reason: Grading) {
        let text = sentence::english(&reason);
        if !self.out.reasons.contains(&text) {
            self.out.reasons.push(text);
            self.grading.push(reason);
        }
    }

    /// Filling or typing a sensitive profile value into a page hands it to
    /// that site: at least SUBMIT, so the user sees where it goes.
    fn fills(&mut self) {
        let to = self.action.origin.clone().unwrap_or_else(|| "this page".into());
        for key in self.action.fills.clone() {
            self.raise(Submit, carries(key, Carry::Fill, to.clone()));
        }
        // The value itself, typed as the model wrote it (in any spelling):
        // the page has it as it is typed (`oninput`), whatever the form does.
        if self.action.tool == "browser_type"
            && let Some(text) = self.action.text.as_deref()
        {
            for s in find_secrets(text, self.secrets) {
                if !self.action.fills.contains(&s.key) {
                    self.raise(Submit, carries(s.key.clone(), Carry::Typed, to.clone()));
                }
            }
        }
    }

    fn base(&self) -> Option<&str> {
        self.action.url.as_deref()
    }

    /// A click, or Enter / Space, on `el`; `submitting` when it submits its form.
    fn activate(&mut self, el: &ElementFacts, act: Act, submitting: bool) {
        let what = describe(el);
        if submitting {
            self.form_submit(el, act, &what);
        }
        let mut sources = element_sources(el, self.base());
        if submitting && let Some(form) = &el.form {
            sources.extend(form_sources(form, self.base()));
        }
        for src in &sources {
            for phrase in find(&words(&src.text, src.camel), ACTIONS) {
                self.phrase(phrase, src, el, act, &what, submitting);
            }
        }
        if is_link(el) && !el.href.is_empty() {
            for s in find_secrets(&el.href, self.secrets) {
                let to = origin_of(&el.href, self.base());
                let mut reason = carries(s.key.clone(), Carry::Link, to);
                if let Grading::Carries { act: a, control, .. } = &mut reason {
                    (*a, *control) = (Some(act), Some(what.clone()));
                }
                self.raise(Submit, reason);
            }
        }
    }

    fn phrase(&mut self, p: &Phrase, src: &Source, el: &ElementFacts, act: Act, what: &Control, submitting: bool) {
        let says = |means: Means, scope: PermissionScope| Grading::Says {
            act,
            control: what.clone(),
            place: src.place,
            place_text: src.shown.clone(),
            phrase: p.text.to_owned(),
            means,
            scope,
        };
        match p.effect {
            Effect::Raise(scope) => self.raise(scope, says(Means::Scope { meaning: p.meaning.to_owned() }, scope)),
            Effect::Neutral => {}
            Effect::BareCancel if submitting => self.raise(Destructive, says(Means::CancelSubmits, Destructive)),
            Effect::BareCancel => self.note(says(Means::CancelOnly, self.out.scope)),
            Effect::BareSend => match &el.form {
                None => self.raise(Publish, says(Means::MessageOutsideForm, Publish)),
                Some(form) => match message_field(form) {
                    Some(field) => self.raise(Publish, says(Means::MessageField { field }, Publish)),
                    None => self.raise(Submit, says(Means::FormNoMessage, Submit)),
                },
            },
        }
    }

    /// `el` submits its form: SUBMIT, more if the form asks for a card or
    /// sends a secret.
    fn form_submit(&mut self, el: &ElementFacts, act: Act, what: &Control) {
        let form = el.form.as_ref();
        let to = form.map(|f| f.action.as_str()).filter(|s| !s.is_empty()).or(self.action.destination.as_deref());
        let shown = to.map(|d| short(d, 80));
        self.raise(Submit, Grading::SubmitsForm { act, control: what.clone(), to: shown });
        let Some(form) = form else { return };
        let origin = to.map_or_else(|| "its page's site".into(), |d| origin_of(d, self.base()));
        let get = !form.method.eq_ignore_ascii_case("post");
        for field in &form.fields {
            let field_label = if field.label.is_empty() { &field.name } else { &field.label };
            let hint = format!("{} {}", field.name, field.label);
            if let Some(p) = find(&words(&hint, true), CARD_FIELDS).first() {
                let field = short(field_label, 40);
                self.raise(Payment, Grading::CardField { meaning: p.meaning.to_owned(), field });
            }
            if field.name.eq_ignore_ascii_case("_method") && field.value.eq_ignore_ascii_case("delete") {
                self.raise(Destructive, Grading::DeleteRequest);
            }
            for s in find_secrets(&field.value, self.secrets) {
                let how = if get { Carry::FormUrl } else { Carry::Form };
                self.raise(Submit, carries(s.key.clone(), how, origin.clone()));
            }
        }
    }

    fn press_keys(&mut self) {
        let keys: Vec<Key> = self.action.keys.iter().map(|k| key_of(k)).collect();
        let target = self.action.target.as_ref();
        if keys.contains(&Key::Enter) {
            match target {
                None => self.raise(Submit, Grading::Unread { act: Act::Keys }),
                Some(el) if is_button_like(el) || is_link(el) => self.activate(el, Act::EnterOn, submits(el)),
                Some(el) => self.activate(el, Act::EnterIn, el.submits_form || el.form.is_some()),
            }
        }
        if keys.contains(&Key::Space)
            && let Some(el) = target.filter(|el| is_button_like(el))
        {
            self.activate(el, Act::SpaceOn, submits(el));
        }
    }

    fn upload(&mut self) {
        let a = self.action;
        let file = a.upload.as_deref().filter(|f| !f.is_empty()).map(str::to_owned);
        let form_action = a.target.as_ref().and_then(|t| t.form.as_ref()).map(|f| f.action.as_str());
        let to = [form_action, a.destination.as_deref(), a.origin.as_deref(), a.url.as_deref()]
            .into_iter()
            .flatten()
            .find(|d| !d.is_empty())
            .map_or("the page's site".into(), |d| origin_of(d, self.base()));
        self.raise(Submit, Grading::Upload { file, to });
    }

    fn close_tab(&mut self) {
        if self.action.closes_unsaved_form {
            self.raise(Destructive, Grading::CloseUnsaved);
        } else if let Some(declared) = self.action.declared.filter(|d| *d > WriteNonDestructive) {
            self.note(Grading::CloseSaved { declared });
        }
    }

    /// Where the call sends the browser or data: a secret in it is an exfiltration.
    fn destination(&mut self) {
        let Some(dest) = self.action.destination.as_deref() else { return };
        for s in find_secrets(dest, self.secrets) {
            let to = origin_of(dest, self.base());
            self.raise(Submit, carries(s.key.clone(), Carry::Url, to));
        }
    }

    /// Arguments that leave this machine (a search query, a watch's URL, an
    /// MCP or client tool's arguments): the user's values in them, in any
    /// spelling or encoding, are a leak unless the user says yes.
    fn carries(&mut self) {
        let Some(text) = self.action.carries.as_deref() else { return };
        let tool = self.action.tool.clone();
        for s in find_secrets(text, self.secrets) {
            self.raise(Submit, carries(s.key.clone(), Carry::Arguments, tool.clone()));
        }
    }

    /// OTP fields and CAPTCHA widgets are the user's to handle: a Deny.
    fn challenge(&mut self) {
        let a = self.action;
        let Some(el) = &a.target else { return };
        if a.declared == Some(ReadOnly) {
            return;
        }
        let act = match a.tool.as_str() {
            "browser_type" => Act::Type,
            "browser_click" => Act::Click,
            "browser_press_key" => Act::Keys,
            "browser_check" | "browser_uncheck" => Act::Check,
            _ => Act::Other,
        };
        let typing = matches!(a.tool.as_str(), "browser_type" | "browser_press_key");
        let evidence = if el.challenge_field {
            Some(ChallengeEvidence::Widget)
        } else if let Some(host) = a.frame_url.as_deref().and_then(captcha_frame) {
            Some(ChallengeEvidence::Frame { host })
        } else if typing && is_text_entry(el) {
            let hint = format!("{} / {} / {}", el.name, el.id, el.field_name);
            find(&words(&hint, true), CHALLENGE_FIELDS)
                .first()
                .map(|p| ChallengeEvidence::Field { meaning: p.meaning.to_owned() })
        } else {
            None
        };
        if let Some(evidence) = evidence {
            self.out.deny = Some(CHALLENGE_DENY.into());
            self.note(Grading::Challenge { act, control: describe(el), evidence });
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Enter,
    Space,
    Other,
}

/// The key a chord ends with: `Ctrl+Enter` and `RETURN` are Enter.
fn key_of(chord: &str) -> Key {
    if chord == " " {
        return Key::Space;
    }
    let chord = chord.trim();
    let last = match chord.rsplit('+').next() {
        Some("") | None => "+",
        Some(k) => k.trim(),
    };
    match last.to_ascii_lowercase().as_str() {
        "enter" | "return" | "numpadenter" => Key::Enter,
        "space" | "spacebar" => Key::Space,
        _ => Key::Other,
    }
}

/// A tag, role or type as the browser reads it: invisible characters the
/// page slipped in (`role="butt\u{200b}on"`) do not hide what it is.
fn lower(s: &str) -> String {
    visible(s).trim().to_ascii_lowercase()
}

fn is_button_like(el: &ElementFacts) -> bool {
    let (tag, kind) = (lower(&el.tag), lower(&el.kind));
    tag == "button"
        || (tag == "input" && matches!(kind.as_str(), "submit" | "button" | "image" | "reset"))
        || matches!(lower(&el.role).as_str(), "button" | "menuitem")
}

fn is_link(el: &ElementFacts) -> bool {
    lower(&el.tag) == "a" || lower(&el.role) == "link"
}

fn is_text_entry(el: &ElementFacts) -> bool {
    let (tag, kind) = (lower(&el.tag), lower(&el.kind));
    tag == "textarea"
        || (tag == "input"
            && !matches!(
                kind.as_str(),
                "submit" | "button" | "image" | "reset" | "checkbox" | "radio" | "file" | "hidden" | "range" | "color"
            ))
        || matches!(lower(&el.role).as_str(), "textbox" | "searchbox" | "combobox")
}

/// A click on `el` submits its form: the page says so, or it is a submit
/// button of a form (a `<button>` with no type is one).
fn submits(el: &ElementFacts) -> bool {
    let (tag, kind) = (lower(&el.tag), lower(&el.kind));
    el.submits_form
        || (el.form.is_some()
            && ((tag == "button" && matches!(kind.as_str(), "" | "submit"))
                || (tag == "input" && matches!(kind.as_str(), "submit" | "image"))))
}

/// Where to read what `el` says it does. A text field's value is what was
/// typed, not a label; ids and classes are read on buttons only (on links
/// and cards they name layout: `post-card`).
fn element_sources(el: &ElementFacts, base: Option<&str>) -> Vec<Source> {
    let label = |text: &str| Source { place: Place::Label, shown: None, text: text.to_owned(), camel: false };
    let attr =
        |place: Place, text: &str| Source { place, shown: Some(short(text, 40)), text: text.to_owned(), camel: true };
    if lower(&el.tag) == "img" && !is_button_like(el) && !is_link(el) {
        // A picture's description ("Sport bra, post-operative, view 1")
        // is not a control's label: what a click on it sends is graded at
        // the wire, from what it is.
        return Vec::new();
    }
    let mut out = vec![label(&el.name)];
    if is_button_like(el) {
        out.extend([
            label(&el.text),
            label(&el.value),
            attr(Place::Id, &el.id),
            attr(Place::Name, &el.field_name),
            attr(Place::Class, &el.class),
        ]);
    } else if is_link(el) {
        out.push(label(&el.text));
        out.push(url_source(Place::Link, &el.href, base));
    } else if is_text_entry(el) {
        out.extend([attr(Place::Id, &el.id), attr(Place::Name, &el.field_name)]);
    } else {
        out.push(label(&el.text));
    }
    out.retain(|s| !s.text.trim().is_empty());
    out
}

/// What a submitted form says it does: its action URL, id and name.
fn form_sources(form: &FormFacts, base: Option<&str>) -> Vec<Source> {
    let mut out = vec![
        url_source(Place::FormAction, &form.action, base),
        Source { place: Place::FormId, shown: Some(short(&form.id, 40)), text: form.id.clone(), camel: true },
        Source { place: Place::FormName, shown: Some(short(&form.name, 40)), text: form.name.clone(), camel: false },
    ];
    out.retain(|s| !s.text.trim().is_empty());
    out
}

fn url_source(place: Place, url: &str, base: Option<&str>) -> Source {
    Source { place, shown: Some(short(url, 80)), text: url_words(url, base), camel: true }
}

/// One of the user's values going out.
fn carries(key: String, how: Carry, to: String) -> Grading {
    Grading::Carries { key, how, to, act: None, control: None }
}

/// The parts of a URL that name an action: its short path segments, the
/// body of a `javascript:` URL, and action-like query parameters
/// (`?action=delete`); never the host nor search terms.
fn url_words(url: &str, base: Option<&str>) -> String {
    let Some(u) = resolve(url, base.or(Some("https://page.invalid/"))) else { return String::new() };
    let mut parts = Vec::new();
    if u.scheme() == "javascript" {
        parts.push(percent_decode(u.path()));
    } else if let Some(segments) = u.path_segments() {
        for seg in segments.map(percent_decode) {
            if words(&seg, true).len() <= MAX_SEGMENT_WORDS {
                parts.push(seg);
            }
        }
    }
    for (k, v) in u.query_pairs() {
        if ACTION_PARAMS.contains(&k.to_ascii_lowercase().as_str()) {
            parts.push(v.into_owned());
        }
    }
    parts.join(" / ")
}

/// `https://shop.vn` for any URL of that site; the URL itself when it has no origin.
fn origin_of(url: &str, base: Option<&str>) -> String {
    origin_in(url, base).unwrap_or_else(|| short(url, 80))
}

/// The host of a CAPTCHA provider's frame, if `frame_url` is one.
fn captcha_frame(frame_url: &str) -> Option<String> {
    let u = Url::parse(frame_url).ok()?;
    let host = u.host_str()?.to_ascii_lowercase();
    let under = |domain: &str| host_within(&host, domain);
    let google = (under("google.com") || under("recaptcha.net")) && u.path().starts_with("/recaptcha");
    (google || CAPTCHA_HOSTS.iter().any(|h| under(h))).then_some(host)
}

/// The label of the first field of `form` that holds a message (a comment,
/// a review), if any.
fn message_field(form: &FormFacts) -> Option<String> {
    form.fields.iter().find_map(|f| {
        let hint = format!("{} / {}", f.name, f.label);
        let found = !find(&words(&hint, true), MESSAGE_FIELDS).is_empty();
        found.then(|| short(if f.label.is_empty() { &f.name } else { &f.label }, 40))
    })
}

/// `"Mua ngay" (button)`, for reasons.
fn describe(el: &ElementFacts) -> Control {
    let first = |xs: [&str; 5]| xs.into_iter().map(str::trim).find(|s| !s.is_empty()).map(str::to_owned);
    let role = first([&el.role, &el.tag, "", "", ""]).unwrap_or_else(|| "element".into());
    Control { label: first([&el.name, &el.text, &el.value, &el.field_name, &el.id]).map(|l| short(&l, 60)), role }
}

/// `s` on one line, cut to `max` characters.
fn short(s: &str, max: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests;
