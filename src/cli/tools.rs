//! `halley tools list|show|call`.

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::Value;

use super::confirm::{ConfirmMode, confirmer};
use super::signals::{Signals, close_for};
use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::context::{CallContext, FrontEnd};
use crate::core::{BrowserSettings, Core, error_result, preflight};
use crate::error::{Error, ErrorCode};
use crate::paths::DataDir;
use crate::store::Store;
use crate::tools::{Registry, ToolResultV2, ToolSpec, ToolStatus};

#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// List every tool with its kind, status, scope and risk.
    List {
        /// Print a JSON array of full declarations.
        #[arg(long)]
        json: bool,
    },
    /// Show one tool's declaration (JSON), schemas included.
    Show { name: String },
    /// Call a tool and print its ToolResultV2 as JSON.
    /// Exit 0 when the result is ok, 1 on a tool error, 2 on a usage error.
    Call {
        name: String,
        /// Arguments as a JSON object; `@FILE` reads them from a file, `-` from stdin.
        #[arg(long, default_value = "{}", value_name = "JSON")]
        args: String,
        #[command(flatten)]
        consent: Consent,
    },
    /// Run a JSONL macro: one `{"tool": NAME, "args": {...}}` per line, in one
    /// session; prints one ToolResultV2 JSON line per call. Every line is
    /// checked before anything runs; the run stops at the first failed call
    /// unless --keep-going. `-` reads standard input.
    Script {
        file: String,
        /// Go on after a failed call.
        #[arg(long)]
        keep_going: bool,
        #[command(flatten)]
        consent: Consent,
    },
    /// Register a tool blueprint (a JSON Schema whose `properties` hold
    /// `_tool` (its name, as a const), `_output` (the result's schema) and
    /// optionally `_activity` (the built-in tool that runs it); without
    /// `_activity` the model produces the `_output` itself). `-` reads stdin.
    Register { file: String },
    /// Remove a registered blueprint.
    Unregister { name: String },
}

/// How actions that need the user's confirmation (an upload, closing a
/// tab) are answered.
#[derive(Debug, Clone, clap::Args)]
pub struct Consent {
    /// Approve them in advance: you wrote these calls yourself.
    #[arg(long)]
    yes: bool,
    /// `ask` on the terminal (refused when there is none) or `deny`.
    #[arg(long, value_enum, default_value_t = ConfirmMode::Ask)]
    confirm: ConfirmMode,
    /// Stay on these sites (`https://shop.vn`, `*.gov.vn`): acting on any
    /// other origin asks first. Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
}

