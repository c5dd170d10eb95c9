//! `creator_triage_inbox`: read the comment threads in the managed browser
//! (`browser_navigate`, `browser_get_dom`), the user's reply policy from
//! the files store, and have the model classify each comment (question,
//! praise, complaint, spam, abuse...) and suggest replies in the
//! commenter's language. Nothing is posted, hidden, deleted or blocked by
//! the triage: the user approves (and edits) a batch, given back as
//! `apply`, and each of its actions is a click the gate grades from the
//! page and confirms on its own (a reply is a PUBLISH, hide/delete/block
//! DESTRUCTIVE); a denied one is reported and nothing is sent for it.
//!
//! A comment on the page is an element with `data-comment-id` (its
//! author in `.author`, its text in `.text`/`.content`, its language in
//! `lang`); its controls carry `data-action="reply|hide|delete|block"`
//! and its reply box is its `textarea`.

use std::collections::BTreeMap;

use dom_query::Document;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Skill, stored_text};
use crate::builtin::files::{FileOutput, FilesGetOutput, StoredFile};
use crate::error::{Error, ErrorCode, Result};
use crate::tools::ToolOutput;
use crate::tools::catalogue::capture::BrowserGetDomOutput;
use crate::tools::catalogue::common::SkillStatus;
use crate::tools::catalogue::creator::{
    AppliedAction, CommentAction, CreatorTriageInboxArgs, CreatorTriageInboxOutput, SuggestedReply, TriageAction,
    TriageItem,
};

pub const NAME: &str = "creator_triage_inbox";
/// The tag a reply policy is stored with when given as a file.
pub const POLICY_TAG: &str = "creator-policy";
/// How much of the policy the model is shown.
const POLICY_CHARS: usize = 8000;
/// The categories a comment is sorted into.
pub const CATEGORIES: [&str; 7] = ["question", "praise", "complaint", "spam", "abuse", "business", "other"];

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    super::typed(NAME, args, move |a: CreatorTriageInboxArgs| triage(skill, a))
}

/// One comment as read from its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub id: String,
    pub thread: String,
    pub author: Option<String>,
    pub text: String,
    pub language: Option<String>,
}

fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The comments of a thread page's HTML.
pub fn comments_of(html: &str, thread: &str) -> Vec<Comment> {
    let doc = Document::from(html);
    let mut out = Vec::new();
    for node in doc.select("[data-comment-id]").nodes() {
        let Some(id) = node.attr("data-comment-id").map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()) else {
            continue;
        };
        let sel = dom_query::Selection::from(*node);
        let author = squash(&sel.select(".author, [itemprop=author]").first().text());
        let text = squash(&sel.select(".text, .content, [itemprop=text]").first().text());
        if text.is_empty() {
            continue;
        }
        let language = node.attr("lang").map(|l| l.trim().to_owned()).filter(|l| !l.is_empty());
        out.push(Comment {
            id,
            thread: thread.to_owned(),
            author: (!author.is_empty()).then_some(author),
            text,
            language,
        });
    }
    out
}

/// The CSS selector of a comment's element, and of one of its controls.
fn in_comment(id: &str, inner: &str) -> String {
    let id = id.replace('\\', "\\\\").replace('"', "\\\"");
    format!("[data-comment-id=\"{id}\"] {inner}")
}

/// Read every thread (navigate, then the page's HTML); a thread that
/// cannot be read is noted and left out.
async fn read_threads(skill: &Skill<'_>, urls: &[String], max: usize) -> (Vec<Comment>, bool) {
    let mut all = Vec::new();
    let mut complete = true;
    for url in urls {
        if all.len() >= max {
            skill.note(format!("stopped after {max} comments (max_items)"));
            break;
        }
        let nav = skill.call("browser_navigate", json!({"url": url})).await;
        if let Some(e) = nav.error {
            skill.note(format!("{url} was not read: {}", e.message));
            complete = false;
            continue;
        }
        let dom: BrowserGetDomOutput = match skill.data("browser_get_dom", json!({"max_chars": 500_000})).await {
            Ok(d) => d,
            Err(e) => {
                skill.note(format!("{url} was not read: {}", e.message()));
                complete = false;
                continue;
            }
        };
        let found = comments_of(&dom.html, url);
        if found.is_empty() {
            skill.note(format!("no comments found on {url}"));
        }
        all.extend(found);
    }
    all.truncate(max);
    (all, complete)
}

