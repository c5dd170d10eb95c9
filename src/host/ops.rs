//! The host's plain answers: conversations and timelines from the store,
//! the tool list, gate rules, and files a result points at.

use std::path::{Path, PathBuf};

use base64::Engine;

use crate::builtin::memory::blocks as memory;
use crate::core::Core;
use crate::error::{Error, ErrorCode, Result};
use crate::oauth::flow::CALLBACK_TIMEOUT;
use crate::oauth::{ClientConfig, ConnectRequest};
use crate::protocol::{AccountView, ChatMessage, ConversationSummary, Reply, TimelineCall};
use crate::store::Store;
use crate::store::gate_rules::{NewGateRule, RuleDecision};
use crate::store::messages::Role;
use crate::tools::PermissionScope;
use crate::vocab::origin::SitePattern;

/// The largest file [`read_artifact`] hands out.
const MAX_ARTIFACT_BYTES: u64 = 32 * 1024 * 1024;

pub async fn conversations(store: &Store, limit: u32, query: Option<&str>) -> Result<Reply> {
    let agent = memory::default_agent(store).await?;
    let limit = limit.clamp(1, 500);
    let terms = query.map(search_terms).unwrap_or_default();
    let rows = store.conversations().for_agent(&agent, if terms.is_empty() { limit } else { 500 }).await?;
    let mut conversations = Vec::new();
    for c in rows {
        if conversations.len() >= limit as usize {
            break;
        }
        if !terms.is_empty() && !matches_all(store, &c.id, &c.title, &terms).await? {
            continue;
        }
        conversations.push(ConversationSummary { id: c.id, title: c.title, updated_at: c.updated_at });
    }
    Ok(Reply::Conversations { conversations })
}

/// A term of a conversation search.
#[derive(Debug, Clone, PartialEq)]
enum Term {
    /// A word of the messages or the title, folded.
    Word(String),
    /// A site the run visited (`tiki.vn`), folded.
    Site(String),
    /// A day, `YYYY-MM-DD`.
    Day(String),
}

/// The terms of a search: days (`2026-11-27`, `27/11/2026`), sites (a
/// word with a dot in it), else words; accents and case folded.
fn search_terms(query: &str) -> Vec<Term> {
    query
        .split_whitespace()
        .filter_map(|raw| {
            let raw = raw.trim_matches(|c: char| matches!(c, ',' | ';' | '"' | '“' | '”'));
            if raw.is_empty() {
                return None;
            }
            if let Ok(d) = chrono::NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
                return Some(Term::Day(d.to_string()));
            }
            if let Ok(d) = chrono::NaiveDate::parse_from_str(raw, "%d/%m/%Y") {
                return Some(Term::Day(d.to_string()));
            }
            let folded = crate::vocab::text::fold(raw);
            let site = folded.trim_start_matches("https://").trim_start_matches("http://").trim_end_matches('/');
            let named = site.chars().any(char::is_alphabetic) || site.parse::<std::net::Ipv4Addr>().is_ok();
            if site.contains('.') && !site.ends_with('.') && named {
                return Some(Term::Site(site.to_owned()));
            }
            Some(Term::Word(folded))
        })
        .collect()
}

/// Whether conversation `id` matches every term: its user and assistant
/// messages and title for words, the addresses its runs' calls used for
/// sites, its messages' days for days.
async fn matches_all(store: &Store, id: &str, title: &str, terms: &[Term]) -> Result<bool> {
    let messages = store.messages().for_conversation(id).await?;
    let mut said = crate::vocab::text::fold(title);
    let mut visited = String::new();
    let mut days = std::collections::BTreeSet::new();
    for m in &messages {
        if let Some(day) = m.created_at.get(..10) {
            days.insert(day.to_owned());
        }
        if matches!(m.role, Role::User | Role::Assistant)
            && let Some(text) = &m.content
        {
            said.push('\n');
            said.push_str(&crate::vocab::text::fold(text));
        }
        if let Some(calls) = &m.tool_calls {
            visited.push_str(&crate::vocab::text::fold(&calls.to_string()));
        }
    }
    Ok(terms.iter().all(|term| match term {
        Term::Word(w) => said.contains(w.as_str()),
        Term::Site(s) => visited.contains(s.as_str()) || said.contains(s.as_str()),
        Term::Day(d) => days.contains(d),
    }))
}