pub async fn run(cmd: ToolsCommand, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let registry = match registry_of(data_dir).await {
        Ok(r) => r,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    match cmd {
        ToolsCommand::Register { file } => register(&file, data_dir).await,
        ToolsCommand::Unregister { name } => unregister(&name, data_dir).await,
        ToolsCommand::List { json } => list(&registry, json),
        ToolsCommand::Show { name } => match registry.lookup(&name) {
            Ok(spec) => print_json(spec),
            Err(e) => fail(&e, EXIT_USAGE),
        },
        ToolsCommand::Call { name, args, consent } => {
            call(registry, &name, &args, Session { data_dir, browser, consent }).await
        }
        ToolsCommand::Script { file, keep_going, consent } => {
            script(registry, &file, keep_going, Session { data_dir, browser, consent }).await
        }
    }
}

/// The built-in tools plus the blueprints registered and the MCP servers'
/// tools in the data directory (when it has a database).
async fn registry_of(data_dir: Option<&Path>) -> Result<Registry, Error> {
    let dir = DataDir::resolve(data_dir)?;
    if !dir.db_path().exists() {
        return Registry::builtin();
    }
    let store = Store::open(&dir.db_path()).await?;
    let registry = crate::host::stored_registry(&store).await;
    store.close().await;
    registry
}

async fn register(file: &str, data_dir: Option<&Path>) -> ExitCode {
    let text = super::read_input(file);
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            let err = Error::new(ErrorCode::FileNotFound, format!("cannot read blueprint {file}")).with_source(e);
            return fail(&err, EXIT_USAGE);
        }
    };
    let blueprint: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return fail(&Error::invalid_arguments(format!("the blueprint is not valid JSON: {e}")), EXIT_USAGE),
    };
    // Checked before the data directory is touched: bad input writes nothing.
    let builtin = match Registry::builtin() {
        Ok(r) => r,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    if let Err(e) = crate::tools::blueprint::parse(&blueprint, &builtin) {
        return fail(&e, EXIT_USAGE);
    }
    let core = match open_core(data_dir).await {
        Ok(c) => c,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let done = core.register_blueprint(&blueprint).await;
    core.close().await;
    match done {
        Ok(spec) => {
            let how = match (spec.executor, spec.activity.as_deref()) {
                (crate::tools::Executor::Implicit, _) => "the model produces its `_output`".to_owned(),
                (_, Some(a)) if spec.status == ToolStatus::Available => format!("run by `{a}`"),
                _ => format!("not available yet: it needs {}", spec.needs.as_deref().unwrap_or("a later release")),
            };
            out(&format!("registered `{}` ({how}); `halley tools show {}` for its schemas", spec.name, spec.name));
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

async fn unregister(name: &str, data_dir: Option<&Path>) -> ExitCode {
    let core = match open_core(data_dir).await {
        Ok(c) => c,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let done = core.unregister_blueprint(name).await;
    core.close().await;
    match done {
        Ok(()) => {
            out(&format!("unregistered `{name}`"));
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, EXIT_USAGE),
    }
}

pub(super) async fn open_core(data_dir: Option<&Path>) -> Result<Core, Error> {
    let dir = DataDir::resolve(data_dir)?;
    crate::host::open_core_full(dir, Registry::builtin()?, BrowserSettings::default()).await
}

pub(super) fn print_json<T: serde::Serialize>(value: &T) -> ExitCode {
    match serde_json::to_string_pretty(value) {
        Ok(s) => {
            out(&s);
            ExitCode::SUCCESS
        }
        Err(e) => fail(&Error::internal("cannot serialise output").with_source(e), EXIT_FAILURE),
    }
}

fn list(registry: &Registry, json: bool) -> ExitCode {
    let specs: Vec<&ToolSpec> = registry.list().collect();
    if json {
        return print_json(&specs);
    }
    let width = specs.iter().map(|s| s.name.len()).max().unwrap_or(4);
    out(&format!("{:width$}  {:9}  {:9}  {:21}  {:6}  CONFIRM", "NAME", "KIND", "STATUS", "SCOPE", "RISK"));
    for s in &specs {
        let kind = serde_json::to_value(s.kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
        let status = match s.status {
            ToolStatus::Available => "available",
            ToolStatus::Planned => "planned",
        };
        out(&format!(
            "{:width$}  {:9}  {:9}  {:21}  {:6}  {}",
            s.name,
            kind,
            status,
            s.permission_scope.as_str(),
            s.risk_level.as_str(),
            if s.requires_confirmation { "yes" } else { "" }
        ));
    }
    let available = specs.iter().filter(|s| s.status == ToolStatus::Available).count();
    out(&format!("{} tools, {available} available now; `halley tools show NAME` for schemas", specs.len()));
    ExitCode::SUCCESS
}

/// Read `--args`: inline JSON, `@file`, or `-` for stdin.
fn read_args(raw: &str) -> Result<Value, Error> {
    let text = if raw == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| Error::invalid_arguments("cannot read arguments from stdin").with_source(e))?;
        s
    } else if let Some(path) = raw.strip_prefix('@') {
        std::fs::read_to_string(path).map_err(|e| {
            Error::new(ErrorCode::InvalidArguments, format!("cannot read arguments file {path}")).with_source(e)
        })?
    } else {
        raw.to_string()
    };
    let value: Value =
        serde_json::from_str(&text).map_err(|e| Error::invalid_arguments(format!("--args is not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(Error::invalid_arguments(
            "--args must be a JSON object, e.g. '{\"url\": \"https://example.com\"}'",
        ));
    }
    Ok(value)
}

fn emit(result: &ToolResultV2, usage: bool) -> ExitCode {
    let printed = print_json(result);
    if printed != ExitCode::SUCCESS {
        return printed;
    }
    match (&result.error, usage) {
        (None, _) => ExitCode::SUCCESS,
        (Some(err), usage) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("halley: error [{}]: {}", err.code, err.message);
            }
            ExitCode::from(if usage { EXIT_USAGE } else { EXIT_FAILURE })
        }
    }
}

/// Where and how a call or script runs.
struct Session<'a> {
    data_dir: Option<&'a Path>,
    browser: BrowserSettings,
    consent: Consent,
}

impl Session<'_> {
    /// The core, and the context of the calls made from the command line
    /// (who answers: the terminal, `--yes` or nobody; allowed origins).
    async fn open(self, registry: Registry) -> Result<(Core, CallContext), Error> {
        let dir = DataDir::resolve(self.data_dir)?;
        let core = crate::host::open_core_full(dir, registry, self.browser).await?;
        let cx = CallContext::new(FrontEnd::Cli)
            .with_confirmer(confirmer(self.consent.confirm, self.consent.yes))
            .with_allowed_origins(self.consent.allow_origins);
        Ok((core, cx))
    }
}

