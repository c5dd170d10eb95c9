//! The travel skills (tools.md 4A): `travel_search_options`,
//! `travel_plan_itinerary`, `travel_fill_forms`. Each is a program over
//! the primitives, every step through [`Skill::call`]; the model is asked
//! only for the itinerary's days ([`Skill::write`]).

pub mod forms;
pub mod itinerary;
pub mod offers;
pub mod search;
#[cfg(test)]
mod tests;

use chrono::NaiveDate;
use serde_json::{Value, json};

use super::Skill;
use crate::builtin::profile::UserProfileGetOutput;
use crate::error::{Error, ErrorCode, Result};
use crate::tools::ToolResultV2;

/// `YYYY-MM-DD` → a date; `what` names the argument in the error.
pub fn date(text: &str, what: &str) -> Result<NaiveDate> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .map_err(|_| Error::invalid_arguments(format!("`{what}` must be a date as YYYY-MM-DD, not {text:?}")))
}

/// The profile's values under `keys` (all of it when empty); sensitive ones
/// are placeholders (`{{profile.KEY}}`). A failed read is a note.
pub async fn profile(skill: &Skill<'_>, keys: &[String]) -> UserProfileGetOutput {
    let args = if keys.is_empty() { json!({}) } else { json!({"keys": keys}) };
    match skill.data::<UserProfileGetOutput>("user_profile_get", args).await {
        Ok(out) => out,
        Err(e) => {
            skill.note(format!("the profile could not be read: {}", e.message()));
            UserProfileGetOutput { values: Default::default(), missing: Vec::new(), masked: Vec::new() }
        }
    }
}

/// Whether a step was refused by the user (or the policy).
pub fn denied(result: &ToolResultV2) -> bool {
    result.error.as_ref().is_some_and(|e| e.code == ErrorCode::Denied)
}

/// A step's error message, for a note.
pub fn failure(result: &ToolResultV2) -> String {
    result.error.as_ref().map_or_else(String::new, |e| format!("{}: {}", e.code.as_str(), e.message))
}

/// `12450000` → `12.450.000 ₫`.
pub fn vnd(amount: u64) -> String {
    crate::watch::format::money(amount as f64, Some("VND"))
}

/// A string value of a JSON object.
pub fn text<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}
