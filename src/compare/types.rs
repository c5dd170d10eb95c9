//! The public, serialisable shapes of `normalize_compare`: its arguments,
//! its output and their parts.

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

/// Sort direction of a ranking key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SortOrder {
    /// Lower is better (costs, delivery time).
    Asc,
    /// Higher is better (warranty, return window, rating).
    Desc,
}

/// One ranking key.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RankKey {
    /// A schema field name.
    pub field: String,
    /// Direction; omit to use the field's default (costs ascending, benefits
    /// descending). Required for fields of unknown meaning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<SortOrder>,
}

/// Arguments of `normalize_compare`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NormalizeCompareArgs {
    /// Target field → type, e.g. `{"total_cost": "number", "warranty_months": "number"}`.
    /// A name's last word may carry a unit: `warranty_months`, `return_days`, `price_vnd`.
    pub schema: BTreeMap<String, FieldType>,
    /// The items to normalise and compare.
    #[schemars(length(min = 1))]
    pub items: Vec<RawItem>,
    /// Ranking keys, most important first. Omit for the default order (costs,
    /// then benefits); an empty list turns ranking off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_by: Option<Vec<RankKey>>,
    /// Currency to compare money in (ISO code or symbol: `VND`, `₫`, `USD`).
    /// Default: a currency suffix in the schema (`price_vnd`), else the most
    /// common currency among the items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// Exchange rates into `currency` (required with it): units of `currency`
    /// per one unit of the key, e.g. `{"USD": 25400}` with `currency: "VND"`.
    /// Without a rate, items in other currencies are not converted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fx: Option<BTreeMap<String, f64>>,
}

/// `data` of a successful `normalize_compare`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct NormalizeCompareOutput {
    /// One entry per input item, in input order.
    pub items: Vec<NormalizedItem>,
    /// Ranked items, best first.
    pub ranking: Vec<RankedItem>,
    /// Items left out of the ranking (money in a currency that could not be converted).
    pub unranked: Vec<UnrankedItem>,
    /// Source of the best item; null when nothing could be ranked.
    pub best: Option<String>,
    /// The ranking keys actually used, with their directions.
    pub rank_by: Vec<RankKey>,
    /// The currency money fields are compared in (null when none is stated).
    pub currency: Option<String>,
    /// Warnings about the whole comparison (mixed currencies, nothing to rank).
    pub warnings: Vec<String>,
}

/// One item mapped onto the schema.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct NormalizedItem {
    pub source: String,
    /// Every schema field; null when it could not be derived.
    pub normalized: BTreeMap<String, Value>,
    /// Schema fields that could not be derived.
    pub missing_fields: Vec<String>,
    /// Schema field → the raw field(s) it came from (`"price + ship"`).
    pub mapped_from: BTreeMap<String, String>,
    /// ISO currency of this item's money fields (after any `fx` conversion).
    pub currency: Option<String>,
    /// What could not be read or was assumed.
    pub warnings: Vec<String>,
}

/// A ranked item.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct RankedItem {
    /// 1 = best. Ties are broken by input order.
    pub rank: usize,
    pub source: String,
    /// Index of the item in the input `items`.
    pub item: usize,
    /// Why it sits above the next item (or its values, for the last one).
    pub reason: String,
}

/// An item left out of the ranking.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct UnrankedItem {
    pub source: String,
    /// Index of the item in the input `items`.
    pub item: usize,
    pub reason: String,
}
