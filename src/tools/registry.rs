//! The registry: every tool's declaration with its compiled argument
//! validator. Lookup and validation happen here; what runs a tool is the
//! handler the host registered for it (`crate::handler`).

use std::collections::HashMap;

use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::tools::catalogue::catalogue;
use crate::tools::spec::ToolSpec;

/// At most this many schema violations are listed in one error message.
const MAX_REPORTED_VIOLATIONS: usize = 5;

struct Entry {
    spec: ToolSpec,
    validator: jsonschema::Validator,
}

/// What one call's result holds and changes ([`Registry::effects_of`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallEffects {
    /// Content read from a web page: fenced before the model reads it.
    pub page_content: bool,
    /// The prompt's memory or the profile: read again after the call.
    pub edits_memory: bool,
}

/// The tools Halley knows, in declaration order.
pub struct Registry {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").field("tools", &self.entries.len()).finish()
    }
}

impl Registry {
    /// The built-in catalogue of tools.md.
    pub fn builtin() -> Result<Registry> {
        Registry::new(catalogue())
    }

    /// Build a registry from declarations. Fails on a duplicate name or a
    /// parameters schema that does not compile. (That every `available`
    /// built-in has a handler is checked when the core is built:
    /// `Handlers::check`.)
    pub fn new(specs: Vec<ToolSpec>) -> Result<Registry> {
        let mut entries = Vec::with_capacity(specs.len());
        let mut by_name = HashMap::with_capacity(specs.len());
        for spec in specs {
            if by_name.contains_key(&spec.name) {
                return Err(Error::internal(format!("tool `{}` is declared twice", spec.name)));
            }
            let validator = jsonschema::options()
                .should_validate_formats(true)
                .build(&spec.parameters)
                .map_err(|e| Error::internal(format!("tool `{}` has an invalid parameters schema: {e}", spec.name)))?;
            by_name.insert(spec.name.clone(), entries.len());
            entries.push(Entry { spec, validator });
        }
        Ok(Registry { entries, by_name })
    }

    /// This registry plus `custom` tools (blueprints registered by the user).
    pub fn with_custom(self, custom: Vec<ToolSpec>) -> Result<Registry> {
        let specs = self.entries.into_iter().map(|e| e.spec).chain(custom).collect();
        Registry::new(specs)
    }

    /// Every declaration, in catalogue order.
    pub fn list(&self) -> impl ExactSizeIterator<Item = &ToolSpec> {
        self.entries.iter().map(|e| &e.spec)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.entry(name).map(|e| &e.spec)
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        self.by_name.get(name).and_then(|&i| self.entries.get(i))
    }

    /// The declarations that hold for one call of `name` with `args`:
    /// the tool's own, joined with those of the tool it runs (a tool that
    /// names another in its arguments, like `browser_retry`). Unknown
    /// tools declare nothing.
    pub fn effects_of(&self, name: &str, args: &Value) -> CallEffects {
        let mut effects = CallEffects::default();
        let mut next = Some(name.to_owned());
        // A tool that runs a tool that runs a tool...: a few levels at most.
        for _ in 0..4 {
            let Some(spec) = next.take().and_then(|n| self.get(&n)) else { break };
            effects.page_content |= spec.page_content;
            effects.edits_memory |= spec.edits_memory;
            next =
                spec.runs_tool_at.as_deref().and_then(|at| args.pointer(at)).and_then(Value::as_str).map(str::to_owned);
        }
        effects
    }

    /// Look a tool up, or fail with `unknown_tool` suggesting near names.
    pub fn lookup(&self, name: &str) -> Result<&ToolSpec> {
        self.get(name).ok_or_else(|| {
            let suggestions = self.similar_names(name);
            let hint = if suggestions.is_empty() {
                "; `halley tools list` shows every tool".to_string()
            } else {
                format!("; did you mean {}?", suggestions.join(" or "))
            };
            Error::new(ErrorCode::UnknownTool, format!("unknown tool `{name}`{hint}"))
        })
    }

    /// Check `args` against the tool's parameters schema. The error names
    /// each offending field by its JSON path.
    pub fn validate(&self, name: &str, args: &Value) -> Result<()> {
        self.lookup(name)?;
        let Some(entry) = self.entry(name) else {
            return Err(Error::internal(format!("tool `{name}` vanished from the registry")));
        };
        let violations: Vec<String> = entry
            .validator
            .iter_errors(args)
            .take(MAX_REPORTED_VIOLATIONS + 1)
            .map(|err| describe_violation(err.instance_path().as_str(), &err.to_string()))
            .collect();
        if violations.is_empty() {
            return Ok(());
        }
        let shown: Vec<&str> = violations.iter().take(MAX_REPORTED_VIOLATIONS).map(String::as_str).collect();
        let more = if violations.len() > MAX_REPORTED_VIOLATIONS { "; and more" } else { "" };
        Err(Error::invalid_arguments(format!("invalid arguments for `{name}`: {}{more}", shown.join("; "))))
    }

    fn similar_names(&self, name: &str) -> Vec<String> {
        let wanted = name.to_lowercase();
        let mut scored: Vec<(usize, &str)> = self
            .entries
            .iter()
            .map(|e| (edit_distance(&wanted, &e.spec.name), e.spec.name.as_str()))
            .filter(|(d, n)| *d <= 3 || n.contains(wanted.as_str()) && wanted.len() >= 4)
            .collect();
        scored.sort();
        scored.into_iter().take(3).map(|(_, n)| format!("`{n}`")).collect()
    }
}

