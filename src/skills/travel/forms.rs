//! `travel_fill_forms`: a visa, booking or arrival form filled from the
//! profile and stored documents. The form is read by code from
//! `browser_get_dom` (labels, required fields, file inputs, the submit
//! button); each field's label is matched to a profile key (English and
//! Vietnamese labels) or to `extra_fields`; values are typed with
//! `browser_type` (sensitive ones as `{{profile.KEY}}` placeholders, which
//! the gate asks about), documents uploaded with `browser_upload_file`
//! (confirmed like every upload). A refused step is reported and the rest
//! is still filled. A screenshot of the result is kept with `files_store`;
//! submitting happens only with `submit: true`, after
//! `request_user_confirmation`, by clicking the form's button (SUBMIT for
//! the gate).

use dom_query::{Document, NodeRef, Selection};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::{denied, failure, profile};
use crate::builtin::files::{FileOutput, FilesGetOutput};
use crate::error::Result;
use crate::skills::{Skill, parse, to_output};
use crate::tools::ToolOutput;
use crate::tools::catalogue::capture::{BrowserGetDomOutput, BrowserScreenshotOutput};
use crate::tools::catalogue::common::SkillStatus;
use crate::tools::catalogue::safety::ConfirmResultV1;
use crate::tools::catalogue::travel::{TravelFillFormsArgs, TravelFillFormsOutput};
use crate::vocab::text::fold;
use crate::watch::html::{content_text, name_of};

pub const NAME: &str = "travel_fill_forms";

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    Box::pin(async move {
        let args: TravelFillFormsArgs = parse(NAME, args)?;
        to_output(&fill(skill, &args).await?)
    })
}

/// One field of a form, as read from its HTML.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// CSS selector of the control.
    pub selector: String,
    /// Its label, as shown (the `*` left out).
    pub label: String,
    /// `text`, `email`, `date`, `file`, `checkbox`, `radio`, `select`, `textarea`...
    pub kind: String,
    pub required: bool,
    /// Already has a value (a default, a checked box, a selected option).
    pub has_value: bool,
    /// `<select>` options: (value, label).
    pub options: Vec<(String, String)>,
}

/// A form read from the page: its fields and submit button.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Form {
    pub fields: Vec<Field>,
    /// CSS selector of the submit button.
    pub submit: Option<String>,
}

