//! `halley tools list|show|call|script|register|unregister`, through a
//! [`Host`]'s ops as the panel's (`ListTools`, `CallTool`, `RegisterTool`,
//! `UnregisterTool`); the calls are the command line's: its own
//! confirmations (the terminal, `--yes`, `--confirm deny`) and origins.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Subcommand;
use serde_json::Value;

use super::confirm::{ConfirmMode, confirmer};
use super::signals::{Signals, Stop, close_for};
use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::context::FrontEnd;
use crate::core::{BrowserSettings, error_result, preflight};
use crate::error::{Error, ErrorCode};
use crate::gate::{Confirmer, DenyAll};
use crate::host::{Caller, Host};
use crate::paths::DataDir;
use crate::protocol::{Op, Reply};
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
    let dir = match DataDir::resolve(data_dir) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    match cmd {
        ToolsCommand::Register { file } => register(&file, dir, browser).await,
        ToolsCommand::Unregister { name } => unregister(&name, dir, browser).await,
        ToolsCommand::List { json } => match Tools::open(dir, browser).await {
            Ok(tools) => {
                let done = list(&tools.registry, json);
                tools.close().await;
                done
            }
            Err(e) => fail(&e, EXIT_FAILURE),
        },
        ToolsCommand::Show { name } => match Tools::open(dir, browser).await {
            Ok(tools) => {
                let done = match tools.registry.lookup(&name) {
                    Ok(spec) => print_json(spec),
                    Err(e) => fail(&e, EXIT_USAGE),
                };
                tools.close().await;
                done
            }
            Err(e) => fail(&e, EXIT_FAILURE),
        },
        ToolsCommand::Call { name, args, consent } => call(&name, &args, dir, browser, consent).await,
        ToolsCommand::Script { file, keep_going, consent } => script(&file, keep_going, dir, browser, consent).await,
    }
}

/// The command line as the caller of its ops: the terminal, `--yes` or
/// nobody answers its tool calls' questions; `allowed_origins` (empty: no
/// limit) bound where they act.
pub(super) fn cli_caller(confirmer: Arc<dyn Confirmer>, allowed_origins: Vec<String>) -> Caller {
    Caller { front_end: FrontEnd::Cli, confirmer, allowed_origins, cancel: crate::context::Cancel::new() }
}

/// The command line as the caller of ops that ask nobody.
pub(super) fn asks_nobody() -> Caller {
    cli_caller(Arc::new(DenyAll), Vec::new())
}

/// The tools of a data directory and, when it has a database, the host
/// they came from, kept open for the command's calls.
struct Tools {
    dir: DataDir,
    browser: BrowserSettings,
    registry: Registry,
    host: Option<Arc<Host>>,
}

impl Tools {
    /// The built-in tools when the data directory has no database (nothing
    /// is opened or created then), else the host's (`ListTools`: with the
    /// blueprints registered and the MCP servers' tools).
    async fn open(dir: DataDir, browser: BrowserSettings) -> Result<Tools, Error> {
        if !dir.db_path().exists() {
            return Ok(Tools { dir, browser, registry: Registry::builtin()?, host: None });
        }
        let host = Host::open(dir.clone(), browser.clone()).await?;
        let listed = match host.handle_as(&asks_nobody(), Op::ListTools).await {
            Ok(Reply::Tools { tools }) => Registry::new(tools),
            Ok(_) => Err(Error::internal("the host did not answer with the tools")),
            Err(e) => Err(e),
        };
        match listed {
            Ok(registry) => Ok(Tools { dir, browser, registry, host: Some(host) }),
            Err(e) => {
                host.close().await;
                Err(e)
            }
        }
    }

    /// The host, opened now if it was not (this creates the data directory).
    async fn host(&mut self) -> Result<Arc<Host>, Error> {
        if let Some(host) = &self.host {
            return Ok(Arc::clone(host));
        }
        let host = Host::open(self.dir.clone(), self.browser.clone()).await?;
        self.host = Some(Arc::clone(&host));
        Ok(host)
    }

    async fn close(self) {
        if let Some(host) = self.host {
            host.close().await;
        }
    }
}

