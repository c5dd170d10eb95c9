//! [`PageFacts`]: what the page runtime hands to extraction (JSON-LD,
//! microdata, meta tags, label→value pairs, price fragments, visible text).
//! Deserialisation is lenient: a field of the wrong JSON type becomes its
//! default, a malformed list entry is dropped, unknown keys are ignored.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// Facts gathered from a page (or from one element of it) by the page runtime.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageFacts {
    /// Parsed JSON-LD objects, `@graph` already flattened.
    #[serde(deserialize_with = "lenient::values")]
    pub jsonld: Vec<Value>,
    /// How many JSON-LD blocks could not be parsed.
    #[serde(deserialize_with = "lenient::count")]
    pub jsonld_errors: u64,
    /// Top-level microdata items.
    #[serde(deserialize_with = "lenient::items")]
    pub microdata: Vec<MicrodataItem>,
    /// `<meta>` name/property → content (`og:title`, `product:price:amount`...).
    #[serde(deserialize_with = "lenient::strings")]
    pub meta: BTreeMap<String, String>,
    /// Label → value pairs from tables, definition lists and `Label: value` rows.
    #[serde(deserialize_with = "lenient::pairs")]
    pub pairs: Vec<(String, String)>,
    /// Texts that look like prices, with their context and strike-through state.
    #[serde(deserialize_with = "lenient::items")]
    pub prices: Vec<PriceFragment>,
    /// Visible buy buttons ("Add to cart", "In den Warenkorb", "Mua ngay"...).
    #[serde(deserialize_with = "lenient::items")]
    pub buy: Vec<BuyButton>,
    /// Short texts holding a stock phrase the caller asked about, with what
    /// their part of the page is about (see [`StockLine`]).
    #[serde(deserialize_with = "lenient::items")]
    pub stock: Vec<StockLine>,
    /// Priced objects of the page's inline JSON state (`__NEXT_DATA__`, `window.__STATE__ = {...}`).
    #[serde(deserialize_with = "lenient::items")]
    pub state: Vec<StateItem>,
    /// Identifiers in data attributes: (attribute, value, how many elements carry it).
    #[serde(deserialize_with = "lenient::ids")]
    pub ids: Vec<(String, String, u64)>,
    #[serde(deserialize_with = "lenient::string")]
    pub title: String,
    #[serde(deserialize_with = "lenient::string")]
    pub url: String,
    /// The page's `lang` (`vi`, `en-US`...).
    #[serde(deserialize_with = "lenient::string")]
    pub lang: String,
    /// Visible text of the page or element, capped by the runtime.
    #[serde(deserialize_with = "lenient::string")]
    pub text: String,
}

impl PageFacts {
    /// Reads facts from any JSON value; never fails (a non-object gives empty facts).
    pub fn from_value(value: Value) -> Self {
        match value {
            Value::Object(_) => serde_json::from_value(value).unwrap_or_default(),
            _ => Self::default(),
        }
    }
}

/// One microdata item: its `itemtype` and its properties (strings, nested
/// items as `{"type", "properties"}`, or arrays of either).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MicrodataItem {
    #[serde(rename = "type", deserialize_with = "lenient::first_string")]
    pub kind: String,
    #[serde(deserialize_with = "lenient::object")]
    pub properties: Map<String, Value>,
}

impl MicrodataItem {
    /// The item in JSON-LD shape (`@type` plus properties), so one walker reads both.
    pub(super) fn to_jsonld(&self) -> Value {
        item_to_jsonld(&self.kind, &self.properties, 0)
    }
}

fn item_to_jsonld(kind: &str, properties: &Map<String, Value>, depth: usize) -> Value {
    let mut out = Map::new();
    if !kind.is_empty() {
        out.insert("@type".into(), Value::String(kind.to_string()));
    }
    for (key, value) in properties {
        out.insert(key.clone(), property_to_jsonld(value, depth + 1));
    }
    Value::Object(out)
}

fn property_to_jsonld(value: &Value, depth: usize) -> Value {
    if depth > 8 {
        return Value::Null;
    }
    match value {
        Value::Object(map) if map.contains_key("properties") => {
            let kind = match map.get("type") {
                Some(Value::String(s)) => s.as_str(),
                Some(Value::Array(items)) => items.iter().find_map(Value::as_str).unwrap_or(""),
                _ => "",
            };
            let props = map.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
            item_to_jsonld(kind, &props, depth)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| property_to_jsonld(v, depth + 1)).collect()),
        other => other.clone(),
    }
}

