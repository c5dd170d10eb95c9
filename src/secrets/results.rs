//! Sensitive client-tool results: values a client application marked
//! `sensitive` when it answered a call (`POST /api/v1/tool_results` with
//! `"sensitive": true`). Every scalar leaf of such a result (strings,
//! numbers) is replaced by a placeholder, `{{secret.<tool_call_id>.<path>}}`,
//! before the result goes anywhere (the model, the database, traces, the
//! timeline); the values stay here, in the core's memory only, never
//! written. `browser_type` fills them in like `{{profile.KEY}}`, after the
//! gate (see [`crate::gate::secrets`]); every place that masks or looks for
//! the profile's sensitive values knows these too.
//!
//! Kept for the run that got them, until it ends, and at most
//! [`KEPT_FOR`]; at most [`MAX_KEPT`] values and [`MAX_KEPT_BYTES`] in all
//! (the oldest go first). A placeholder whose value is gone, or used by
//! another run than the one that got it, fails with `not_found`.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::secrets::keys::SecretValue;

/// How long a sensitive value is kept after the client gave it.
pub const KEPT_FOR: Duration = Duration::from_secs(3600);
/// The most values one answer may hold (more is refused: 400).
pub const MAX_PER_RESULT: usize = 256;
/// The most values kept at once; past it the oldest are dropped.
pub const MAX_KEPT: usize = 4096;
/// The most bytes of values kept at once; past it the oldest are dropped.
pub const MAX_KEPT_BYTES: usize = 16 * 1024 * 1024;
/// What a placeholder of a sensitive result starts with (inside `{{`).
pub const PREFIX: &str = "secret.";

/// What the model reads beside a sensitive result.
pub const NOTE: &str = "The client marked this result sensitive: each value is a placeholder such as \
{{secret.ID.PATH}}. Use the placeholder as is (browser_type fills in the real value, after the user's rules \
allow it); you never see the value. It is kept in memory for this run only.";

struct Kept {
    /// The placeholder's name, `secret.<call id>[.<path>]`.
    name: String,
    /// What messages call it: `card_number from get_card`.
    label: String,
    value: String,
    run: Option<String>,
    until: Instant,
}

/// The sensitive values given by clients, in memory; one per
/// [`Store`](crate::store::Store), so one per core.
#[derive(Default)]
pub struct SensitiveResults {
    kept: Mutex<VecDeque<Kept>>,
}

impl std::fmt::Debug for SensitiveResults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SensitiveResults").finish_non_exhaustive()
    }
}

/// How many scalar values (strings, numbers) `value` holds: what
/// [`SensitiveResults::hide`] would replace.
pub fn count_values(value: &Value) -> usize {
    match value {
        Value::String(s) => usize::from(!s.is_empty()),
        Value::Number(_) => 1,
        Value::Array(items) => items.iter().map(count_values).sum(),
        Value::Object(map) => map.values().map(count_values).sum(),
        Value::Bool(_) | Value::Null => 0,
    }
}

/// Whether `value` holds at most [`MAX_PER_RESULT`] values; else the error.
pub fn check_size(value: &Value) -> Result<()> {
    let n = count_values(value);
    if n > MAX_PER_RESULT {
        return Err(Error::invalid_arguments(format!(
            "a sensitive result may hold at most {MAX_PER_RESULT} values (strings and numbers); this one holds {n}. \
             Nothing was taken: answer again with fewer values."
        )));
    }
    Ok(())
}

