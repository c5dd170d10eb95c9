//! Argument and output types of `user_profile_get` / `user_profile_set`
//! (executors in `crate::builtin::profile`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Arguments of `user_profile_get`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UserProfileGetArgs {
    /// Dotted keys to read (e.g. `travel.preferred_airlines`). A key that is a
    /// prefix (`travel`) returns every key below it. Omit to read the whole profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
}

/// `data` of a successful `user_profile_get`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct UserProfileGetOutput {
    /// The values found, by full dotted key.
    pub values: BTreeMap<String, Value>,
    /// Requested keys with no value (and no key below them).
    pub missing: Vec<String>,
    /// Keys whose values are sensitive, by the key (passport, ID, card,
    /// account, password, token, phone, email, address...) or by the value
    /// under any key (a card or ID number, an IBAN, a phone number, an
    /// email, a postal address): their value is shown only as a placeholder
    /// such as `{{profile.travel.passport_no}}`, which `browser_type` fills
    /// in (after asking the user).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<String>,
}

/// Arguments of `user_profile_set`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UserProfileSetArgs {
    /// Dotted key → JSON value, e.g. `{"shopping.budget_vnd": 25000000}`.
    pub set: BTreeMap<String, Value>,
    /// Dotted keys to remove.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unset: Vec<String>,
}

/// `data` of a successful `user_profile_set`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct UserProfileSetOutput {
    /// Keys written, sorted.
    pub updated: Vec<String>,
    /// Keys removed (that existed), sorted.
    pub removed: Vec<String>,
}
