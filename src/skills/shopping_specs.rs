//! `shopping_extract_specs`: one product's specs by a category schema.
//!
//! The category schemas ship with Halley (`schemas/*.json`, compiled in):
//! each field has a type, a unit (numbers are converted to it: `1 TB` is
//! `1000` for `storage_gb`, `5.51 lb` is `2.5` for `weight_kg`) and the
//! labels shops give it, English and Vietnamese (`RAM`, `Bộ nhớ RAM`,
//! `Dung lượng pin`). The page is opened with `browser_navigate` and read
//! with `browser_extract`: first by the rules alone over every field's name
//! and labels, then, for what is still missing and only when the run has a
//! model, a second `browser_extract` whose model-assisted pass reads those
//! fields from the page text (confidence 0.6). Nothing is guessed: a field
//! not found is listed in `missing_fields`.
//!
//! [`read_fields`] (the two passes) and the number and money readers are
//! shared with the other shopping skills.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Skill, parse, to_output};
use crate::error::{Error, Result};
use crate::tools::ToolOutput;
use crate::tools::catalogue::capture::BrowserExtractOutput;
use crate::tools::catalogue::common::SkillStatus;
use crate::tools::catalogue::shopping::{ShoppingExtractSpecsArgs, ShoppingExtractSpecsOutput};

/// The category schemas, as shipped.
const SCHEMA_FILES: [&str; 5] = [
    include_str!("schemas/laptop_gaming_v1.json"),
    include_str!("schemas/phone_v1.json"),
    include_str!("schemas/headphones_v1.json"),
    include_str!("schemas/tv_v1.json"),
    include_str!("schemas/home_appliance_v1.json"),
];

/// One category schema.
#[derive(Debug, Clone, Deserialize)]
pub struct CategorySchema {
    pub category: String,
    pub title: String,
    pub fields: Vec<SpecField>,
}

/// One field of a category schema.
#[derive(Debug, Clone, Deserialize)]
pub struct SpecField {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: SpecType,
    /// The unit numbers are given in (`GB`, `inch`, `kg`...).
    #[serde(default)]
    pub unit: Option<String>,
    /// The labels shops use for it, English and Vietnamese.
    #[serde(default)]
    pub aliases: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpecType {
    String,
    Number,
}

static SCHEMAS: LazyLock<Vec<CategorySchema>> = LazyLock::new(|| {
    SCHEMA_FILES
        .iter()
        .filter_map(|text| match serde_json::from_str(text) {
            Ok(schema) => Some(schema),
            Err(e) => {
                tracing::error!("a shipped category schema does not read: {e}");
                None
            }
        })
        .collect()
});

/// The category schemas Halley ships, in order.
pub fn categories() -> &'static [CategorySchema] {
    &SCHEMAS
}

/// The schema of `category`, or an error listing the known ones.
pub fn category(name: &str) -> Result<&'static CategorySchema> {
    categories().iter().find(|c| c.category == name).ok_or_else(|| {
        let known: Vec<String> = categories().iter().map(|c| format!("`{}` ({})", c.category, c.title)).collect();
        Error::invalid_arguments(format!(
            "unknown category `{name}`; Halley's category schemas are: {}",
            known.join(", ")
        ))
    })
}

pub fn run<'a>(skill: &'a Skill<'a>, args: &'a Value) -> BoxFuture<'a, Result<ToolOutput>> {
    Box::pin(async move {
        let args: ShoppingExtractSpecsArgs = parse("shopping_extract_specs", args)?;
        let schema = category(&args.category)?;
        to_output(&extract_specs(skill, &args.product_url, schema).await?)
    })
}

async fn extract_specs(skill: &Skill<'_>, url: &str, schema: &CategorySchema) -> Result<ShoppingExtractSpecsOutput> {
    skill.data::<Value>("browser_navigate", json!({"url": url})).await?;
    let wanted: Vec<Wanted> =
        schema.fields.iter().map(|f| Wanted { name: f.name.clone(), aliases: f.aliases.clone() }).collect();
    let found = read_fields(skill, &wanted, Some("product specifications")).await?;
    let mut spec_json = Map::new();
    let mut field_confidence = BTreeMap::new();
    let mut units = BTreeMap::new();
    let mut missing_fields = Vec::new();
    for field in &schema.fields {
        let Some(read) = found.get(&field.name) else {
            missing_fields.push(field.name.clone());
            continue;
        };
        let value = match (field.kind, field.unit.as_deref()) {
            (SpecType::Number, unit) => match number_in(&read.text, unit) {
                Some(n) => number_value(n),
                None => {
                    skill.note(format!("{}: \"{}\" holds no number; left out", field.name, read.text));
                    missing_fields.push(field.name.clone());
                    continue;
                }
            },
            (SpecType::String, _) => json!(read.text),
        };
        if let Some(unit) = &field.unit {
            units.insert(field.name.clone(), unit.clone());
        }
        spec_json.insert(field.name.clone(), value);
        field_confidence.insert(field.name.clone(), read.confidence);
    }
    // Missing fields count as 0: a page with half the specs is half sure.
    let total: f64 = field_confidence.values().sum();
    let confidence = round2(total / schema.fields.len().max(1) as f64);
    let status = match (spec_json.is_empty(), missing_fields.is_empty()) {
        (true, _) => SkillStatus::Failed,
        (false, true) => SkillStatus::Ok,
        (false, false) => SkillStatus::Partial,
    };
    if !missing_fields.is_empty() {
        skill.note(format!("not on the page: {}", missing_fields.join(", ")));
    }
    Ok(ShoppingExtractSpecsOutput {
        spec_json,
        confidence,
        status,
        category: Some(schema.category.clone()),
        field_confidence,
        units,
        missing_fields,
        notes: skill.notes(),
    })
}