impl SensitiveResults {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Kept>> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        kept.retain(|k| k.until > now);
        kept
    }

    /// Keep every scalar of the result `value` of `tool`'s call `call_id`
    /// (made in `run`) and give back the result with placeholders in their
    /// place. Object keys, booleans, `null` and empty strings stay as they
    /// are. More than [`MAX_PER_RESULT`] values: `invalid_arguments`.
    pub fn hide(&self, call_id: &str, tool: &str, run: Option<&str>, value: Value) -> Result<Value> {
        check_size(&value)?;
        let mut found = Vec::new();
        let hidden = replace(value, &mut Vec::new(), &mut |path, scalar| {
            let mut name = format!("{PREFIX}{call_id}");
            if !path.is_empty() {
                name.push('.');
                name.push_str(&path.join("."));
            }
            // Two keys cleaned to the same segment stay apart.
            let base = name.clone();
            let mut n = 1;
            while found.iter().any(|(taken, _): &(String, String)| *taken == name) {
                n += 1;
                name = format!("{base}_{n}");
            }
            found.push((name.clone(), scalar));
            Value::String(format!("{{{{{name}}}}}"))
        });
        let until = Instant::now() + KEPT_FOR;
        let mut kept = self.lock();
        for (name, value) in found {
            let at = name.strip_prefix(PREFIX).and_then(|n| n.strip_prefix(call_id)).unwrap_or_default();
            let label = match at.strip_prefix('.') {
                Some(path) => format!("{path} from {tool}"),
                None => format!("the result of {tool}"),
            };
            kept.push_back(Kept { name, label, value, run: run.map(str::to_owned), until });
        }
        let mut bytes: usize = kept.iter().map(|k| k.value.len()).sum();
        while kept.len() > MAX_KEPT || bytes > MAX_KEPT_BYTES {
            let Some(old) = kept.pop_front() else { break };
            bytes -= old.value.len();
        }
        Ok(hidden)
    }

    /// Keep the person's own values sealed from their message for `run`
    /// ([`crate::secrets::message`]): each under its placeholder's name.
    /// Kept again (the next turn, the next run of the conversation), a
    /// value is not kept twice.
    pub fn keep_sealed(&self, run: &str, values: &[crate::secrets::message::SealedValue]) {
        let until = Instant::now() + KEPT_FOR;
        let mut kept = self.lock();
        for v in values {
            if let Some(k) = kept.iter_mut().find(|k| k.name == v.name && k.run.as_deref() == Some(run)) {
                k.until = until;
                continue;
            }
            kept.push_back(Kept {
                name: v.name.clone(),
                label: v.label.clone(),
                value: v.value.clone(),
                run: Some(run.to_owned()),
                until,
            });
        }
        let mut bytes: usize = kept.iter().map(|k| k.value.len()).sum();
        while kept.len() > MAX_KEPT || bytes > MAX_KEPT_BYTES {
            let Some(old) = kept.pop_front() else { break };
            bytes -= old.value.len();
        }
    }

    /// The value behind the placeholder `name` (`secret.<call id>.<path>`)
    /// for a call made in `run` (none: a direct call), and its label.
    /// Unknown, expired, dropped with its run, or given to a run other than
    /// `run`: `not_found`. A value given to a direct call serves any call.
    pub fn get(&self, name: &str, run: Option<&str>) -> Result<(String, String)> {
        let kept = self.lock();
        let gone = || {
            Error::not_found(format!(
                "`{{{{{name}}}}}`: this sensitive value is gone or was never given. Values a client marked sensitive \
                 are kept in memory only, for the run that got them and at most {} min: Halley restarted, the run \
                 ended or the time passed. Call the client's tool again for a new placeholder.",
                KEPT_FOR.as_secs() / 60
            ))
        };
        let k = kept.iter().rev().find(|k| k.name == name).ok_or_else(gone)?;
        match (&k.run, run) {
            (Some(owner), asking) if asking != Some(owner.as_str()) => Err(Error::not_found(format!(
                "`{{{{{name}}}}}` belongs to another run; a sensitive value is used only by the run that got it"
            ))),
            _ => Ok((k.value.clone(), k.label.clone())),
        }
    }

    /// Every value kept, as the gate and the maskers see secrets: named by
    /// its label, masked to its placeholder.
    pub fn values(&self) -> Vec<SecretValue> {
        self.lock()
            .iter()
            .map(|k| SecretValue {
                key: k.label.clone(),
                value: k.value.clone(),
                placeholder: format!("{{{{{}}}}}", k.name),
            })
            .collect()
    }

    /// Run `run` ended: its values are dropped.
    pub fn forget_run(&self, run: &str) {
        self.lock().retain(|k| k.run.as_deref() != Some(run));
    }

    /// How many values are kept now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `value` with each scalar replaced by what `with` makes of its path
/// (object keys cleaned to letters, digits, `_` and `-`; array indexes)
/// and its text.
fn replace(value: Value, path: &mut Vec<String>, with: &mut impl FnMut(&[String], String) -> Value) -> Value {
    match value {
        Value::String(s) if s.is_empty() => Value::String(s),
        Value::String(s) => with(path, s),
        Value::Number(n) => with(path, n.to_string()),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    path.push(i.to_string());
                    let out = replace(v, path, with);
                    path.pop();
                    out
                })
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    path.push(segment(&k));
                    let out = replace(v, path, with);
                    path.pop();
                    (k, out)
                })
                .collect(),
        ),
        other => other,
    }
}

