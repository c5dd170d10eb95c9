//! Tool blueprints (spec §5): a tool described as one JSON Schema whose
//! system fields start with `_` (`_tool`, `_activity`, `_output`), turned
//! into a [`ToolSpec`]. A blueprint without `_activity` is implicit: the
//! model produces its `_output` itself, validated against the schema; with
//! `_activity` it is executed by that program (a built-in tool). Swapping
//! the executor never changes the blueprint.

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::tools::registry::Registry;
use crate::tools::{Executor, PermissionScope, RiskLevel, ToolKind, ToolSpec, ToolStatus};

/// The system field the model fills with why it chose the call; recorded
/// with the call and removed before the tool sees its arguments.
pub const REASONING_FIELD: &str = "_reasoningForCall";
/// The result an implicit tool's call carries.
pub const OUTPUT_FIELD: &str = "_output";
const SYSTEM_FIELDS: [&str; 4] = ["_tool", "_activity", OUTPUT_FIELD, REASONING_FIELD];
/// `_activity` value for tools executed by the client application that
/// registered them (arrives with the local API).
pub const CLIENT_ACTIVITY: &str = "client";

/// Set whether each call of a client tool is approved first: with
/// approval it is SUBMIT (the gate asks whoever started the run), without
/// it WRITE_NON_DESTRUCTIVE (allowed, audited).
pub fn set_client_approval(spec: &mut ToolSpec, approval: bool) {
    spec.requires_confirmation = approval;
    spec.permission_scope = if approval { PermissionScope::Submit } else { PermissionScope::WriteNonDestructive };
}

/// Read a blueprint. `builtin` is the catalogue: names are checked against
/// it and an `_activity` must name one of its available tools.
pub fn parse(blueprint: &Value, builtin: &Registry) -> Result<ToolSpec> {
    let bad = |m: String| Error::invalid_arguments(format!("invalid blueprint: {m}"));
    let obj = blueprint.as_object().ok_or_else(|| bad("it must be a JSON Schema object".into()))?;
    if obj.get("type").is_some_and(|t| t != "object") {
        return Err(bad("`type` must be \"object\"".into()));
    }
    let props = obj
        .get("properties")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("`properties` must be an object holding `_tool`".into()))?;
    let name = const_str(props, "_tool").ok_or_else(|| {
        bad("`properties._tool` must be {\"type\": \"string\", \"const\": \"<the tool's name>\"}".into())
    })?;
    let valid_name = name.len() <= 64
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid_name {
        return Err(bad(format!(
            "the name {name:?} must start with a letter and hold only letters, digits and `_` (64 at most)"
        )));
    }
    if builtin.get(&name).is_some() {
        return Err(bad(format!("`{name}` is a built-in tool; choose another name")));
    }
    let description = obj.get("description").and_then(Value::as_str).unwrap_or("").trim().to_owned();
    if description.is_empty() {
        return Err(bad("`description` is required: the model chooses tools by it".into()));
    }
    let output = match props.get(OUTPUT_FIELD) {
        None => None,
        Some(o) if o.is_object() => Some(o.clone()),
        Some(_) => return Err(bad("`properties._output` must be a JSON Schema object".into())),
    };
    let activity = match props.get("_activity") {
        None => None,
        Some(_) => Some(const_str(props, "_activity").ok_or_else(|| {
            bad("`properties._activity` must be {\"type\": \"string\", \"const\": \"<executor>\"}".into())
        })?),
    };

    // The inputs: every non-system property.
    let mut inputs = obj.clone();
    inputs.insert("type".into(), json!("object"));
    inputs.remove("description");
    let input_props: Map<String, Value> = props
        .iter()
        .filter(|(k, _)| !SYSTEM_FIELDS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let required: Vec<Value> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter(|v| v.as_str().is_some_and(|s| !SYSTEM_FIELDS.contains(&s))).cloned().collect())
        .unwrap_or_default();
    inputs.insert("properties".into(), Value::Object(input_props));
    inputs.insert("required".into(), Value::Array(required));

    let spec = |executor, status, scope, risk, confirm, parameters, output_schema, needs, activity| ToolSpec {
        name: name.clone(),
        description: description.clone(),
        kind: ToolKind::Custom,
        executor,
        status,
        permission_scope: scope,
        risk_level: risk,
        requires_confirmation: confirm,
        parameters,
        output_schema,
        needs,
        activity,
        page_content: false,
        edits_memory: false,
        asks_user: false,
        runs_tool_at: None,
        changes_watches: false,
    };
    match activity.as_deref() {
        // Implicit: the model writes `_output` in the call itself, so the
        // arguments' schema requires it, shaped by the output schema.
        None => {
            let output = output.ok_or_else(|| {
                bad("a blueprint without `_activity` is executed by the model, which needs `properties._output` (the result's schema)".into())
            })?;
            let mut parameters = inputs;
            let mut described = output.clone();
            if let Some(o) = described.as_object_mut() {
                o.entry("description").or_insert_with(|| {
                    json!("The result of this tool: produce it yourself from the inputs, as this schema says.")
                });
            }
            if let Some(p) = parameters.get_mut("properties").and_then(Value::as_object_mut) {
                p.insert(OUTPUT_FIELD.into(), described);
            }
            if let Some(r) = parameters.get_mut("required").and_then(Value::as_array_mut) {
                r.push(json!(OUTPUT_FIELD));
            }
            Ok(spec(
                Executor::Implicit,
                ToolStatus::Available,
                PermissionScope::ReadOnly,
                RiskLevel::Low,
                false,
                Value::Object(parameters),
                output,
                None,
                None,
            ))
        }
        // Run by the client application that registered it: its result is
        // that program's output, fenced for the model like page content.
        Some(CLIENT_ACTIVITY) => {
            let mut client = spec(
                Executor::Client,
                ToolStatus::Available,
                PermissionScope::Submit,
                RiskLevel::Medium,
                true,
                Value::Object(inputs),
                output.unwrap_or_else(|| json!({})),
                None,
                Some(CLIENT_ACTIVITY.to_owned()),
            );
            client.page_content = true;
            Ok(client)
        }
        Some(program) => {
            let target = builtin.get(program).filter(|t| t.status == ToolStatus::Available).ok_or_else(|| {
                bad(format!(
                    "`_activity` {program:?} is not an executor Halley has: name an available built-in tool \
                     (`halley tools list`) or \"{CLIENT_ACTIVITY}\""
                ))
            })?;
            // It runs that tool: its result and its effects are that tool's.
            let mut inherits = spec(
                Executor::Builtin,
                ToolStatus::Available,
                target.permission_scope,
                target.risk_level,
                target.requires_confirmation,
                Value::Object(inputs),
                output.unwrap_or_else(|| target.output_schema.clone()),
                None,
                Some(program.to_owned()),
            );
            inherits.page_content = target.page_content;
            inherits.edits_memory = target.edits_memory;
            inherits.asks_user = target.asks_user;
            Ok(inherits)
        }
    }
}

