//! Argument and output pieces shared by several catalogue entries: how an
//! element is targeted, money, watch frequencies and a skill's status.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Pattern of a check frequency: a positive number of minutes, hours or days.
pub const FREQUENCY_PATTERN: &str = r"^[1-9][0-9]*(m|h|d)$";

/// How an element on the page is found. Flattened into the arguments of the
/// element tools, so the model writes `{"selector": "button#search"}` or
/// `{"ref": "e12"}` directly.
///
/// Tools that act on an element (click, type, check, select, upload) need
/// `selector` or `ref`; JSON Schema cannot say "at least one of" without a
/// top-level `anyOf` (refused by OpenAI-style function calling), so the
/// executor enforces it with [`Target::require`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Target {
    /// Which element: a CSS selector (`button#search`, `input[name='destination']`),
    /// a text selector (`text=Submit`, matched case-insensitively) or a role
    /// selector (`role=button[name="Thêm vào giỏ"]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// An element reference from the latest page snapshot (e.g. `e12`);
    /// preferred over `selector` when both are given.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// CSS selector of the iframe that contains the element; omit for the
    /// top-level page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
}

impl Target {
    /// True when neither `selector` nor `ref` is given (the whole page).
    pub fn is_page(&self) -> bool {
        self.selector.is_none() && self.element_ref.is_none()
    }

    /// The "at least one of `selector`/`ref`" rule of the element tools,
    /// as an `invalid_arguments` error naming the tool.
    pub fn require(&self, tool: &str) -> Result<()> {
        if self.is_page() {
            return Err(Error::invalid_arguments(format!(
                "{tool}: give `selector` (CSS, `text=...` or `role=...`) or `ref` from the page snapshot"
            )));
        }
        Ok(())
    }
}

/// An amount of money in a currency.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Money {
    /// The amount in the currency's main unit (VND has no minor unit: `12500000`).
    pub amount: f64,
    /// ISO 4217 code, e.g. `VND`, `USD`, `JPY`.
    #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
    pub currency: String,
}

/// How a skill run ended: `ok`; `partial` (finished with gaps: sources
/// failed, fields missing); `needs_confirmation` (stopped before a
/// SUBMIT/PUBLISH/PAYMENT step); `needs_user` (a challenge, login or
/// missing input); `failed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SkillStatus {
    // No doc comments on the variants: they would turn the schema's `enum`
    // into a `oneOf` of `const`s.
    Ok,
    Partial,
    NeedsConfirmation,
    NeedsUser,
    Failed,
}

/// Default wait for page operations, in milliseconds.
pub fn default_timeout_ms() -> u32 {
    30_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_requires_selector_or_ref() {
        let empty = Target::default();
        assert!(empty.require("browser_click").is_err());
        let by_ref = Target { element_ref: Some("e1".into()), ..Target::default() };
        assert!(by_ref.require("browser_click").is_ok());
        let frame_only = Target { frame: Some("iframe#pay".into()), ..Target::default() };
        assert!(frame_only.require("browser_click").is_err());
    }
}