/// An object key as a path segment: letters (any script), digits, `_`
/// and `-` kept, anything else `_`; an empty key `_`.
fn segment(key: &str) -> String {
    let cleaned: String = key.chars().map(|c| if c.is_alphanumeric() || c == '-' { c } else { '_' }).collect();
    if cleaned.is_empty() { "_".to_owned() } else { cleaned }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_scalar_becomes_a_placeholder_and_is_kept() {
        let kept = SensitiveResults::default();
        let given =
            json!({"card": {"number": "4111 2222", "cvv": 123}, "tags": ["a b", ""], "ok": true, "số thẻ": "x"});
        let hidden = kept.hide("call-1", "get_card", Some("run-1"), given).unwrap();
        assert_eq!(
            hidden,
            json!({
                "card": {"number": "{{secret.call-1.card.number}}", "cvv": "{{secret.call-1.card.cvv}}"},
                "tags": ["{{secret.call-1.tags.0}}", ""],
                "ok": true,
                "số thẻ": "{{secret.call-1.số_thẻ}}",
            })
        );
        assert_eq!(kept.len(), 4);
        let (value, label) = kept.get("secret.call-1.card.number", Some("run-1")).unwrap();
        assert_eq!((value.as_str(), label.as_str()), ("4111 2222", "card.number from get_card"));
        assert_eq!(kept.get("secret.call-1.card.cvv", Some("run-1")).unwrap().0, "123");
        let masked = crate::gate::secrets::mask("typed 4111 2222", &kept.values());
        assert_eq!(masked, "typed {{secret.call-1.card.number}}");

        // A bare value, and keys that clean to the same segment.
        let hidden = kept.hide("call-2", "pin", None, json!("98765")).unwrap();
        assert_eq!(hidden, json!("{{secret.call-2}}"));
        assert_eq!(kept.get("secret.call-2", Some("any run")).unwrap().1, "the result of pin");
        let hidden = kept.hide("call-3", "t", None, json!({"a.b": "v1111", "a_b": "v2222"})).unwrap();
        assert_eq!(hidden, json!({"a.b": "{{secret.call-3.a_b}}", "a_b": "{{secret.call-3.a_b_2}}"}));
    }

    #[test]
    fn values_go_with_their_run_and_unknown_ones_fail_clearly() {
        let kept = SensitiveResults::default();
        kept.hide("call-1", "get_card", Some("run-1"), json!({"n": "4111 2222"})).unwrap();
        let other = kept.get("secret.call-1.n", Some("run-2")).unwrap_err();
        assert_eq!(other.code(), crate::error::ErrorCode::NotFound);
        assert!(other.message().contains("another run"), "{}", other.message());
        assert!(kept.get("secret.call-1.n", None).is_err(), "nor by a direct call");
        kept.forget_run("run-1");
        let gone = kept.get("secret.call-1.n", Some("run-1")).unwrap_err();
        assert_eq!(gone.code(), crate::error::ErrorCode::NotFound);
        assert!(gone.message().contains("gone"), "{}", gone.message());
        assert!(kept.is_empty());
    }

    #[test]
    fn the_store_is_bounded() {
        let kept = SensitiveResults::default();
        let many: Vec<Value> = (0..=MAX_PER_RESULT).map(|i| json!(i)).collect();
        let err = kept.hide("call-0", "t", None, Value::Array(many)).unwrap_err();
        assert!(err.message().contains("at most 256"), "{}", err.message());
        assert!(kept.is_empty(), "nothing of a refused result is kept");
        for i in 0..=(MAX_KEPT / MAX_PER_RESULT) {
            let batch: Vec<Value> = (0..MAX_PER_RESULT).map(|j| json!(format!("v{i}-{j}"))).collect();
            kept.hide(&format!("call-{i}"), "t", None, Value::Array(batch)).unwrap();
        }
        assert_eq!(kept.len(), MAX_KEPT);
        assert!(kept.get("secret.call-0.0", None).is_err(), "the oldest went first");
        assert!(kept.get(&format!("secret.call-{}.0", MAX_KEPT / MAX_PER_RESULT), None).is_ok());

        // Bytes too: a few large values push the oldest out.
        let big = "x".repeat(MAX_KEPT_BYTES / 4);
        for i in 0..5 {
            kept.hide(&format!("big-{i}"), "t", None, json!(format!("{i}{big}"))).unwrap();
        }
        assert!(kept.get("secret.big-0", None).is_err() && kept.get("secret.big-4", None).is_ok());
        assert!(kept.values().iter().map(|v| v.value.len()).sum::<usize>() <= MAX_KEPT_BYTES);
    }
}
