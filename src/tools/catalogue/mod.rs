//! The built-in catalogue: every primitive, robustness tool and skill of
//! tools.md, declared with its scope, risk, confirmation and schemas.
//!
//! Argument and output types live next to their group (one file per group);
//! the tools that run today reuse the types of `builtin`.

pub mod capture;
pub mod common;
pub mod creator;
pub mod data;
pub mod effects;
pub mod files;
pub mod interaction;
pub mod memory;
pub mod navigation;
pub mod page_view;
pub mod profile;
pub mod robustness;
pub mod safety;
pub mod shopping;
pub mod travel;
pub mod watches;

#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::tools::spec::{Executor, PermissionScope, RiskLevel, ToolKind, ToolSpec, ToolStatus};

pub use common::{FREQUENCY_PATTERN, Money, SkillStatus, Target};

/// Every built-in tool declaration, in tools.md order: 32 primitives, the
/// 3 robustness tools, the 2 page-view tools (snapshot, find), the 4 memory
/// tools (core blocks, archival passages), the 6 watch tools around
/// `watch_create`/`watch_poll` (list, pause, resume, update, delete,
/// history), then the 12 skills.
pub fn catalogue() -> Vec<ToolSpec> {
    let mut tools = Vec::with_capacity(59);
    tools.extend(navigation::tools());
    tools.extend(interaction::tools());
    tools.extend(capture::tools());
    tools.extend(data::tools());
    tools.extend(safety::tools());
    tools.extend(robustness::tools());
    tools.extend(page_view::tools());
    tools.extend(memory::tools());
    tools.extend(watches::tools());
    tools.extend(travel::tools());
    tools.extend(shopping::tools());
    tools.extend(creator::tools());
    tools
}

/// What each planned tool is waiting for, in the user's terms.
pub(crate) mod needs {
    /// A skill that runs now, without a model (`watch/skills.rs`): nothing missing.
    pub const RUNS_NOW: &str = "";
}

/// The declaration of one catalogue entry, minus its schemas.
pub(crate) struct Decl {
    pub name: &'static str,
    pub kind: ToolKind,
    pub scope: PermissionScope,
    pub risk: RiskLevel,
    pub confirm: bool,
    /// `None`: the tool runs now (status Available). `Some`: planned, and
    /// what it needs.
    pub needs: Option<&'static str>,
    pub description: &'static str,
}

impl Decl {
    /// A primitive that runs now (no `needs`).
    pub(crate) fn primitive(
        name: &'static str,
        scope: PermissionScope,
        risk: RiskLevel,
        confirm: bool,
        description: &'static str,
    ) -> Decl {
        Decl { name, kind: ToolKind::Primitive, scope, risk, confirm, needs: None, description }
    }
}

/// Builds a [`ToolSpec`] from a declaration, the argument type `A` and the
/// type `O` of `data` in a successful result.
pub(crate) fn declare<A: JsonSchema, O: JsonSchema>(decl: Decl) -> ToolSpec {
    ToolSpec {
        name: decl.name.to_owned(),
        description: decl.description.to_owned(),
        kind: decl.kind,
        executor: Executor::Builtin,
        status: if decl.needs.is_some() { ToolStatus::Planned } else { ToolStatus::Available },
        permission_scope: decl.scope,
        risk_level: decl.risk,
        requires_confirmation: decl.confirm,
        parameters: parameters_schema::<A>(),
        output_schema: output_schema::<O>(),
        needs: decl.needs.map(str::to_owned),
        activity: None,
        page_content: false,
        edits_memory: false,
        asks_user: false,
        runs_tool_at: None,
        changes_watches: false,
    }
    .with_effects(effects::of(decl.name))
}

/// JSON Schema of a tool's arguments as the model should see it: inlined
/// (no `$ref`/`$defs`), `type: object` at the top, without `$schema`,
/// titles, the root description (the tool's description says it) and
/// schemars' integer formats (`uint32`...); doc comments become
/// single-paragraph descriptions. Describes what deserialising accepts
/// (fields with defaults are optional).
pub fn parameters_schema<T: JsonSchema>() -> Value {
    model_schema::<T>(SchemaSettings::draft2020_12().for_deserialize())
}

/// JSON Schema of what a tool returns in `data` (cleaned the same way),
/// describing what serialising produces.
pub fn output_schema<T: JsonSchema>() -> Value {
    model_schema::<T>(SchemaSettings::draft2020_12().for_serialize())
}

fn model_schema<T: JsonSchema>(settings: SchemaSettings) -> Value {
    let generator = settings
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    tidy(&mut value);
    if let Value::Object(root) = &mut value {
        for key in ["$schema", "$defs", "definitions", "description"] {
            root.remove(key);
        }
        if !root.contains_key("type") {
            root.insert("type".to_owned(), Value::String("object".to_owned()));
        }
    }
    value
}

/// Formats schemars adds to Rust numbers; not JSON Schema formats, noise
/// for the model.
const RUST_NUMBER_FORMATS: [&str; 14] = [
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32", "uint64", "uint128",
    "float", "double",
];

/// Cleans a schema and its subschemas: drops `title` (Rust type names) and
/// Rust number formats, and joins the lines of each description (a doc
/// comment's line breaks are not meant for the reader). Only schema
/// positions are walked, so a property called `title` or `format` is kept.
fn tidy(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    map.remove("title");
    if map.get("format").and_then(Value::as_str).is_some_and(|f| RUST_NUMBER_FORMATS.contains(&f)) {
        map.remove("format");
    }
    if let Some(Value::String(text)) = map.get_mut("description") {
        *text = join_lines(text);
    }
    for key in ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"] {
        if let Some(sub) = map.get_mut(key) {
            tidy(sub);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(subs)) = map.get_mut(key) {
            subs.iter_mut().for_each(tidy);
        }
    }
    for key in ["properties", "patternProperties"] {
        if let Some(Value::Object(props)) = map.get_mut(key) {
            props.values_mut().for_each(tidy);
        }
    }
}

/// Joins the lines of each paragraph with spaces; paragraphs stay apart.
fn join_lines(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| paragraph.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}
