//! `normalize_compare`: maps raw offer fields onto a target schema
//! (synonyms, units, currencies, number formats), reports missing fields and
//! ranks the items. Pure and deterministic.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The type a target field is normalised to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    Number,
    Integer,
    String,
    Boolean,
}

/// One offer as scraped: where it came from and its raw fields.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawItem {
    /// Where the item comes from (store name or URL).
    pub source: String,
    /// The raw fields, any names and formats (`{"price": "21.490.000 ₫", "warranty": "12m"}`).
    pub raw: Map<String, Value>,
}

/// Arguments of `normalize_compare`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NormalizeCompareArgs {
    /// Target field → type, e.g. `{"total_cost": "number", "warranty_months": "number"}`.
    pub schema: BTreeMap<String, FieldType>,
    /// The items to normalise and compare.
    #[schemars(length(min = 1))]
    pub items: Vec<RawItem>,
}

/// `data` of a successful `normalize_compare` (filled in by the implementation).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct NormalizeCompareOutput {
    pub items: Vec<Value>,
}
