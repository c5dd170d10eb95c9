//! Provider traces: each model call's request and raw response written to the
//! store with every secret (the API key, sensitive profile values) redacted,
//! in every spelling a secret takes once inside JSON.

use std::borrow::Cow;
use std::fmt;

use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::{Value, json};

use super::client::{ModelClient, raw_response_of};
use super::provider::ModelConfig;
use super::raw::{MAX_RAW_BYTES, RawResponse};
use super::stream::{Completion, clip};
use crate::error::Result;
use crate::store::Store;
use crate::store::provider_traces::NewProviderTrace;

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";
/// Secrets shorter than this many characters are left alone: they cannot be
/// told from ordinary text (the same rule as the gate's placeholders).
pub const MIN_SECRET_CHARS: usize = 4;
/// The largest request body stored whole; a larger one is stored as a JSON
/// object holding its first bytes as text.
pub const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// `text` with every occurrence of each secret replaced by [`REDACTED`]:
/// as is, JSON-escaped (once, and twice for JSON inside a JSON string, such
/// as tool-call arguments in a stream), with `\uXXXX` escapes for non-ASCII
/// (Python's `ensure_ascii`) and for `<>&` (Go). Secrets shorter than
/// [`MIN_SECRET_CHARS`] are ignored.
pub fn redact(text: &str, secrets: &[String]) -> String {
    Redactor::new(secrets).text(text).into_owned()
}

/// A JSON value with every secret redacted in its strings, its object keys
/// and its numbers (a number holding a secret becomes a string). The result
/// is still valid JSON.
pub fn redact_json(value: &Value, secrets: &[String]) -> Value {
    Redactor::new(secrets).json(value)
}

/// The secrets to redact from a run's traces: the sensitive values of the
/// user's profile and the model's API key.
pub async fn secrets_for(store: &Store, config: &ModelConfig) -> Result<Vec<String>> {
    let mut secrets: Vec<String> =
        crate::gate::secrets::secret_values(store).await?.into_iter().map(|s| s.value).collect();
    secrets.extend(config.api_key.clone());
    Ok(secrets)
}

/// One model call to record. `Debug` shows no content.
#[derive(Clone, Copy)]
pub struct Trace<'a> {
    pub run_id: &'a str,
    pub step_id: Option<&'a str>,
    /// The URL called (credentials in it are dropped).
    pub endpoint: &'a str,
    /// The body sent (never the headers: the `Authorization` header is not
    /// part of a trace).
    pub request: &'a Value,
    /// The response as received; `None` when nothing came.
    pub response: Option<&'a str>,
    pub status: Option<u16>,
    pub error: Option<&'a str>,
}

impl fmt::Debug for Trace<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("run_id", &self.run_id)
            .field("step_id", &self.step_id)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

/// Write one trace, every field redacted first (see [`redact`]); the
/// response is capped like [`RawResponse`]. Returns the row id.
pub async fn record(store: &Store, trace: &Trace<'_>, secrets: &[String]) -> Result<i64> {
    let redactor = Redactor::new(secrets);
    let response = trace.response.map(|text| {
        let text = redactor.text(text);
        if text.len() <= MAX_RAW_BYTES + 200 {
            return text.into_owned();
        }
        let mut capped = RawResponse::default();
        capped.push(&text);
        capped.text()
    });
    let new = NewProviderTrace {
        run_id: trace.run_id.to_owned(),
        step_id: trace.step_id.map(str::to_owned),
        endpoint: redactor.text(&without_credentials(trace.endpoint)).into_owned(),
        request: capped_request(redactor.json(trace.request)),
        response,
        status: trace.status,
        error: trace.error.map(|e| redactor.text(e).into_owned()),
    };
    Ok(store.provider_traces().insert(&new).await?.id)
}

/// Record a [`ModelClient::stream_chat`] call from its outcome: the body as
/// the client sent it, the raw response (or what had arrived before an
/// error), the HTTP status and the error message. The client's API key is
/// always among the secrets redacted.
pub async fn record_call(
    store: &Store,
    run_id: &str,
    step_id: Option<&str>,
    client: &ModelClient,
    request: &Value,
    outcome: &Result<Completion>,
    secrets: &[String],
) -> Result<i64> {
    let config = client.config();
    let mut secrets = secrets.to_vec();
    secrets.extend(config.api_key.clone());
    let (endpoint, body) = client.sent(request);
    let (response, status, error) = match outcome {
        Ok(completion) => (Some(response_text(completion, &secrets)), completion.raw.status, None),
        Err(e) => {
            let raw = raw_response_of(e);
            let text = raw.filter(|r| !r.is_empty()).map(RawResponse::text);
            (text, raw.and_then(|r| r.status), Some(e.to_wire().message))
        }
    };
    let trace = Trace {
        run_id,
        step_id,
        endpoint: &endpoint,
        request: &body,
        response: response.as_deref(),
        status,
        error: error.as_deref(),
    };
    record(store, &trace, &secrets).await
}