/// A text that looks like a price, as the page runtime found it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PriceFragment {
    /// The price as shown, e.g. `21.490.000 ₫`.
    #[serde(deserialize_with = "lenient::string")]
    pub text: String,
    /// A hint from the element's class, id or label: `price`, `old-price`, `total`, `shipping`...
    #[serde(deserialize_with = "lenient::string")]
    pub context: String,
    /// Shown struck through (`<del>`, `<s>`, `line-through`): an old price.
    #[serde(deserialize_with = "lenient::boolean")]
    pub struck: bool,
    /// Font size in CSS pixels (0: unknown).
    #[serde(deserialize_with = "lenient::float")]
    pub size: f64,
    /// Steps in the tree between the price and the page's `<h1>` (none: unknown or no `<h1>`).
    #[serde(deserialize_with = "lenient::opt_count")]
    pub near: Option<u64>,
    /// Inside a link (a recommendation, a menu entry).
    #[serde(deserialize_with = "lenient::boolean")]
    pub link: bool,
    /// Inside the page's furniture (`nav`, `header`, `footer`, `aside`).
    #[serde(deserialize_with = "lenient::boolean")]
    pub furniture: bool,
}

/// An object with a price in the page's inline JSON state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StateItem {
    #[serde(deserialize_with = "lenient::string")]
    pub name: String,
    #[serde(deserialize_with = "lenient::string")]
    pub sku: String,
    #[serde(deserialize_with = "lenient::string")]
    pub price: String,
    #[serde(deserialize_with = "lenient::string")]
    pub currency: String,
    #[serde(deserialize_with = "lenient::string")]
    pub availability: String,
}

/// A visible buy button as the page runtime found it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BuyButton {
    #[serde(deserialize_with = "lenient::string")]
    pub text: String,
    /// Disabled (`disabled`, `aria-disabled`, a `disabled`/`sold-out` class).
    #[serde(deserialize_with = "lenient::boolean")]
    pub disabled: bool,
    /// What its part of the page is about when it is not the main product's
    /// own (`recommendation`, `furniture`, `dialog`, `chat`...); empty: its own.
    #[serde(deserialize_with = "lenient::string")]
    pub other: String,
}

/// A short text with a stock phrase as the page runtime found it: the
/// block's text and what its part of the page is about when it is not the
/// main product's (`chat`, `store`, `delivery`, `variant`, `recommendation`,
/// `review`, `newsletter`, `furniture`, `dialog`); empty: the page's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StockLine {
    #[serde(deserialize_with = "lenient::string")]
    pub text: String,
    #[serde(deserialize_with = "lenient::string")]
    pub other: String,
}

/// Field deserialisers that never fail on a well-formed JSON value.
mod lenient {
    use super::*;
    use serde::de::DeserializeOwned;

    fn scalar_text(v: &Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        Ok(scalar_text(&Value::deserialize(d)?).unwrap_or_default())
    }

    pub fn first_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Array(items) => items.iter().find_map(scalar_text).unwrap_or_default(),
            other => scalar_text(&other).unwrap_or_default(),
        })
    }

    pub fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Bool(b) => b,
            Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
            Value::String(s) => matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "1" | "yes"),
            _ => false,
        })
    }

    pub fn float<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Number(n) => n.as_f64().unwrap_or(0.0),
            Value::String(s) => s.trim().parse().unwrap_or(0.0),
            _ => 0.0,
        })
    }

    pub fn opt_count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Number(n) => n.as_u64().filter(|n| *n < 99),
            _ => None,
        })
    }

    pub fn ids<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String, u64)>, D::Error> {
        let Value::Array(items) = Value::deserialize(d)? else { return Ok(Vec::new()) };
        Ok(items
            .iter()
            .filter_map(|item| {
                let parts = item.as_array()?;
                let count = parts.get(2).and_then(Value::as_u64).unwrap_or(1);
                Some((scalar_text(parts.first()?)?, scalar_text(parts.get(1)?)?, count))
            })
            .collect())
    }

    pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Number(n) => n.as_u64().unwrap_or(0),
            Value::String(s) => s.trim().parse().unwrap_or(0),
            _ => 0,
        })
    }

    pub fn values<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Array(items) => items,
            Value::Object(map) => vec![Value::Object(map)],
            _ => Vec::new(),
        })
    }

    pub fn object<'de, D: Deserializer<'de>>(d: D) -> Result<Map<String, Value>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Object(map) => map,
            _ => Map::new(),
        })
    }

    pub fn items<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Vec<T>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Array(items) => items.into_iter().filter_map(|v| serde_json::from_value(v).ok()).collect(),
            _ => Vec::new(),
        })
    }

    pub fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Object(map) => map
                .into_iter()
                .filter_map(|(k, v)| {
                    let text = match &v {
                        Value::Array(items) => items.iter().find_map(scalar_text),
                        other => scalar_text(other),
                    };
                    text.map(|t| (k.trim().to_ascii_lowercase(), t))
                })
                .collect(),
            _ => BTreeMap::new(),
        })
    }

    pub fn pairs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
        let Value::Array(items) = Value::deserialize(d)? else { return Ok(Vec::new()) };
        Ok(items
            .iter()
            .filter_map(|item| match item {
                Value::Array(parts) => Some((scalar_text(parts.first()?)?, scalar_text(parts.get(1)?)?)),
                Value::Object(map) => {
                    let label = map.get("label").or_else(|| map.get("name")).and_then(scalar_text)?;
                    Some((label, map.get("value").and_then(scalar_text)?))
                }
                _ => None,
            })
            .collect())
    }
}