fn css_attr(name: &str, value: &str) -> String {
    format!("[{name}=\"{}\"]", value.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The form of the page with the most fields.
pub fn read_form(html: &str) -> Form {
    let doc = Document::from(html);
    let forms = doc.select("form");
    let best =
        forms.nodes().iter().max_by_key(|f| Selection::from(**f).select("input, select, textarea").length()).copied();
    let Some(form) = best else { return Form::default() };
    let scope = Selection::from(form);
    let form_sel = form.attr("id").map_or_else(|| "form".to_owned(), |id| format!("form{}", css_attr("id", &id)));
    let mut fields = Vec::new();
    let mut radios: Vec<String> = Vec::new();
    for el in scope.select("input, select, textarea").nodes() {
        let tag = name_of(el);
        let kind = match tag.as_str() {
            "input" => el.attr("type").map_or_else(|| "text".to_owned(), |t| t.to_ascii_lowercase()),
            other => other.to_owned(),
        };
        if matches!(kind.as_str(), "hidden" | "submit" | "button" | "reset" | "image") || el.has_attr("disabled") {
            continue;
        }
        let name = el.attr("name").map(|n| n.to_string()).unwrap_or_default();
        if kind == "radio" {
            if radios.contains(&name) {
                continue;
            }
            radios.push(name.clone());
        }
        let selector = match (el.attr("id"), kind.as_str()) {
            (Some(id), k) if k != "radio" && !id.is_empty() => css_attr("id", &id),
            _ if !name.is_empty() => format!("{form_sel} {}", css_attr("name", &name)),
            _ => continue,
        };
        let has_value = match kind.as_str() {
            "checkbox" => el.has_attr("checked"),
            "radio" => !scope.select(&format!("{}[checked]", css_attr("name", &name))).is_empty(),
            "select" => Selection::from(*el).select("option[selected]").attr("value").is_some_and(|v| !v.is_empty()),
            "textarea" => !content_text(el).is_empty(),
            _ => el.attr("value").is_some_and(|v| !v.trim().is_empty()),
        };
        let options = Selection::from(*el)
            .select("option")
            .nodes()
            .iter()
            .map(|o| {
                let label = content_text(o);
                (o.attr("value").map_or_else(|| label.clone(), |v| v.to_string()), label)
            })
            .filter(|(v, _)| !v.is_empty())
            .collect();
        fields.push(Field {
            selector,
            label: label_of(&doc, el, &name),
            kind,
            required: el.has_attr("required") || el.attr("aria-required").is_some_and(|v| &*v == "true"),
            has_value,
            options,
        });
    }
    let submit = scope.select("button[type=submit], button:not([type]), input[type=submit]").nodes().first().map(|b| {
        match b.attr("id") {
            Some(id) if !id.is_empty() => css_attr("id", &id),
            _ => format!("{form_sel} button[type=submit], {form_sel} input[type=submit]"),
        }
    });
    Form { fields, submit }
}

/// A control's label: `<label for>`, the `<label>` around it, `aria-label`,
/// the placeholder, else its name.
fn label_of(doc: &Document, el: &NodeRef<'_>, name: &str) -> String {
    let clean = |t: String| t.trim().trim_end_matches('*').trim().to_owned();
    if let Some(id) = el.attr("id")
        && let Some(l) = doc.select(&format!("label{}", css_attr("for", &id))).nodes().first()
    {
        return clean(content_text(l));
    }
    let mut at = el.parent();
    while let Some(p) = at {
        if name_of(&p) == "label" {
            return clean(content_text(&p));
        }
        if name_of(&p) == "form" {
            break;
        }
        at = p.parent();
    }
    el.attr("aria-label").or_else(|| el.attr("placeholder")).map_or_else(|| name.to_owned(), |l| clean(l.to_string()))
}

/// What a field asks for: its concept, by label words (Vietnamese and
/// English, folded), and the profile key names that hold it.
const CONCEPTS: &[(&[&str], &[&str])] = &[
    (&["het han", "expiry", "expiration", "valid until"], &["passport_expiry", "passport_expiry_date", "expiry_date"]),
    (
        &["so ho chieu", "passport number", "passport no", "so passport"],
        &["passport_no", "passport_number", "passport"],
    ),
    (&["ho va ten", "ho ten", "full name", "ten day du", "name"], &["full_name", "name", "ho_ten", "fullname"]),
    (&["email", "e-mail", "thu dien tu"], &["email"]),
    (
        &["ngay sinh", "date of birth", "birth date", "dob"],
        &["dob", "birthday", "date_of_birth", "birth_date", "ngay_sinh"],
    ),
    (&["quoc tich", "nationality", "citizenship"], &["nationality", "quoc_tich", "citizenship"]),
    (&["so dien thoai", "dien thoai", "phone", "mobile"], &["phone", "mobile", "so_dien_thoai", "phone_number"]),
    (&["dia chi", "address"], &["address", "dia_chi", "home_address"]),
    (&["gioi tinh", "gender", "sex"], &["gender", "sex", "gioi_tinh"]),
    (&["ngay nhap canh", "ngay den", "arrival date", "date of arrival"], &["arrival_date", "arrival"]),
    (&["so hieu chuyen bay", "chuyen bay", "flight number", "flight no"], &["flight_no", "flight_number", "flight"]),
    (&["nghe nghiep", "occupation"], &["occupation", "job"]),
];

/// Whether `phrase` occurs in `text` as whole words.
fn has_phrase(text: &str, phrase: &str) -> bool {
    format!(" {} ", text.split(|c: char| !c.is_alphanumeric() && c != '-').collect::<Vec<_>>().join(" "))
        .contains(&format!(" {phrase} "))
}

/// The profile key for a field labelled `label`, among `keys`.
pub fn key_for<'k>(label: &str, keys: &'k [String]) -> Option<&'k String> {
    let folded = fold(label);
    let last = |k: &str| fold(k.rsplit('.').next().unwrap_or(k));
    if let Some(k) = keys.iter().find(|k| has_phrase(&folded, &last(k).replace('_', " "))) {
        return Some(k);
    }
    let (_, names) = CONCEPTS.iter().find(|(labels, _)| labels.iter().any(|l| has_phrase(&folded, l)))?;
    keys.iter().find(|k| names.contains(&last(k).as_str()))
}

/// The words of a document kind, to match file inputs with documents.
const DOCS: &[&[&str]] = &[
    &["ho chieu", "passport"],
    &["anh the", "chan dung", "portrait", "photo", "anh"],
    &["ve may bay", "ticket", "flight"],
    &["khach san", "hotel", "dat phong", "booking"],
];