/// The raw response of a completion, unless the assembled answer carries a
/// secret: then it may be split over several stream events, out of reach of
/// redaction, and the assembled answer is kept instead (redacted by `record`).
fn response_text(completion: &Completion, secrets: &[String]) -> String {
    let redactor = Redactor::new(secrets);
    let leaks =
        redactor.finds(&completion.content) || completion.tool_calls.iter().any(|c| redactor.finds(&c.arguments));
    if !leaks {
        return completion.raw.text();
    }
    let answer = json!({
        "content": completion.content,
        "tool_calls": completion.tool_calls,
        "finish_reason": completion.finish_reason,
        "model": completion.model,
    });
    format!(
        "[halley: the raw stream is not kept because the answer holds a secret that may be split across \
         events; the assembled answer follows]\n{answer}"
    )
}

/// The URL without `user:password@`.
fn without_credentials(endpoint: &str) -> String {
    match url::Url::parse(endpoint) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.to_string()
        }
        _ => endpoint.to_owned(),
    }
}

/// The request, or a note with its first [`MAX_REQUEST_BYTES`] when larger.
fn capped_request(request: Value) -> Value {
    let text = request.to_string();
    if text.len() <= MAX_REQUEST_BYTES {
        return request;
    }
    json!({
        "halley_note": format!("request cut: {} bytes, the first {} MB are in `head`", text.len(), MAX_REQUEST_BYTES / (1024 * 1024)),
        "bytes": text.len(),
        "head": clip(&text, MAX_REQUEST_BYTES),
    })
}

/// Finds every spelling of every secret in one pass.
struct Redactor {
    finder: Option<AhoCorasick>,
    /// The spellings, longest first (used if the automaton cannot be built).
    forms: Vec<String>,
}

impl Redactor {
    fn new(secrets: &[String]) -> Redactor {
        let mut forms: Vec<String> = Vec::new();
        for secret in secrets {
            for value in [secret.as_str(), secret.trim()] {
                if value.chars().count() < MIN_SECRET_CHARS {
                    continue;
                }
                for form in spellings(value) {
                    if !forms.contains(&form) {
                        forms.push(form);
                    }
                }
            }
        }
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        let finder = if forms.is_empty() {
            None
        } else {
            AhoCorasick::builder().match_kind(MatchKind::LeftmostLongest).build(&forms).ok()
        };
        Redactor { finder, forms }
    }

    fn finds(&self, text: &str) -> bool {
        match &self.finder {
            Some(finder) => finder.is_match(text),
            None => self.forms.iter().any(|f| text.contains(f.as_str())),
        }
    }

    fn text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if !self.finds(text) {
            return Cow::Borrowed(text);
        }
        match &self.finder {
            Some(finder) => {
                let mut out = String::with_capacity(text.len());
                finder.replace_all_with(text, &mut out, |_, _, dst| {
                    dst.push_str(REDACTED);
                    true
                });
                Cow::Owned(out)
            }
            None => {
                let mut out = text.to_owned();
                for form in &self.forms {
                    out = out.replace(form.as_str(), REDACTED);
                }
                Cow::Owned(out)
            }
        }
    }

    fn json(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s).into_owned()),
            Value::Number(n) => match self.text(&n.to_string()) {
                Cow::Owned(redacted) => Value::String(redacted),
                Cow::Borrowed(_) => value.clone(),
            },
            Value::Array(items) => Value::Array(items.iter().map(|v| self.json(v)).collect()),
            Value::Object(map) => map.iter().map(|(k, v)| (self.text(k).into_owned(), self.json(v))).collect(),
            Value::Null | Value::Bool(_) => value.clone(),
        }
    }
}

/// How JSON encoders write a string's characters.
#[derive(Clone, Copy)]
enum Escaping {
    /// serde_json, and most: only `"`, `\` and control characters.
    Minimal,
    /// Go's encoding/json (Ollama): also `<`, `>`, `&`, U+2028 and U+2029.
    Go,
    /// Python's `ensure_ascii` (vLLM...): every non-ASCII character, lowercase hex.
    AsciiLower,
    /// The same with uppercase hex.
    AsciiUpper,
}

/// A secret as it reads as is, inside a JSON string, and inside a JSON
/// string that is itself inside a JSON string.
fn spellings(secret: &str) -> Vec<String> {
    let modes = [Escaping::Minimal, Escaping::Go, Escaping::AsciiLower, Escaping::AsciiUpper];
    let mut all = vec![secret.to_owned()];
    let mut level = vec![secret.to_owned()];
    for _ in 0..2 {
        let mut next: Vec<String> = Vec::new();
        for text in &level {
            for mode in modes {
                let escaped = escape(text, mode);
                if !next.contains(&escaped) {
                    next.push(escaped);
                }
            }
        }
        for form in &next {
            if !all.contains(form) {
                all.push(form.clone());
            }
        }
        level = next;
    }
    all
}

/// The inside of a JSON string literal for `text`.
fn escape(text: &str, mode: Escaping) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let unicode = |out: &mut String, c: char| {
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            match mode {
                Escaping::AsciiUpper => out.push_str(&format!("\\u{unit:04X}")),
                _ => out.push_str(&format!("\\u{unit:04x}")),
            }
        }
    };
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => unicode(&mut out, c),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' if matches!(mode, Escaping::Go) => unicode(&mut out, c),
            c if !c.is_ascii() && matches!(mode, Escaping::AsciiLower | Escaping::AsciiUpper) => unicode(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[path = "trace_tests.rs"]
mod tests;