pub async fn conversation(store: &Store, id: &str) -> Result<Reply> {
    let found =
        store.conversations().get(id).await?.ok_or_else(|| Error::not_found(format!("no conversation `{id}`")))?;
    let messages = store
        .messages()
        .for_conversation(id)
        .await?
        .into_iter()
        .filter(|m| m.role != Role::System)
        .map(|m| ChatMessage {
            role: m.role,
            content: m.content,
            run_id: m.run_id,
            tool_name: m.tool_name,
            created_at: m.created_at,
        })
        .collect();
    Ok(Reply::Conversation { id: found.id, title: found.title, messages })
}

pub async fn timeline(store: &Store, run_id: &str) -> Result<Reply> {
    let Some(run) = store.runs().get(run_id).await? else {
        return Err(Error::not_found(format!("no run `{run_id}`")));
    };
    // The results as the model got them (the tool messages), read back.
    let mut results = std::collections::HashMap::new();
    if let Some(conversation) = &run.conversation_id {
        for m in store.messages().for_conversation(conversation).await? {
            if m.role == Role::Tool
                && m.run_id.as_deref() == Some(run_id)
                && let (Some(call), Some(content)) = (m.tool_call_id, m.content.as_deref())
                && let Some(data) = shown_result(content)
            {
                results.insert(call, data);
            }
        }
    }
    let calls = store
        .tool_calls()
        .for_run(run_id)
        .await?
        .into_iter()
        .map(|c| TimelineCall {
            result: results.remove(&c.call_id),
            call_id: c.call_id,
            tool: c.tool,
            arguments: c.arguments,
            reasoning: c.reasoning,
            status: c.status,
            error_code: c.error_code,
            duration_ms: c.duration_ms,
            started_at: c.started_at,
        })
        .collect();
    Ok(Reply::Timeline { calls })
}

/// The most of a stored result a step shows, in characters of JSON.
const RESULT_SHOWN: usize = 16_000;

/// A stored tool message as the step shows it: the `data` of the result
/// the message carried, fence removed; its first characters as text when
/// large; none when the message holds no result with data.
fn shown_result(content: &str) -> Option<serde_json::Value> {
    let result: serde_json::Value = serde_json::from_str(crate::gate::fence::unfenced(content)).ok()?;
    let data = result.get("data").filter(|d| !d.is_null())?.clone();
    let text = data.to_string();
    if text.chars().count() <= RESULT_SHOWN {
        return Some(data);
    }
    let head: String = text.chars().take(RESULT_SHOWN - 1).collect();
    Some(serde_json::Value::String(format!("{head}…")))
}

/// The connected OAuth accounts, as the panel shows them.
pub async fn accounts(core: &Core) -> Result<Reply> {
    let accounts = core
        .oauth()
        .list()
        .await?
        .into_iter()
        .map(|a| AccountView {
            name: a.name,
            provider: a.provider,
            account: a.account,
            status: a.status,
            scopes_granted: a.scopes_granted.0,
        })
        .collect();
    Ok(Reply::Accounts { accounts })
}

/// The panel's connect form as a request (blank fields absent).
pub fn connect_request(
    provider: &str,
    issuer: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    scopes: Vec<String>,
) -> Result<ConnectRequest> {
    ConnectRequest::new(provider, issuer, ClientConfig::from_parts(client_id, client_secret)?, scopes, CALLBACK_TIMEOUT)
}

pub async fn rules(store: &Store) -> Result<Reply> {
    Ok(Reply::Rules { rules: store.gate_rules().list().await? })
}

