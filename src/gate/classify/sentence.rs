//! The English sentence of each reason the gate finds (`Grading`): what
//! the audit log keeps, the model reads in a refusal and the CLI shows.
//! The dialog writes the same reasons in the user's language from their
//! kind (`ui/src/dialogs/confirm.ts`).

use crate::protocol::{Act, Carry, ChallengeEvidence, Control, Grading, Means, Place};
use crate::tools::PermissionScope;

/// `clicking "Mua ngay" (button) — its id "buy-now" says "buy now" means buy now: PAYMENT`.
pub(in crate::gate) fn english(reason: &Grading) -> String {
    match reason {
        Grading::Says { act, control, place, place_text, phrase, means, scope } => {
            let said = format!("{} {} — {}\"{phrase}\"", verb(*act), control_of(control), prefix(*place, place_text));
            match means {
                Means::Scope { meaning } => format!("{said} means {meaning}: {scope}"),
                Means::CancelSubmits => format!("{said} means cancel, and it submits a form: DESTRUCTIVE"),
                Means::CancelOnly => format!("{said} alone submits no form: it closes a dialog, not destructive"),
                Means::MessageOutsideForm => format!("{said} outside a form sends a message: PUBLISH"),
                Means::MessageField { field } => format!("{said} sends a message (its form has \"{field}\"): PUBLISH"),
                Means::FormNoMessage => format!("{said} sends a form with no message in it: SUBMIT"),
            }
        }
        Grading::SubmitsForm { act, control, to } => format!(
            "{} {} submits its form to {}: SUBMIT",
            verb(*act),
            control_of(control),
            to.as_deref().unwrap_or("its page")
        ),
        Grading::CardField { meaning, field } => format!("its form asks for {meaning} (\"{field}\"): PAYMENT"),
        Grading::DeleteRequest => "its form is a DELETE request (_method=delete): DESTRUCTIVE".into(),
        Grading::Carries { key, how, to, act, control } => match how {
            Carry::FormUrl => format!("the form puts {key} into the URL of {to}: SUBMIT"),
            Carry::Form => format!("the form sends {key} to {to}: SUBMIT"),
            Carry::Link => {
                let who = match (act, control) {
                    (Some(act), Some(control)) => format!("{} {}: ", verb(*act), control_of(control)),
                    _ => String::new(),
                };
                format!("{who}the link carries {key} to {to}: SUBMIT")
            }
            Carry::Url => format!("the URL carries {key} to {to}: SUBMIT"),
            Carry::Arguments => format!("{to} sends your {key} off this computer in its arguments: SUBMIT"),
            Carry::Fill => format!("it fills your {key} into a field of {to}: SUBMIT"),
            Carry::Typed => format!("it types your {key} into a field of {to}: SUBMIT"),
        },
        Grading::Upload { file, to } => format!(
            "uploading {} to {to} (the file leaves this computer): SUBMIT",
            file.as_deref().map_or_else(|| "a file".to_owned(), |f| format!("\"{f}\""))
        ),
        Grading::CloseUnsaved => "closing the tab loses form edits that were not submitted: DESTRUCTIVE".into(),
        Grading::CloseSaved { declared } => {
            format!("closing a tab with no unsaved form edits: WRITE_NON_DESTRUCTIVE (below its declared {declared})")
        }
        Grading::Unread { act: Act::Click } => {
            "clicking an element the gate could not read may submit a form: SUBMIT".into()
        }
        Grading::Unread { .. } => "pressing Enter with no known focused element may submit a form: SUBMIT".into(),
        Grading::NoScope { tool } => format!("{tool} declares no scope: taken as DESTRUCTIVE"),
        Grading::Challenge { act, control, evidence } => {
            let evidence = match evidence {
                ChallengeEvidence::Widget => "a CAPTCHA widget or a one-time-code field".to_owned(),
                ChallengeEvidence::Frame { host } => format!("inside a CAPTCHA frame from {host}"),
                ChallengeEvidence::Field { meaning } => format!("a field for {meaning}"),
            };
            format!("{} {}, {evidence}: DENY", verb(*act), control_of(control))
        }
        Grading::ScopeAsks { scope } => {
            let what = match scope {
                PermissionScope::Submit => "it submits a form or sends data off this computer",
                PermissionScope::Publish => "it posts or does something public",
                PermissionScope::Payment => "it costs money",
                PermissionScope::Destructive => "it deletes, cancels or changes something hard to undo",
                PermissionScope::ReadOnly | PermissionScope::WriteNonDestructive => "of its scope",
            };
            format!("{scope}: needs your confirmation because {what}")
        }
        Grading::Text { text } => text.clone(),
    }
}

fn verb(act: Act) -> &'static str {
    match act {
        Act::Click => "clicking",
        Act::EnterOn => "pressing Enter on",
        Act::EnterIn => "pressing Enter in",
        Act::SpaceOn => "pressing Space on",
        Act::Type => "typing into",
        Act::Keys => "pressing keys in",
        Act::Check => "checking",
        Act::Other => "acting on",
    }
}

/// `"Mua ngay" (button)`, or `the button` when it has no label.
fn control_of(control: &Control) -> String {
    match &control.label {
        Some(label) => format!("\"{label}\" ({})", control.role),
        None => format!("the {}", control.role),
    }
}

/// `its id "buy-now" says `; nothing for the control's own label.
fn prefix(place: Place, shown: &Option<String>) -> String {
    let shown = shown.as_deref().unwrap_or_default();
    match place {
        Place::Label => String::new(),
        Place::Id => format!("its id \"{shown}\" says "),
        Place::Name => format!("its name \"{shown}\" says "),
        Place::Class => format!("its class \"{shown}\" says "),
        Place::Link => format!("its link {shown} says "),
        Place::FormAction => format!("its form's action {shown} says "),
        Place::FormId => format!("its form's id \"{shown}\" says "),
        Place::FormName => format!("its form \"{shown}\" says "),
    }
}