/// The reply policy's text: a files_store id, or a file (stored first).
async fn policy(skill: &Skill<'_>, reference: &str) -> Option<String> {
    let file: Result<StoredFile> = if reference.starts_with("file_") || reference.starts_with("file-") {
        match skill.data::<FilesGetOutput>("files_get", json!({"id": reference})).await {
            Ok(found) => found.files.into_iter().next().ok_or_else(|| Error::not_found("no such stored file")),
            Err(e) => Err(e),
        }
    } else {
        let args = json!({"file_path": reference, "tags": [POLICY_TAG]});
        skill.data::<FileOutput>("files_store", args).await.map(|o| o.file)
    };
    match file.and_then(|f| stored_text(&f, POLICY_CHARS)) {
        Ok(text) => Some(text),
        Err(e) => {
            skill.note(format!("the reply policy {reference} was not read ({}): triaged without it", e.message()));
            None
        }
    }
}

#[derive(Debug, Deserialize)]
struct Sorted {
    items: Vec<SortedItem>,
}

#[derive(Debug, Deserialize)]
struct SortedItem {
    comment_id: String,
    category: String,
    priority: String,
    summary: String,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    reply: Option<String>,
    #[serde(default)]
    action: Option<String>,
}

fn sorted_schema(ids: &[&str]) -> Value {
    json!({
        "type": "object",
        "required": ["items"],
        "properties": {"items": {
            "type": "array", "minItems": ids.len(), "maxItems": ids.len(),
            "items": {
                "type": "object",
                "required": ["comment_id", "category", "priority", "summary", "language", "reply", "action"],
                "properties": {
                    "comment_id": {"enum": ids},
                    "category": {"enum": CATEGORIES},
                    "priority": {"enum": ["high", "medium", "low"]},
                    "summary": {"type": "string", "minLength": 1, "maxLength": 300},
                    "language": {"type": "string", "minLength": 2, "maxLength": 12},
                    "reply": {"type": ["string", "null"], "maxLength": 2000},
                    "action": {"enum": ["none", "hide", "delete", "block"]}
                }
            }
        }}
    })
}

fn action_of(name: Option<&str>) -> Option<CommentAction> {
    match name? {
        "hide" => Some(CommentAction::Hide),
        "delete" => Some(CommentAction::Delete),
        "block" => Some(CommentAction::Block),
        _ => None,
    }
}

fn link(c: &Comment) -> String {
    let base = c.thread.split('#').next().unwrap_or(&c.thread);
    format!("{base}#{}", c.id)
}

async fn triage(skill: &Skill<'_>, args: CreatorTriageInboxArgs) -> Result<CreatorTriageInboxOutput> {
    for a in &args.apply {
        if a.action == CommentAction::Reply && a.text.as_deref().is_none_or(|t| t.trim().is_empty()) {
            return Err(Error::invalid_arguments(format!("the reply to {} has no `text`", a.comment_id)));
        }
    }
    let max = usize::try_from(args.max_items).unwrap_or(usize::MAX);
    let (comments, complete) = read_threads(skill, &args.thread_urls, max).await;
    if !args.apply.is_empty() {
        return apply(skill, &comments, &args.apply, complete).await;
    }
    let policy = match args.policy_ref.as_deref() {
        Some(r) => policy(skill, r).await,
        None => None,
    };
    let ids: Vec<&str> = comments.iter().map(|c| c.id.as_str()).collect();
    let input = json!({
        "reply_policy": policy,
        "comments": comments.iter().map(|c| json!({
            "comment_id": c.id, "author": c.author, "text": c.text, "language": c.language,
        })).collect::<Vec<_>>(),
    });
    let task = format!(
        "triage these comments on the user's channel following the reply policy: a category for each ({}), a \
         priority (high, medium, low), a one-line summary, the comment's language code, a suggested reply in the \
         commenter's language that follows the policy (null when it should get none, e.g. spam or abuse), and \
         an action the policy calls for (none, hide, delete, block)",
        CATEGORIES.join(", ")
    );
    let sorted: Option<Sorted> =
        if comments.is_empty() { None } else { skill.write(&task, &input, &sorted_schema(&ids)).await? };
    let by_id: BTreeMap<String, SortedItem> =
        sorted.map(|s| s.items.into_iter().map(|i| (i.comment_id.clone(), i)).collect()).unwrap_or_default();
    let mut status = if complete { SkillStatus::Ok } else { SkillStatus::Partial };
    let mut triage = Vec::with_capacity(comments.len());
    let mut replies = Vec::new();
    for c in &comments {
        let url = link(c);
        match by_id.get(&c.id) {
            Some(s) => {
                if let Some(reply) = s.reply.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
                    replies.push(SuggestedReply {
                        url: url.clone(),
                        reply: reply.to_owned(),
                        comment_id: c.id.clone(),
                    });
                }
                triage.push(TriageItem {
                    url,
                    author: c.author.clone(),
                    category: s.category.clone(),
                    priority: s.priority.clone(),
                    summary: s.summary.trim().to_owned(),
                    comment_id: c.id.clone(),
                    text: c.text.clone(),
                    language: s.language.clone().or_else(|| c.language.clone()),
                    suggested_action: action_of(s.action.as_deref()),
                });
            }
            None => {
                status = SkillStatus::Partial;
                triage.push(TriageItem {
                    url,
                    author: c.author.clone(),
                    category: "unsorted".to_owned(),
                    priority: "medium".to_owned(),
                    summary: c.text.chars().take(120).collect(),
                    comment_id: c.id.clone(),
                    text: c.text.clone(),
                    language: c.language.clone(),
                    suggested_action: None,
                });
            }
        }
    }
    if !comments.is_empty() && by_id.len() < comments.len() {
        skill.note(format!(
            "{} of {} comments are not sorted (no model's answer): category `unsorted`, no reply suggested",
            comments.len() - by_id.len().min(comments.len()),
            comments.len()
        ));
    }
    Ok(CreatorTriageInboxOutput {
        triage,
        suggested_replies: replies,
        status,
        applied: Vec::new(),
        notes: skill.notes(),
    })
}

