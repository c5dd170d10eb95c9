//! `halley watch create|list|show|pause|resume|delete|poll|run|import|export`:
//! the watch tools from the command line, each call a host's `CallTool` (so
//! through the gate: `delete` asks on the terminal unless `--yes`). Alerts a
//! check finds go out as native notifications from here too.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Subcommand;
use serde_json::{Value, json};

use super::confirm::{ConfirmMode, confirmer};
use super::signals::{Signals, close_for};
use super::tools::{asks_nobody, cli_caller};
use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::core::{BrowserSettings, preflight};
use crate::error::{Error, ErrorCode};
use crate::host::{Caller, Host};
use crate::paths::DataDir;
use crate::protocol::{Op, Reply};
use crate::tools::catalogue::data::{WatchCheck, WatchCreateArgs, WatchPollOutput};
use crate::tools::catalogue::watches::{WatchListOutput, WatchSummary};
use crate::tools::{Registry, ToolResultV2};
use crate::watch::format::money;

#[derive(Debug, Subcommand)]
pub enum WatchCommand {
    /// Watch a page: `halley watch create URL --below 19.990.000 --every 6h`.
    /// Checks it at once (a price already under the target alerts now).
    Create {
        url: String,
        /// Alert when the price is at or under this (e.g. `19990000`, `19.990.000 ₫`).
        #[arg(long, value_name = "PRICE")]
        below: Option<String>,
        /// A trigger rule as JSON, e.g. '{"op":"changed","field":"status"}'. Repeatable.
        #[arg(long = "rule", value_name = "JSON")]
        rules: Vec<String>,
        /// How often to check: `30m`, `6h`, `1d`.
        #[arg(long, default_value = "6h", value_name = "PERIOD")]
        every: String,
        /// The name notifications give it.
        #[arg(long)]
        label: Option<String>,
        /// The element to read (CSS), e.g. the product's box on a page listing several.
        #[arg(long)]
        selector: Option<String>,
        /// An extra field to read, `NAME` or `NAME:TYPE` (string, number, boolean, date...). Repeatable.
        #[arg(long = "field", value_name = "NAME[:TYPE]")]
        fields: Vec<String>,
        /// The least time between two alerts: `0m`, `1h` (default).
        #[arg(long, value_name = "PERIOD")]
        cooldown: Option<String>,
        /// Do not check now.
        #[arg(long)]
        no_check: bool,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The watches, with their health and last reading.
    List {
        #[arg(long)]
        json: bool,
    },
    /// One watch: its state, checks and alerts (JSON).
    Show { id: String },
    /// Stop checking a watch until it is resumed.
    Pause { id: String },
    /// Check a paused watch again.
    Resume { id: String },
    /// Delete a watch (asks first, unless --yes).
    Delete {
        id: String,
        /// Delete without asking.
        #[arg(long)]
        yes: bool,
        /// `ask` on the terminal (refused without one) or `deny`.
        #[arg(long, value_enum, default_value_t = ConfirmMode::Ask)]
        confirm: ConfirmMode,
    },
    /// Check one watch now, or the due ones (`--all`: every active one).
    Poll {
        id: Option<String>,
        #[arg(long)]
        all: bool,
        #[arg(long)]
        json: bool,
    },
    /// Check watches as they fall due, until stopped (Ctrl-C): the schedule
    /// is in the database, a check missed while nothing ran runs once.
    Run {
        /// Seconds between two looks at the schedule.
        #[arg(long, default_value_t = 30, value_name = "SECS")]
        tick: u64,
        /// Stop after this many passes (for scripts and tests).
        #[arg(long, value_name = "N")]
        passes: Option<u64>,
    },
    /// Create watches from a JSON file (`-`: stdin): an array of
    /// `watch_create` arguments (or `{"watches": [...]}`). Every entry is
    /// checked before any is created; none is checked now.
    Import { file: String },
    /// Print every watch as `watch_create` arguments (a JSON array `import` reads).
    Export,
}

/// Exit code of a tool error: bad input (arguments, unknown watch) is a usage error.
fn code_of(code: ErrorCode) -> u8 {
    match code {
        ErrorCode::InvalidArguments | ErrorCode::NotFound => EXIT_USAGE,
        _ => EXIT_FAILURE,
    }
}

#[allow(clippy::print_stderr)]
fn tool_failed(result: &ToolResultV2) -> ExitCode {
    let (code, message) =
        result.error.as_ref().map_or((ErrorCode::Internal, "failed".to_owned()), |e| (e.code, e.message.clone()));
    eprintln!("halley: error [{code}]: {message}");
    ExitCode::from(code_of(code))
}

fn print_json(v: &Value) -> ExitCode {
    match serde_json::to_string_pretty(v) {
        Ok(s) => {
            out(&s);
            ExitCode::SUCCESS
        }
        Err(e) => fail(&Error::internal("cannot serialise output").with_source(e), EXIT_FAILURE),
    }
}

struct Session {
    host: Arc<Host>,
    caller: Caller,
    signals: Signals,
}

async fn open(data_dir: Option<&Path>, browser: BrowserSettings, caller: Caller) -> Result<Session, Error> {
    let signals = Signals::install();
    let dir = DataDir::resolve(data_dir)?;
    let host = Host::open(dir, browser).await?;
    Ok(Session { host, caller, signals })
}

impl Session {
    /// One tool call; `Err` is the exit code when it was stopped or failed.
    async fn call(&mut self, name: &str, args: Value) -> Result<Value, ExitCode> {
        call_in(&self.host, &self.caller, &mut self.signals, name, args).await
    }