/// "/url: 5 is not of type "string"" → "field `url`: 5 is not of type "string"".
fn describe_violation(pointer: &str, message: &str) -> String {
    if pointer.is_empty() {
        return message.to_string();
    }
    let field: Vec<String> =
        pointer.trim_start_matches('/').split('/').map(|seg| seg.replace("~1", "/").replace("~0", "~")).collect();
    format!("field `{}`: {message}", field.join("."))
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolStatus;
    use crate::tools::spec::{Executor, PermissionScope, RiskLevel, ToolKind};
    use serde_json::json;

    fn spec(name: &str, status: ToolStatus, parameters: Value) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: "test".into(),
            kind: ToolKind::Primitive,
            executor: Executor::Builtin,
            status,
            permission_scope: PermissionScope::ReadOnly,
            risk_level: RiskLevel::Low,
            requires_confirmation: false,
            parameters,
            output_schema: json!({"type": "object"}),
            needs: None,
            activity: None,
            page_content: false,
            edits_memory: false,
            asks_user: false,
            runs_tool_at: None,
            changes_watches: false,
        }
    }

    #[test]
    fn a_call_has_the_declarations_of_the_tool_it_runs() {
        let registry = Registry::builtin().unwrap();
        let page = CallEffects { page_content: true, edits_memory: false };
        let retry = |tool: &str| json!({"action": {"tool": tool, "arguments": {}}});
        assert_eq!(registry.effects_of("browser_get_dom", &json!({})), page);
        assert_eq!(registry.effects_of("browser_retry", &retry("browser_get_dom")), page);
        assert_eq!(registry.effects_of("browser_retry", &retry("browser_read_text")), page);
        assert_eq!(registry.effects_of("browser_retry", &retry("browser_extract")), page);
        assert_eq!(registry.effects_of("browser_retry", &retry("browser_click")), page);
        assert_eq!(registry.effects_of("browser_retry", &retry("browser_wait")), CallEffects::default());
        assert_eq!(registry.effects_of("browser_scroll", &json!({})), CallEffects::default());
        assert_eq!(
            registry.effects_of("core_memory_append", &json!({})),
            CallEffects { page_content: false, edits_memory: true }
        );
        assert_eq!(registry.effects_of("no_such_tool", &json!({})), CallEffects::default());
    }

    fn nav_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "url": {"type": "string"},
                "wait_until": {"enum": ["load", "networkidle"]},
                "nested": {"type": "object", "properties": {"n": {"type": "integer"}}}
            },
            "required": ["url"],
            "additionalProperties": false
        })
    }

    #[test]
    fn validation_errors_name_the_field() {
        let reg = Registry::new(vec![spec("nav", ToolStatus::Planned, nav_schema())]).unwrap();
        assert!(reg.validate("nav", &json!({"url": "https://a.b"})).is_ok());

        let err = reg.validate("nav", &json!({"url": 5})).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        assert_eq!(err.message(), "invalid arguments for `nav`: field `url`: 5 is not of type \"string\"");

        let err = reg.validate("nav", &json!({"url": "x", "nested": {"n": "one"}})).unwrap_err();
        assert!(err.message().contains("field `nested.n`"), "{}", err.message());

        let err = reg.validate("nav", &json!({})).unwrap_err();
        assert!(err.message().contains("\"url\" is a required property"), "{}", err.message());

        let err = reg.validate("nav", &json!({"url": "x", "colour": 1})).unwrap_err();
        assert!(err.message().contains("colour"), "{}", err.message());

        let err = reg.validate("nav", &json!([1])).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
    }

    #[test]
    fn unknown_tool_suggests_a_near_name() {
        let reg = Registry::new(vec![spec("web_search", ToolStatus::Available, nav_schema())]).unwrap();
        let err = reg.lookup("web_serach").unwrap_err();
        assert_eq!(err.code(), ErrorCode::UnknownTool);
        assert_eq!(err.message(), "unknown tool `web_serach`; did you mean `web_search`?");
        let err = reg.validate("zzz", &json!({})).unwrap_err();
        assert_eq!(err.code(), ErrorCode::UnknownTool);
    }

    #[test]
    fn inconsistent_declarations_are_rejected() {
        let dup = Registry::new(vec![
            spec("a", ToolStatus::Planned, nav_schema()),
            spec("a", ToolStatus::Planned, nav_schema()),
        ]);
        assert!(dup.is_err());
        // A declared tool with no handler, or a planned one with a handler:
        // refused when the core is built (`Handlers::check`).
        let no_exec = Registry::new(vec![spec("a", ToolStatus::Available, nav_schema())]).unwrap();
        assert!(crate::handler::Handlers::new().check(&no_exec).unwrap_err().message().contains("no handler"));
        let exec_but_planned =
            Registry::new(vec![spec("normalize_compare", ToolStatus::Planned, nav_schema())]).unwrap();
        assert!(crate::host::handlers().unwrap().check(&exec_but_planned).is_err());
        let bad_schema = Registry::new(vec![spec("a", ToolStatus::Planned, json!({"type": 12}))]);
        assert!(bad_schema.is_err());
    }
}