/// Carry out an approved batch: each action a click on the comment's own
/// control, confirmed by the gate at that click.
async fn apply(
    skill: &Skill<'_>,
    comments: &[Comment],
    batch: &[TriageAction],
    complete: bool,
) -> Result<CreatorTriageInboxOutput> {
    let mut applied = Vec::with_capacity(batch.len());
    let mut current: Option<&str> = None;
    let (mut denied, mut failed) = (false, !complete);
    for a in batch {
        let done = |error: Option<String>| AppliedAction {
            comment_id: a.comment_id.clone(),
            action: a.action,
            done: error.is_none(),
            error,
        };
        let Some(comment) = comments.iter().find(|c| c.id == a.comment_id) else {
            failed = true;
            applied.push(done(Some("not found on the threads given".to_owned())));
            continue;
        };
        // Back to the comment's thread (a form posted leaves it).
        if current != Some(comment.thread.as_str()) {
            let nav = skill.call("browser_navigate", json!({"url": comment.thread})).await;
            if let Some(e) = nav.error {
                failed = true;
                applied.push(done(Some(e.message)));
                continue;
            }
            current = Some(comment.thread.as_str());
        }
        if let Some(text) = a.text.as_deref().filter(|_| a.action == CommentAction::Reply) {
            let typed = skill
                .call(
                    "browser_type",
                    json!({"selector": in_comment(&comment.id, "textarea"), "text": text, "clear_first": true}),
                )
                .await;
            if let Some(e) = typed.error {
                failed = true;
                applied.push(done(Some(e.message)));
                continue;
            }
        }
        let control = in_comment(&comment.id, &format!("[data-action=\"{}\"]", a.action.as_str()));
        let clicked = skill.call("browser_click", json!({"selector": control})).await;
        match clicked.error {
            None => {
                current = None;
                applied.push(done(None));
            }
            Some(e) => {
                if e.code == ErrorCode::Denied {
                    denied = true;
                    skill.note(format!("{} on {}: not done, the user said no", a.action.as_str(), comment.id));
                } else {
                    failed = true;
                }
                applied.push(done(Some(format!("{}: {}", e.code.as_str(), e.message))));
            }
        }
    }
    let status = if failed {
        SkillStatus::Partial
    } else if denied {
        SkillStatus::NeedsConfirmation
    } else {
        SkillStatus::Ok
    };
    Ok(CreatorTriageInboxOutput {
        triage: Vec::new(),
        suggested_replies: Vec::new(),
        status,
        applied,
        notes: skill.notes(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_read_from_their_elements() {
        let html = r#"<main><article data-comment-id="c1" lang="vi"><span class="author"> Lan </span>
            <p class="text">Cho mình hỏi   micro gì ạ?</p><button data-action="reply">Trả lời</button></article>
            <article data-comment-id="c2"><p class="content">Great video</p></article>
            <article data-comment-id="empty"><p class="text"> </p></article></main>"#;
        let found = comments_of(html, "http://x/t");
        assert_eq!(
            found,
            vec![
                Comment {
                    id: "c1".into(),
                    thread: "http://x/t".into(),
                    author: Some("Lan".into()),
                    text: "Cho mình hỏi micro gì ạ?".into(),
                    language: Some("vi".into()),
                },
                Comment {
                    id: "c2".into(),
                    thread: "http://x/t".into(),
                    author: None,
                    text: "Great video".into(),
                    language: None,
                },
            ]
        );
        assert_eq!(in_comment("c\"1", "textarea"), r#"[data-comment-id="c\"1"] textarea"#);
    }
}