fn doc_kind(text: &str) -> Option<usize> {
    let folded = fold(text).replace(['_', '-', '.'], " ");
    DOCS.iter().position(|words| words.iter().any(|w| has_phrase(&folded, w)))
}

/// One document to upload: the ref given and what describes it.
#[derive(Debug, Clone)]
struct Doc {
    reference: String,
    about: String,
}

/// The step that puts `value` in a text field or a `<select>` (by the
/// option's label or value): tool, arguments, the value as shown.
fn set_value(field: &Field, value: &str) -> Option<(&'static str, Value, String)> {
    match field.kind.as_str() {
        "select" => {
            let f = fold(value);
            let (v, label) = field.options.iter().find(|(v, label)| fold(label) == f || fold(v) == f)?;
            Some(("browser_select_option", json!({"selector": field.selector, "value": v}), label.clone()))
        }
        "file" | "checkbox" | "radio" => None,
        _ => Some((
            "browser_type",
            json!({"selector": field.selector, "text": value, "clear_first": true}),
            value.to_owned(),
        )),
    }
}

/// The user's edits from the confirmation, typed in before the submit;
/// false when one could not be made (the form is then not submitted).
async fn apply_edits(skill: &Skill<'_>, form: &Form, edits: &Map<String, Value>) -> bool {
    for (label, value) in edits {
        let value = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let step = form.fields.iter().find(|f| fold(&f.label) == fold(label)).and_then(|f| set_value(f, &value));
        let Some((tool, args, _)) = step else {
            skill.note(format!("your edit of {label:?} could not be made on the form: not submitted"));
            return false;
        };
        let result = skill.call(tool, args).await;
        if !result.is_ok() {
            skill.note(format!("your edit of {label:?} failed ({}): not submitted", failure(&result)));
            return false;
        }
    }
    true
}