fn const_str(props: &Map<String, Value>, key: &str) -> Option<String> {
    props.get(key)?.get("const")?.as_str().map(str::to_owned).filter(|s| !s.is_empty())
}

/// A client tool's arguments as its function takes them: without Halley's
/// own fields.
pub fn client_arguments(mut args: Value) -> Value {
    if let Some(obj) = args.as_object_mut() {
        obj.retain(|k, _| !SYSTEM_FIELDS.contains(&k.as_str()));
    }
    args
}

/// Take `_reasoningForCall` out of a call's arguments (and `_tool`, which a
/// model may echo back from the blueprint).
pub fn take_reasoning(args: &mut Value) -> Option<String> {
    let obj = args.as_object_mut()?;
    obj.remove("_tool");
    match obj.remove(REASONING_FIELD) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    }
}

/// A tool's parameters as the model sees them: with the optional
/// `_reasoningForCall` field first among the properties.
pub fn with_reasoning_field(parameters: &Value) -> Value {
    let mut p = parameters.clone();
    if let Some(obj) = p.as_object_mut() {
        let mut props = Map::new();
        props.insert(
            REASONING_FIELD.into(),
            json!({"type": "string", "description": "Why you chose this call, in one sentence."}),
        );
        if let Some(Value::Object(old)) = obj.remove("properties") {
            props.extend(old);
        }
        obj.insert("properties".into(), Value::Object(props));
    }
    p
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn sentiment() -> Value {
        json!({
            "type": "object",
            "description": "Analyzes the sentiment of a piece of text",
            "properties": {
                "_tool": {"type": "string", "const": "sentimentAnalysis"},
                "text": {"type": "string", "description": "The text to analyze"},
                "_output": {"type": "object", "properties": {"sentiment": {"type": "string"}, "confidence": {"type": "number"}},
                            "required": ["sentiment"]}
            },
            "required": ["_tool", "text"]
        })
    }

    #[test]
    fn the_spec_example_becomes_an_implicit_tool_whose_call_carries_its_output() {
        let reg = Registry::builtin().unwrap();
        let spec = parse(&sentiment(), &reg).unwrap();
        assert_eq!(
            (spec.name.as_str(), spec.executor, spec.status, spec.kind, spec.permission_scope),
            (
                "sentimentAnalysis",
                Executor::Implicit,
                ToolStatus::Available,
                ToolKind::Custom,
                PermissionScope::ReadOnly
            )
        );
        assert_eq!(spec.parameters["required"], json!(["text", "_output"]));
        assert_eq!(
            spec.parameters["properties"]["text"],
            json!({"type": "string", "description": "The text to analyze"})
        );
        assert!(spec.parameters["properties"].get("_tool").is_none());
        assert_eq!(spec.output_schema["required"], json!(["sentiment"]));
        // The registry validates `_output` against the output schema.
        let reg = Registry::new(vec![spec]).unwrap();
        assert!(
            reg.validate(
                "sentimentAnalysis",
                &json!({"text": "Tuyệt vời!", "_output": {"sentiment": "positive", "confidence": 0.9}})
            )
            .is_ok()
        );
        let err =
            reg.validate("sentimentAnalysis", &json!({"text": "x", "_output": {"confidence": "high"}})).unwrap_err();
        assert!(err.message().contains("_output"), "{}", err.message());
    }

    #[test]
    fn an_activity_names_the_program_that_runs_it() {
        let reg = Registry::builtin().unwrap();
        let bp = json!({
            "description": "Read the cancellation policy of a booking page",
            "properties": {
                "_tool": {"const": "readPolicy"}, "_activity": {"const": "browser_read_text"},
                "selector": {"type": "string"}
            }
        });
        let spec = parse(&bp, &reg).unwrap();
        assert_eq!((spec.executor, spec.activity.as_deref()), (Executor::Builtin, Some("browser_read_text")));
        assert_eq!(spec.permission_scope, PermissionScope::ReadOnly);
        let client =
            json!({"description": "d", "properties": {"_tool": {"const": "q"}, "_activity": {"const": "client"}}});
        let spec = parse(&client, &reg).unwrap();
        assert_eq!((spec.executor, spec.status), (Executor::Client, ToolStatus::Available));
        assert!(spec.page_content, "a client's result is fenced for the model");
        let mut spec = spec;
        set_client_approval(&mut spec, false);
        assert_eq!((spec.permission_scope, spec.requires_confirmation), (PermissionScope::WriteNonDestructive, false));
        set_client_approval(&mut spec, true);
        assert_eq!((spec.permission_scope, spec.requires_confirmation), (PermissionScope::Submit, true));
    }

    #[test]
    fn bad_blueprints_say_what_is_wrong() {
        let reg = Registry::builtin().unwrap();
        let cases = [
            (json!([1]), "JSON Schema object"),
            (json!({"description": "d", "properties": {}}), "_tool"),
            (json!({"description": "d", "properties": {"_tool": {"const": "bad name"}}}), "must start with a letter"),
            (json!({"description": "d", "properties": {"_tool": {"const": "browser_click"}}}), "built-in tool"),
            (json!({"properties": {"_tool": {"const": "x"}}}), "`description` is required"),
            (json!({"description": "d", "properties": {"_tool": {"const": "x"}}}), "needs `properties._output`"),
            (
                json!({"description": "d", "properties": {"_tool": {"const": "x"}, "_activity": {"const": "rm_rf"}}}),
                "not an executor",
            ),
        ];
        for (bp, want) in cases {
            let err = parse(&bp, &reg).unwrap_err();
            assert!(err.message().contains(want), "{bp}: {}", err.message());
        }
    }

    #[test]
    fn reasoning_is_taken_out_of_the_arguments() {
        let mut args = json!({"_reasoningForCall": " để xem giá ", "_tool": "x", "url": "u"});
        assert_eq!(take_reasoning(&mut args).as_deref(), Some("để xem giá"));
        assert_eq!(args, json!({"url": "u"}));
        let shown = with_reasoning_field(&json!({"type": "object", "properties": {"url": {"type": "string"}}}));
        let keys: Vec<&String> = shown["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["_reasoningForCall", "url"]);
    }
}