/// How much less a reading counts when another field's labels found the
/// same value.
const SHARED_PENALTY: f64 = 0.2;

/// A field a skill reads from the page, and the labels it goes by.
#[derive(Debug, Clone)]
pub(super) struct Wanted {
    pub name: String,
    pub aliases: Vec<String>,
}

impl Wanted {
    pub(super) fn new(name: &str, aliases: &[&str]) -> Wanted {
        Wanted { name: name.to_owned(), aliases: aliases.iter().map(|a| (*a).to_owned()).collect() }
    }
}

/// A field read from the page: its text, how sure, from where.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Read {
    pub text: String,
    pub confidence: f64,
    pub source: String,
}

/// The fields of `wanted` on the current page, as text: a `browser_extract`
/// by the rules over every name and label (the most confident reading of a
/// field wins), then, when some are missing and the run has a model, a
/// second `browser_extract` of those alone, which the model may fill.
/// `what` tells the model what the fields are; `what` is `None` where a
/// model's reading is not wanted (the money a checkout will charge).
pub(super) async fn read_fields(
    skill: &Skill<'_>,
    wanted: &[Wanted],
    what: Option<&str>,
) -> Result<BTreeMap<String, Read>> {
    let mut key_of: BTreeMap<String, usize> = BTreeMap::new();
    for (i, w) in wanted.iter().enumerate() {
        for key in std::iter::once(&w.name).chain(&w.aliases) {
            key_of.entry(key.clone()).or_insert(i);
        }
    }
    let schema: Map<String, Value> = key_of.keys().map(|k| (k.clone(), json!("string"))).collect();
    let out: BrowserExtractOutput =
        skill.data_rules_only("browser_extract", json!({"schema": schema, "source": {"type": "dom"}})).await?;
    // Every reading of every field; a value that another field's labels
    // also found (`Storage` matches `Bộ nhớ RAM` as well as `Ổ cứng`)
    // counts less, so each field takes the value that is its own.
    let mut readings: Vec<(usize, Read)> = Vec::new();
    for (key, value) in &out.data {
        let (Some(&i), Some(text)) = (key_of.get(key), text_of(value)) else { continue };
        let confidence = out.confidence.get(key).copied().unwrap_or(0.0);
        let source = out.sources.get(key).cloned().unwrap_or_default();
        readings.push((i, Read { text, confidence, source }));
    }
    let shared = |i: usize, text: &str| readings.iter().any(|(j, r)| *j != i && r.text == text);
    let score = |i: usize, r: &Read| r.confidence - if shared(i, &r.text) { SHARED_PENALTY } else { 0.0 };
    let mut found: BTreeMap<String, Read> = BTreeMap::new();
    for (i, w) in wanted.iter().enumerate() {
        let best = readings
            .iter()
            .filter(|(j, _)| *j == i)
            .max_by(|(_, a), (_, b)| score(i, a).total_cmp(&score(i, b)).then(b.text.len().cmp(&a.text.len())));
        if let Some((_, read)) = best {
            found.insert(w.name.clone(), read.clone());
        }
    }
    let missing: Vec<&Wanted> = wanted.iter().filter(|w| !found.contains_key(&w.name)).collect();
    let Some(what) = what.filter(|_| !missing.is_empty() && skill.cx().fallback.is_some()) else {
        return Ok(found);
    };
    let schema: Map<String, Value> = missing.iter().map(|w| (w.name.clone(), json!("string"))).collect();
    let labels: Vec<String> =
        missing.iter().map(|w| format!("{} (labelled {})", w.name, w.aliases.join(" / "))).collect();
    let instructions = format!("These are {what}: {}. Leave out a field the page does not show.", labels.join("; "));
    let out: BrowserExtractOutput =
        skill.data("browser_extract", json!({"schema": schema, "instructions": instructions})).await?;
    for (key, value) in &out.data {
        if let Some(text) = text_of(value) {
            let confidence = out.confidence.get(key).copied().unwrap_or(0.0);
            let source = out.sources.get(key).cloned().unwrap_or_default();
            found.insert(key.clone(), Read { text, confidence, source });
        }
    }
    Ok(found)
}

fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A number as JSON: whole numbers as integers (`16`, not `16.0`).
pub(super) fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        #[allow(clippy::cast_possible_truncation)]
        return json!(n as i64);
    }
    json!(n)
}

pub(super) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Unit words a spec may be written in, and how many of the field's unit
/// one of them is: `(field unit, [(written unit, factor)])`.
const UNITS: &[(&str, &[(&str, f64)])] = &[
    ("GB", &[("gb", 1.0), ("tb", 1000.0), ("mb", 0.001)]),
    ("inch", &[("inch", 1.0), ("inches", 1.0), ("in", 1.0), ("\"", 1.0), ("″", 1.0), ("cm", 1.0 / 2.54)]),
    ("kg", &[("kg", 1.0), ("g", 0.001), ("gram", 0.001), ("lb", 0.453_592_37), ("lbs", 0.453_592_37)]),
    ("g", &[("g", 1.0), ("gram", 1.0), ("kg", 1000.0), ("oz", 28.349_523)]),
    ("Wh", &[("wh", 1.0)]),
    ("mAh", &[("mah", 1.0)]),
    ("Hz", &[("hz", 1.0)]),
    ("W", &[("w", 1.0), ("kw", 1000.0)]),
    ("L", &[("l", 1.0), ("lít", 1.0), ("lit", 1.0), ("liter", 1.0), ("litre", 1.0), ("ml", 0.001)]),
    ("MP", &[("mp", 1.0)]),
    ("h", &[("h", 1.0), ("hour", 1.0), ("hours", 1.0), ("hrs", 1.0), ("giờ", 1.0), ("gio", 1.0)]),
    ("mm", &[("mm", 1.0), ("cm", 10.0)]),
];

static NUMBER_UNIT: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r#"(\d+(?:[.,]\d+)*)\s*("|″|\p{L}+)?"#).ok());

/// The first number of `text`, in `unit` when the text names a unit it
/// converts from (`1 TB` → 1000 for GB, `5.51 lb` → 2.5 for kg); a number
/// written in another unit than the known ones is taken as it is.
pub(super) fn number_in(text: &str, unit: Option<&str>) -> Option<f64> {
    let re = NUMBER_UNIT.as_ref()?;
    let caps = re.captures(text)?;
    let (value, _) = crate::vocab::number::parse_number(caps.get(1)?.as_str()).ok()?;
    let written = caps.get(2).map(|m| m.as_str().to_lowercase());
    let factor = unit
        .and_then(|u| UNITS.iter().find(|(name, _)| *name == u))
        .and_then(|(_, table)| table.iter().find(|(w, _)| Some(*w) == written.as_deref()).map(|(_, f)| *f))
        .unwrap_or(1.0);
    Some(round2(value * factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_schema_reads_and_has_labels() {
        assert_eq!(categories().len(), SCHEMA_FILES.len());
        for c in categories() {
            assert!(!c.fields.is_empty(), "{}", c.category);
            for f in &c.fields {
                assert!(!f.aliases.is_empty(), "{}.{} has no labels", c.category, f.name);
                if let Some(unit) = &f.unit {
                    assert!(UNITS.iter().any(|(u, _)| u == unit), "{}.{}: unknown unit {unit}", c.category, f.name);
                }
            }
        }
        let e = category("laptop").unwrap_err();
        assert!(e.message().contains("`laptop_gaming_v1` (Gaming laptop)"), "{}", e.message());
        assert!(e.message().contains("`phone_v1`") && e.message().contains("`tv_v1`"), "{}", e.message());
    }

    #[test]
    fn numbers_are_read_in_the_fields_unit() {
        assert_eq!(number_in("1 TB SSD NVMe", Some("GB")), Some(1000.0));
        assert_eq!(number_in("16GB DDR5", Some("GB")), Some(16.0));
        assert_eq!(number_in("5.51 lb", Some("kg")), Some(2.5));
        assert_eq!(number_in("2,5 kg", Some("kg")), Some(2.5));
        assert_eq!(number_in("16\"", Some("inch")), Some(16.0));
        assert_eq!(number_in("Thời lượng 30 giờ", Some("h")), Some(30.0));
        assert_eq!(number_in("5000 mAh", Some("mAh")), Some(5000.0));
        assert_eq!(number_in("không có", Some("GB")), None);
    }
}