/// The rule `AddRule` describes, checked before anything is written (the
/// CLI checks it before it opens the data directory). The site comes back
/// normalized, as the rule will be stored.
pub fn new_rule(
    site: Option<String>,
    tool: Option<String>,
    min_scope: Option<PermissionScope>,
    decision: RuleDecision,
    note: String,
) -> Result<NewGateRule> {
    let blank = |v: Option<String>| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    let (site, tool) = (blank(site), blank(tool));
    if site.is_none() && tool.is_none() {
        return Err(Error::invalid_arguments(
            "a rule needs a site, a tool or both (--site ORIGIN, --tool NAME or both)",
        ));
    }
    let site = site.map(|s| SitePattern::parse(&s).map(|p| p.to_string())).transpose()?;
    Ok(NewGateRule { site, tool, min_scope, decision, note })
}

/// A file inside `root` (a `file://` ref or a path), as base64 with its
/// type; anything outside the data directory is refused.
pub async fn read_artifact(root: &Path, reference: &str) -> Result<Reply> {
    let path = artifact_path(reference)?;
    let outside = || Error::invalid_arguments(format!("`{reference}` is not a file inside Halley's data directory"));
    let root = tokio::fs::canonicalize(root).await.map_err(|_| outside())?;
    let path = match tokio::fs::canonicalize(&path).await {
        Ok(p) => p,
        // Say "not found" only about paths inside the data directory.
        Err(_) if path.starts_with(&root) => {
            return Err(Error::new(ErrorCode::FileNotFound, format!("no file at {}", path.display())));
        }
        Err(_) => return Err(outside()),
    };
    if !path.starts_with(&root) {
        return Err(outside());
    }
    let meta = tokio::fs::metadata(&path).await.map_err(|_| outside())?;
    if !meta.is_file() {
        return Err(outside());
    }
    if meta.len() > MAX_ARTIFACT_BYTES {
        return Err(Error::invalid_arguments(format!(
            "{} is larger than {} MB",
            path.display(),
            MAX_ARTIFACT_BYTES / 1024 / 1024
        )));
    }
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot read {}", path.display())).with_source(e))?;
    Ok(Reply::Artifact {
        mime: mime_of(&path).to_owned(),
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

fn artifact_path(reference: &str) -> Result<PathBuf> {
    let bad = || Error::invalid_arguments(format!("`{reference}` is not a file:// ref or an absolute path"));
    let reference = reference.trim();
    if reference.starts_with("file:") {
        let url = url::Url::parse(reference).map_err(|_| bad())?;
        return url.to_file_path().map_err(|()| bad());
    }
    let path = PathBuf::from(reference);
    if reference.contains("://") || !path.is_absolute() {
        return Err(bad());
    }
    Ok(path)
}

/// The media type, from the extension.
fn mime_of(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        "txt" | "log" => "text/plain",
        "md" => "text/markdown",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

/// An attached server's tools with its own descriptions of them and the
/// lines Halley flagged there (read again from what is stored, each time).
pub(super) fn described(row: &crate::store::mcp_servers::McpServerRow) -> Vec<crate::protocol::ForeignToolView> {
    row.tools
        .iter()
        .map(|t| crate::gate::foreign::view(format!("{}__{}", row.name, t.name), &t.description, &t.input_schema))
        .collect()
}

/// The attached MCP servers as the panel shows them.
pub async fn mcp_servers(core: &Core) -> Result<Reply> {
    use crate::store::mcp_servers::McpTransport;
    let mut servers = Vec::new();
    for row in core.store().mcp_servers().list().await? {
        let (transport, target, header_names) = match &row.transport {
            McpTransport::Stdio { command, args } => {
                ("stdio", std::iter::once(command).chain(args).cloned().collect::<Vec<_>>().join(" "), Vec::new())
            }
            McpTransport::Http { url, headers } => ("http", url.clone(), headers.keys().cloned().collect()),
        };
        servers.push(crate::protocol::McpServerView {
            described: described(&row),
            running: core.mcp_server_running(&row.name).await,
            tools: row.tools.iter().map(|t| format!("{}__{}", row.name, t.name)).collect(),
            name: row.name,
            transport: transport.to_owned(),
            target,
            header_names,
        });
    }
    Ok(Reply::McpServers { servers })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_reads_days_sites_and_words() {
        assert_eq!(
            search_terms("Laptop  “GIÁ” tiki.vn https://GearVN.com/ 2026-11-27 27/11/2026 3.5 127.0.0.1"),
            [
                Term::Word("laptop".into()),
                Term::Word("gia".into()),
                Term::Site("tiki.vn".into()),
                Term::Site("gearvn.com".into()),
                Term::Day("2026-11-27".into()),
                Term::Day("2026-11-27".into()),
                Term::Word("3.5".into()),
                Term::Site("127.0.0.1".into()),
            ]
        );
        assert_eq!(search_terms("  , "), []);
    }

    #[test]
    fn a_stored_result_shows_its_data_without_the_fence() {
        let result = r#"{"status":"ok","trace_id":"t","data":{"url":"https://tiki.vn/a","title":"Tiki"}}"#;
        let fenced = crate::gate::fence::fence(result, "browser_navigate", "n0nce", &[]);
        for message in [result, fenced.as_str()] {
            let shown = shown_result(message).unwrap();
            assert_eq!(shown, serde_json::json!({"url": "https://tiki.vn/a", "title": "Tiki"}));
            assert!(!shown.to_string().contains("PAGE_DATA") && !shown.to_string().contains("trace_id"));
        }
        assert_eq!(shown_result(r#"{"status":"error","data":null}"#), None);
        assert_eq!(shown_result("not json"), None);
        let big = format!(r#"{{"status":"ok","data":{{"text":"{}"}}}}"#, "á".repeat(20_000));
        let Some(serde_json::Value::String(cut)) = shown_result(&big) else { panic!("cut to text") };
        assert_eq!(cut.chars().count(), RESULT_SHOWN);
        assert!(cut.ends_with('…'));
    }

    #[tokio::test]
    async fn only_files_inside_the_data_directory_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let shot = dir.path().join("shots").join("a.png");
        std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
        std::fs::write(&shot, b"\x89PNG").unwrap();
        let url = url::Url::from_file_path(&shot).unwrap().to_string();
        let Reply::Artifact { mime, data } = read_artifact(dir.path(), &url).await.unwrap() else { panic!() };
        assert_eq!((mime.as_str(), data.as_str()), ("image/png", "iVBORw=="));
        for bad in ["/etc/passwd", "file:///etc/passwd", "https://x.vn/a.png", "shots/a.png"] {
            let err = read_artifact(dir.path(), bad).await.unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidArguments, "{bad}");
        }
        let sneaky = format!("{}/shots/../../../etc/passwd", dir.path().display());
        assert_eq!(read_artifact(dir.path(), &sneaky).await.unwrap_err().code(), ErrorCode::InvalidArguments);
    }

    #[test]
    fn rules_are_checked_before_they_are_written() {
        let none = String::new;
        let err = |r: Result<NewGateRule>| r.unwrap_err().code();
        assert_eq!(err(new_rule(None, None, None, RuleDecision::Allow, none())), ErrorCode::InvalidArguments);
        assert_eq!(err(new_rule(None, Some(" ".into()), None, RuleDecision::Ask, none())), ErrorCode::InvalidArguments);
        let not_a_site = new_rule(Some("not a site".into()), None, None, RuleDecision::Ask, none());
        assert_eq!(err(not_a_site), ErrorCode::InvalidArguments);
        let rule = new_rule(Some("https://Shop.vn/cart".into()), None, None, RuleDecision::Never, none()).unwrap();
        assert_eq!((rule.decision, rule.site.as_deref()), (RuleDecision::Never, Some("https://shop.vn")));
    }
}