    async fn close(self) {
        self.host.close().await;
    }
}

/// One tool call through `host` (`CallTool`); `Err` is the exit code when
/// it was stopped or failed (the host closed then).
async fn call_in(
    host: &Arc<Host>,
    caller: &Caller,
    signals: &mut Signals,
    name: &str,
    args: Value,
) -> Result<Value, ExitCode> {
    let op = Op::CallTool { name: name.to_owned(), args };
    let reply = match signals.during(host.handle_as(caller, op)).await {
        Ok(r) => r,
        Err(stop) => return Err(close_for(host.core(), stop).await),
    };
    let result = match reply {
        Ok(Reply::ToolResult { result }) => result,
        Ok(_) => {
            host.close().await;
            return Err(fail(&Error::internal("the host did not answer with the result"), EXIT_FAILURE));
        }
        Err(e) => {
            host.close().await;
            return Err(fail(&e, code_of(e.code())));
        }
    };
    if result.error.is_some() {
        host.close().await;
        return Err(tool_failed(&result));
    }
    Ok(result.data)
}

/// Checks arguments against the tool's schema before anything is opened.
fn checked(name: &str, args: &Value) -> Result<(), ExitCode> {
    let registry = Registry::builtin().map_err(|e| fail(&e, EXIT_FAILURE))?;
    preflight(&registry, name, args).map(drop).map_err(|(_, e)| fail(&e, code_of(e.code())))
}

pub async fn run(cmd: WatchCommand, data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let (name, args, json_out) = match cmd {
        WatchCommand::Create { url, below, rules, every, label, selector, fields, cooldown, no_check, json } => {
            match create_args(url, below, rules, every, label, selector, fields, cooldown, no_check) {
                Ok(args) => ("watch_create", args, json),
                Err(e) => return fail(&e, EXIT_USAGE),
            }
        }
        WatchCommand::List { json } => ("watch_list", json!({}), json),
        WatchCommand::Show { id } => ("watch_history", json!({"watch_id": id}), true),
        WatchCommand::Pause { id } => ("watch_pause", json!({"watch_id": id}), false),
        WatchCommand::Resume { id } => ("watch_resume", json!({"watch_id": id}), false),
        WatchCommand::Delete { id, yes, confirm } => {
            return one(
                data_dir,
                browser,
                cli_caller(confirmer(confirm, yes), Vec::new()),
                "watch_delete",
                json!({"watch_id": id}),
                false,
            )
            .await;
        }
        WatchCommand::Poll { id, all, json } => {
            let args = match id {
                Some(id) => json!({"watch_id": id}),
                None => json!({"all": all}),
            };
            ("watch_poll", args, json)
        }
        WatchCommand::Run { tick, passes } => return run_loop(data_dir, browser, tick, passes).await,
        WatchCommand::Import { file } => return import(data_dir, browser, &file).await,
        WatchCommand::Export => return export(data_dir, browser).await,
    };
    one(data_dir, browser, asks_nobody(), name, args, json_out).await
}

async fn one(
    data_dir: Option<&Path>,
    browser: BrowserSettings,
    caller: Caller,
    name: &str,
    args: Value,
    json_out: bool,
) -> ExitCode {
    if let Err(code) = checked(name, &args) {
        return code;
    }
    let mut session = match open(data_dir, browser, caller).await {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let data = match session.call(name, args).await {
        Ok(d) => d,
        Err(code) => return code,
    };
    session.close().await;
    if json_out {
        return print_json(&data);
    }
    match name {
        "watch_create" => {
            let id = data["watch_id"].as_str().unwrap_or_default();
            out(&format!("created {id}; next check at {}", data["next_check_at"].as_str().unwrap_or_default()));
            if let Ok(check) = serde_json::from_value::<WatchCheck>(data["check"].clone()) {
                print_check(&check);
            }
        }
        "watch_list" => match serde_json::from_value::<WatchListOutput>(data) {
            Ok(list) => print_list(&list),
            Err(e) => return fail(&Error::internal("unexpected output").with_source(e), EXIT_FAILURE),
        },
        "watch_poll" => match serde_json::from_value::<WatchPollOutput>(data) {
            Ok(poll) if poll.checks.is_empty() => out("no watch is due"),
            Ok(poll) => poll.checks.iter().for_each(print_check),
            Err(e) => return fail(&Error::internal("unexpected output").with_source(e), EXIT_FAILURE),
        },
        "watch_delete" => out(&format!("deleted {}", data["watch_id"].as_str().unwrap_or_default())),
        _ => match serde_json::from_value::<WatchSummary>(data) {
            Ok(w) => out(&format!("{} is {}", w.watch_id, w.status)),
            Err(e) => return fail(&Error::internal("unexpected output").with_source(e), EXIT_FAILURE),
        },
    }
    ExitCode::SUCCESS
}

fn print_check(c: &WatchCheck) {
    let mut what = Vec::new();
    if let Some(p) = c.price {
        what.push(money(p, c.currency.as_deref()));
    }
    match c.in_stock {
        Some(true) => what.push("in stock".into()),
        Some(false) => what.push("out of stock".into()),
        None => {}
    }
    for (k, v) in &c.fields {
        what.push(format!("{k}: {}", v.as_str().map_or_else(|| v.to_string(), str::to_owned)));
    }
    let how = c.method.as_deref().map(|m| format!(" via {m}")).unwrap_or_default();
    let health = serde_json::to_value(c.health).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
    out(&format!("{} [{health}{how}] {}", c.watch_id, what.join(", ")));
    if let Some(e) = &c.error {
        out(&format!("  note: {e}"));
    }
    for f in &c.fired_rules {
        out(&format!("  alert: {} ({})", f.message, f.rule));
    }
}

fn print_list(list: &WatchListOutput) {
    for w in &list.watches {
        let price = w.price.map(|p| money(p, w.currency.as_deref())).unwrap_or_else(|| "—".into());
        let health =
            serde_json::to_value(w.health).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        let name = if w.label.is_empty() { w.url.as_str() } else { w.label.as_str() };
        out(&format!(
            "{}  {:6}  {:8}  {:>16}  every {:4}  next {}  {name}",
            w.watch_id, w.status, health, price, w.frequency, w.next_check_at
        ));
    }
    out(&format!("{} watches, {} unread alerts", list.watches.len(), list.unread_alerts));
}

#[allow(clippy::too_many_arguments)]
fn create_args(
    url: String,
    below: Option<String>,
    rules: Vec<String>,
    every: String,
    label: Option<String>,
    selector: Option<String>,
    fields: Vec<String>,
    cooldown: Option<String>,
    no_check: bool,
) -> Result<Value, Error> {
    let mut trigger_rules = Vec::new();
    if let Some(below) = below {
        let amount = below
            .trim()
            .parse::<f64>()
            .ok()
            .or_else(|| crate::watch::money::parse_amount(&below).map(|(a, _)| a))
            .ok_or_else(|| {
                Error::invalid_arguments(format!("--below {below:?} is not a price (e.g. 19990000 or 19.990.000 ₫)"))
            })?;
        trigger_rules.push(json!({"op": "<=", "value": amount}));
    }
    for r in rules {
        let v: Value =
            serde_json::from_str(&r).map_err(|e| Error::invalid_arguments(format!("--rule {r:?} is not JSON: {e}")))?;
        trigger_rules.push(v);
    }
    if trigger_rules.is_empty() {
        return Err(Error::invalid_arguments(
            "give the watch a rule: --below PRICE, or --rule JSON (e.g. '{\"op\":\"changed\",\"field\":\"status\"}')",
        ));
    }
    let mut schema = serde_json::Map::new();
    for f in fields {
        let (name, ty) = f.split_once(':').unwrap_or((f.as_str(), "string"));
        schema.insert(name.trim().to_owned(), Value::String(ty.trim().to_owned()));
    }
    let mut target = json!({"url": url});
    if let Some(s) = selector {
        target["selector"] = Value::String(s);
    }
    if !schema.is_empty() {
        target["schema"] = Value::Object(schema);
    }
    let mut args = json!({"target": target, "trigger_rules": trigger_rules, "frequency": every});
    if let Some(l) = label {
        args["label"] = Value::String(l);
    }
    if let Some(c) = cooldown {
        args["cooldown"] = Value::String(c);
    }
    if no_check {
        args["check_now"] = Value::Bool(false);
    }
    Ok(args)
}

/// The entries of an import file, each checked (schema, URL, frequency,
/// rules) before anything is written.
fn import_entries(text: &str) -> Result<Vec<Value>, Error> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| Error::invalid_arguments(format!("the file is not JSON: {e}")))?;
    let entries = match v {
        Value::Array(items) => items,
        Value::Object(mut map) => match map.remove("watches") {
            Some(Value::Array(items)) => items,
            _ => return Err(Error::invalid_arguments("expected a JSON array of watches, or {\"watches\": [...]}")),
        },
        _ => return Err(Error::invalid_arguments("expected a JSON array of watches, or {\"watches\": [...]}")),
    };
    if entries.is_empty() {
        return Err(Error::invalid_arguments("the file has no watches"));
    }
    let registry = Registry::builtin()?;
    let mut out = Vec::with_capacity(entries.len());
    for (i, mut entry) in entries.into_iter().enumerate() {
        let n = i + 1;
        // A bare URL string is a watch with no rule: refused with the rest.
        if let Value::Object(map) = &mut entry {
            map.insert("check_now".into(), Value::Bool(false));
        }
        preflight(&registry, "watch_create", &entry)
            .map_err(|(_, e)| Error::invalid_arguments(format!("watch {n}: {}", e.message())))?;
        let args: WatchCreateArgs =
            serde_json::from_value(entry.clone()).map_err(|e| Error::invalid_arguments(format!("watch {n}: {e}")))?;
        crate::watch::tools::new_watch(&args)
            .map_err(|e| Error::invalid_arguments(format!("watch {n}: {}", e.message())))?;
        out.push(entry);
    }
    Ok(out)
}