async fn register(file: &str, dir: DataDir, browser: BrowserSettings) -> ExitCode {
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
    let host = match Host::open(dir, browser).await {
        Ok(h) => h,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let done = host.handle_as(&asks_nobody(), Op::RegisterTool { blueprint }).await;
    host.close().await;
    match done {
        Ok(Reply::Tool { tool: spec }) => {
            let how = match (spec.executor, spec.activity.as_deref()) {
                (crate::tools::Executor::Implicit, _) => "the model produces its `_output`".to_owned(),
                (_, Some(a)) if spec.status == ToolStatus::Available => format!("run by `{a}`"),
                _ => format!("not available yet: it needs {}", spec.needs.as_deref().unwrap_or("a later release")),
            };
            out(&format!("registered `{}` ({how}); `halley tools show {}` for its schemas", spec.name, spec.name));
            ExitCode::SUCCESS
        }
        Ok(_) => fail(&Error::internal("the host did not answer with the tool"), EXIT_FAILURE),
        Err(e) => fail(&e, EXIT_FAILURE),
    }
}

async fn unregister(name: &str, dir: DataDir, browser: BrowserSettings) -> ExitCode {
    let host = match Host::open(dir, browser).await {
        Ok(h) => h,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let done = host.handle_as(&asks_nobody(), Op::UnregisterTool { name: name.to_owned() }).await;
    host.close().await;
    match done {
        Ok(_) => {
            out(&format!("unregistered `{name}`"));
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e, EXIT_USAGE),
    }
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

impl Consent {
    /// The caller of the calls made from the command line: who answers
    /// (the terminal, `--yes` or nobody) and the allowed origins.
    fn caller(self) -> Caller {
        cli_caller(confirmer(self.confirm, self.yes), self.allow_origins)
    }
}

/// One call through the host (`CallTool`), as its result.
async fn send_call(
    host: &Arc<Host>,
    caller: &Caller,
    name: &str,
    args: Value,
    spec: Option<&ToolSpec>,
) -> ToolResultV2 {
    match host.handle_as(caller, Op::CallTool { name: name.to_owned(), args }).await {
        Ok(Reply::ToolResult { result }) => result,
        Ok(_) => error_result(spec, &Error::internal("the host did not answer with the result")),
        Err(e) => error_result(spec, &e),
    }
}

async fn call(name: &str, raw_args: &str, dir: DataDir, browser: BrowserSettings, consent: Consent) -> ExitCode {
    let mut tools = match Tools::open(dir, browser).await {
        Ok(t) => t,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    // Everything decidable without the data directory is decided first, so
    // bad input writes nothing.
    let refused = match read_args(raw_args) {
        Ok(args) => match preflight(&tools.registry, name, &args) {
            Ok(_) => Ok(args),
            Err((spec, err)) => {
                let usage = matches!(err.code(), ErrorCode::InvalidArguments | ErrorCode::UnknownTool);
                Err((error_result(spec, &err), usage))
            }
        },
        Err(e) => Err((error_result(tools.registry.get(name), &e), true)),
    };
    let args = match refused {
        Ok(args) => args,
        Err((result, usage)) => {
            tools.close().await;
            return emit(&result, usage);
        }
    };
    let spec = tools.registry.get(name).cloned();
    let mut signals = Signals::install();
    let host = match signals.during(tools.host()).await {
        Ok(Ok(h)) => h,
        Ok(Err(e)) => return emit(&error_result(spec.as_ref(), &e), false),
        Err(stop) => return stopped_early(tools, stop).await,
    };
    let caller = consent.caller();
    let result = match signals.during(send_call(&host, &caller, name, args, spec.as_ref())).await {
        Ok(result) => result,
        Err(stop) => return close_for(host.core(), stop).await,
    };
    host.close().await;
    let usage = result.error.as_ref().is_some_and(|e| e.code == ErrorCode::InvalidArguments);
    emit(&result, usage)
}

/// After a signal before any call: a host already open (for its tools)
/// is closed; no browser was started.
async fn stopped_early(tools: Tools, stop: Stop) -> ExitCode {
    tools.close().await;
    stop.exit_code()
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

async fn script(file: &str, keep_going: bool, dir: DataDir, browser: BrowserSettings, consent: Consent) -> ExitCode {
    let mut tools = match Tools::open(dir, browser).await {
        Ok(t) => t,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let text = if file == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map(|_| s)
            .map_err(|e| Error::invalid_arguments("cannot read the script from stdin").with_source(e))
    } else {
        std::fs::read_to_string(file)
            .map_err(|e| Error::new(ErrorCode::FileNotFound, format!("cannot read script {file}")).with_source(e))
    };
    let steps = match text.and_then(|text| parse_script(&tools.registry, &text)) {
        Ok(s) => s,
        Err(e) => {
            tools.close().await;
            let code = if e.code() == ErrorCode::NotAvailable { EXIT_FAILURE } else { EXIT_USAGE };
            return fail(&e, code);
        }
    };
    let specs: Vec<Option<ToolSpec>> = steps.iter().map(|s| tools.registry.get(&s.tool).cloned()).collect();
    let mut signals = Signals::install();
    let host = match signals.during(tools.host()).await {
        Ok(Ok(h)) => h,
        Ok(Err(e)) => return fail(&e, EXIT_FAILURE),
        Err(stop) => return stopped_early(tools, stop).await,
    };
    let caller = consent.caller();
    let mut failed = false;
    for (step, spec) in steps.into_iter().zip(specs) {
        let result = match signals.during(send_call(&host, &caller, &step.tool, step.args, spec.as_ref())).await {
            Ok(result) => result,
            Err(stop) => return close_for(host.core(), stop).await,
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
    host.close().await;
    if failed { ExitCode::from(EXIT_FAILURE) } else { ExitCode::SUCCESS }
}