/// The value typed for `field`, and where it came from.
fn value_for(field: &Field, extra: &Map<String, Value>, profile: &Map<String, Value>) -> Option<String> {
    let folded = fold(&field.label);
    let extra_hit = extra.iter().find(|(k, _)| {
        let k = fold(k);
        k == folded || has_phrase(&folded, &k) || field.selector.contains(&format!("\"{k}\""))
    });
    let value = match extra_hit {
        Some((_, v)) => v.clone(),
        None => {
            let keys: Vec<String> = profile.keys().cloned().collect();
            profile.get(key_for(&field.label, &keys)?)?.clone()
        }
    };
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub async fn fill(skill: &Skill<'_>, args: &TravelFillFormsArgs) -> Result<TravelFillFormsOutput> {
    let nav = skill.call("browser_navigate", json!({"url": args.form_url})).await;
    if let Some(e) = nav.error {
        return Err(crate::error::Error::new(e.code, format!("the form could not be opened: {}", e.message)));
    }
    let dom: BrowserGetDomOutput = skill.data("browser_get_dom", json!({"max_chars": 500_000})).await?;
    let form = read_form(&dom.html);
    if form.fields.is_empty() {
        skill.note("no form with fields on the page");
    }
    let values: Map<String, Value> = profile(skill, &args.profile_keys).await.values.into_iter().collect();
    let extra = args.extra_fields.clone().unwrap_or_default();
    let mut docs = Vec::new();
    for d in &args.docs {
        if d.starts_with("file://") {
            docs.push(Doc { reference: d.clone(), about: d.rsplit('/').next().unwrap_or(d).to_owned() });
            continue;
        }
        match skill.data::<FilesGetOutput>("files_get", json!({"id": d})).await {
            Ok(found) if !found.files.is_empty() => {
                let f = &found.files[0];
                let about = format!("{} {} {}", f.name, f.tags.join(" "), f.note.clone().unwrap_or_default());
                docs.push(Doc { reference: d.clone(), about });
            }
            Ok(_) | Err(_) => skill.note(format!("document {d:?} is not in the files store: not uploaded")),
        }
    }

    let (mut filled, mut denied_steps, mut missing) = (Vec::new(), Vec::new(), Vec::new());
    let mut to_submit = Map::new();
    let mut consents = Vec::new();
    let file_inputs = form.fields.iter().filter(|f| f.kind == "file").count();
    for field in &form.fields {
        let step = match field.kind.as_str() {
            "file" => {
                let kind = doc_kind(&field.label);
                let pick = docs
                    .iter()
                    .position(|d| kind.is_some() && doc_kind(&d.about) == kind)
                    .or_else(|| (file_inputs == 1 && docs.len() == 1).then_some(0));
                pick.map(|i| {
                    let doc = docs.remove(i);
                    to_submit.insert(field.label.clone(), json!(doc.about.split(' ').next().unwrap_or_default()));
                    ("browser_upload_file", json!({"selector": field.selector, "file_ref": doc.reference}))
                })
            }
            "checkbox" if field.required && !field.has_value => {
                consents.push(field.label.clone());
                Some(("browser_check", json!({"selector": field.selector})))
            }
            "checkbox" | "radio" => None,
            _ => value_for(field, &extra, &values).and_then(|v| {
                let (tool, args, shown) = set_value(field, &v)?;
                to_submit.insert(field.label.clone(), json!(shown));
                Some((tool, args))
            }),
        };
        let Some((tool, step_args)) = step else {
            if field.required && !field.has_value {
                missing.push(field.label.clone());
            }
            continue;
        };
        let result = skill.call(tool, step_args).await;
        if result.is_ok() {
            filled.push(field.label.clone());
        } else {
            to_submit.remove(&field.label);
            if denied(&result) {
                denied_steps.push(field.label.clone());
                skill.note(format!("{}: you refused this step ({tool}); the rest of the form was filled", field.label));
            } else {
                skill.note(format!("{}: {}", field.label, failure(&result)));
            }
            if field.required {
                missing.push(field.label.clone());
            }
        }
    }

    for doc in &docs {
        skill.note(format!("{}: no file field of the form asks for it; not uploaded", doc.reference));
    }
    if form.submit.is_none() && !form.fields.is_empty() {
        skill.note("the form has no submit button: it cannot be submitted from here");
    }
    let shot = skill.data::<BrowserScreenshotOutput>("browser_screenshot", json!({"full_page": true})).await?;
    let preview = match skill
        .data::<FileOutput>(
            "files_store",
            json!({"file_path": shot.reference, "tags": ["travel", "form-preview"],
                "note": format!("Preview of the filled form {}", args.form_url)}),
        )
        .await
    {
        Ok(stored) => stored.file.reference,
        Err(e) => {
            skill.note(format!("the preview was not kept in the files store: {}", e.message()));
            shot.reference
        }
    };
    let submit_ready = missing.is_empty() && form.submit.is_some() && !form.fields.is_empty();
    let mut submitted = false;
    if args.submit && submit_ready {
        let origin = crate::vocab::origin::origin_of(&args.form_url).unwrap_or_else(|| args.form_url.clone());
        let mut risks = vec![format!("Your data and documents are sent to {origin}")];
        risks.extend(consents.iter().map(|c| format!("Ticked for you: {c}")));
        let asked = skill
            .data::<ConfirmResultV1>(
                "request_user_confirmation",
                json!({"action_summary": format!("Gửi biểu mẫu tại {origin} (Submit the form)"),
                    "fields_to_submit": to_submit, "risks": risks}),
            )
            .await;
        match asked {
            Ok(answer) if answer.approved && !apply_edits(skill, &form, &answer.user_edits).await => {}
            Ok(answer) if answer.approved => {
                let click = skill.call("browser_click", json!({"selector": form.submit})).await;
                if click.is_ok() {
                    submitted = true;
                } else if denied(&click) {
                    denied_steps.push("submit".to_owned());
                    skill.note("the submit was refused: nothing was sent");
                } else {
                    skill.note(format!("the submit failed: {}", failure(&click)));
                }
            }
            Ok(answer) => {
                denied_steps.push("submit".to_owned());
                skill.note(format!(
                    "you did not confirm the submit{}: nothing was sent",
                    if answer.reason.is_empty() { String::new() } else { format!(" ({})", answer.reason) }
                ));
            }
            Err(e) => skill.note(format!("the confirmation could not be asked: {}", e.message())),
        }
    } else if args.submit {
        skill.note("not submitted: the form is not ready (see missing_fields)");
    }
    let status = if submitted {
        SkillStatus::Ok
    } else if !denied_steps.is_empty() {
        SkillStatus::Partial
    } else if submit_ready {
        SkillStatus::NeedsConfirmation
    } else {
        SkillStatus::NeedsUser
    };
    Ok(TravelFillFormsOutput {
        filled_preview_ref: preview,
        submit_ready,
        missing_fields: missing,
        status,
        filled_fields: filled,
        denied: denied_steps,
        submitted,
        notes: skill.notes(),
    })
}