async fn import(data_dir: Option<&Path>, browser: BrowserSettings, file: &str) -> ExitCode {
    let text = super::read_input(file);
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            return fail(
                &Error::new(ErrorCode::FileNotFound, format!("cannot read {file}")).with_source(e),
                EXIT_USAGE,
            );
        }
    };
    let entries = match import_entries(&text) {
        Ok(e) => e,
        Err(e) => return fail(&e, EXIT_USAGE),
    };
    let mut session = match open(data_dir, browser, asks_nobody()).await {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let mut ids = Vec::new();
    for entry in entries {
        match session.call("watch_create", entry).await {
            Ok(data) => ids.push(data["watch_id"].as_str().unwrap_or_default().to_owned()),
            Err(code) => return code,
        }
    }
    session.close().await;
    for id in &ids {
        out(id);
    }
    out(&format!("imported {} watches", ids.len()));
    ExitCode::SUCCESS
}

async fn export(data_dir: Option<&Path>, browser: BrowserSettings) -> ExitCode {
    let mut session = match open(data_dir, browser, asks_nobody()).await {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let data = match session.call("watch_list", json!({"limit": 1000})).await {
        Ok(d) => d,
        Err(code) => return code,
    };
    session.close().await;
    let list: WatchListOutput = match serde_json::from_value(data) {
        Ok(l) => l,
        Err(e) => return fail(&Error::internal("unexpected output").with_source(e), EXIT_FAILURE),
    };
    let watches: Vec<Value> = list
        .watches
        .iter()
        .rev()
        .map(|w| {
            let mut target = json!({"url": w.url});
            if let Some(s) = &w.selector {
                target["selector"] = json!(s);
            }
            if !w.schema.is_empty() {
                target["schema"] = json!(w.schema);
            }
            let mut args = json!({"target": target, "trigger_rules": w.trigger_rules, "frequency": w.frequency, "cooldown": w.cooldown});
            if !w.label.is_empty() {
                args["label"] = json!(w.label);
            }
            if let Some(window) = &w.window {
                args["window"] = json!(window);
            }
            args
        })
        .collect();
    print_json(&Value::Array(watches))
}

/// `halley watch run`: the due watches, pass after pass. The schedule is
/// `next_check_at` in the database, so a check missed while nothing ran is
/// due once (not once per missed slot); each check moves it one period on
/// from when it ran, plus a little jitter so watches of one site spread out.
async fn run_loop(data_dir: Option<&Path>, browser: BrowserSettings, tick: u64, passes: Option<u64>) -> ExitCode {
    let Session { host, caller, mut signals } = match open(data_dir, browser, asks_nobody()).await {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    // The buttons of the notifications this process shows act while it runs.
    let buttons = host.answer_notification_buttons();
    let passing = async {
        let mut done = 0;
        loop {
            let data = call_in(&host, &caller, &mut signals, "watch_poll", json!({})).await?;
            if let Ok(poll) = serde_json::from_value::<WatchPollOutput>(data) {
                poll.checks.iter().for_each(print_check);
            }
            done += 1;
            if passes.is_some_and(|p| done >= p) {
                host.close().await;
                return Ok::<(), ExitCode>(());
            }
            let wait = tokio::time::sleep(Duration::from_secs(tick.max(1)));
            if let Err(stop) = signals.during(wait).await {
                return Err(close_for(host.core(), stop).await);
            }
        }
    };
    let outcome = tokio::select! {
        outcome = passing => outcome,
        () = buttons => Ok(()),
    };
    outcome.err().unwrap_or(ExitCode::SUCCESS)
}