async fn call(registry: Registry, name: &str, raw_args: &str, session: Session<'_>) -> ExitCode {
    // Everything decidable without the data directory is decided first, so
    // bad input writes nothing.
    let args = match read_args(raw_args) {
        Ok(a) => a,
        Err(e) => return emit(&error_result(registry.get(name), &e), true),
    };
    if let Err((spec, err)) = preflight(&registry, name, &args) {
        let usage = matches!(err.code(), ErrorCode::InvalidArguments | ErrorCode::UnknownTool);
        return emit(&error_result(spec, &err), usage);
    }
    let spec = registry.get(name).cloned();
    let mut signals = Signals::install();
    let (core, cx) = match signals.during(session.open(registry)).await {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return emit(&error_result(spec.as_ref(), &e), false),
        Err(stop) => return stop.exit_code(),
    };
    let result = match signals.during(core.call_tool(&cx, name, args)).await {
        Ok(result) => result,
        Err(stop) => return close_for(&core, stop).await,
    };
    core.close().await;
    let usage = result.error.as_ref().is_some_and(|e| e.code == ErrorCode::InvalidArguments);
    emit(&result, usage)
}

/// One parsed line of a script.
struct ScriptStep {
    line: usize,
    tool: String,
    args: Value,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptLine {
    tool: String,
    #[serde(default = "empty_object")]
    args: Value,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// Parse and check every line (JSON, known tool, schema, available), so a
/// bad script runs nothing. Blank lines and `#` comments are skipped.
fn parse_script(registry: &Registry, text: &str) -> Result<Vec<ScriptStep>, Error> {
    let mut steps = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let parsed: ScriptLine = serde_json::from_str(trimmed).map_err(|e| {
            Error::invalid_arguments(format!("line {line}: expected {{\"tool\": NAME, \"args\": {{...}}}}: {e}"))
        })?;
        if let Err((_, err)) = preflight(registry, &parsed.tool, &parsed.args) {
            return Err(Error::new(err.code(), format!("line {line}: {}", err.message())));
        }
        steps.push(ScriptStep { line, tool: parsed.tool, args: parsed.args });
    }
    if steps.is_empty() {
        return Err(Error::invalid_arguments("the script has no calls"));
    }
    Ok(steps)
}

async fn script(registry: Registry, file: &str, keep_going: bool, session: Session<'_>) -> ExitCode {
    let text = if file == "-" {
        let mut s = String::new();
        match std::io::Read::read_to_string(&mut std::io::stdin(), &mut s) {
            Ok(_) => s,
            Err(e) => {
                return fail(&Error::invalid_arguments("cannot read the script from stdin").with_source(e), EXIT_USAGE);
            }
        }
    } else {
        match std::fs::read_to_string(file) {
            Ok(s) => s,
            Err(e) => {
                return fail(
                    &Error::new(ErrorCode::FileNotFound, format!("cannot read script {file}")).with_source(e),
                    EXIT_USAGE,
                );
            }
        }
    };
    let steps = match parse_script(&registry, &text) {
        Ok(s) => s,
        Err(e) => {
            let code = if e.code() == ErrorCode::NotAvailable { EXIT_FAILURE } else { EXIT_USAGE };
            return fail(&e, code);
        }
    };
    let mut signals = Signals::install();
    let (core, cx) = match signals.during(session.open(registry)).await {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return fail(&e, EXIT_FAILURE),
        Err(stop) => return stop.exit_code(),
    };
    let mut failed = false;
    for step in steps {
        let result = match signals.during(core.call_tool(&cx, &step.tool, step.args)).await {
            Ok(result) => result,
            Err(stop) => return close_for(&core, stop).await,
        };
        match serde_json::to_string(&result) {
            Ok(line) => out(&line),
            Err(e) => return fail(&Error::internal("cannot serialise a result").with_source(e), EXIT_FAILURE),
        }
        if let Some(err) = &result.error {
            failed = true;
            #[allow(clippy::print_stderr)]
            {
                eprintln!("halley: line {} ({}) failed [{}]: {}", step.line, step.tool, err.code, err.message);
            }
            if !keep_going {
                break;
            }
        }
    }
    core.close().await;
    if failed { ExitCode::from(EXIT_FAILURE) } else { ExitCode::SUCCESS }
}
