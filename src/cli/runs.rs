//! `halley runs list|show`: what the agent did, from the store: runs with
//! their status and stop reason, and for one run its steps (model, tokens,
//! latency), messages and, with `--traces`, the provider traces (redacted);
//! through the host's `RunHistory`/`ShowRun` as any front end's.

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::Value;

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::core::BrowserSettings;
use crate::error::{Error, ErrorCode};
use crate::host::Host;
use crate::paths::DataDir;
use crate::protocol::{Op, Reply, RunMessage, RunRecord, RunStep, RunToolCall, RunTrace};

#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// The latest runs, newest first.
    List {
        #[arg(long)]
        json: bool,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// One run: its steps and messages.
    Show {
        id: String,
        #[arg(long)]
        json: bool,
        /// Include the provider traces: each model call's request and raw
        /// response, as stored (secrets redacted).
        #[arg(long)]
        traces: bool,
    },
}

pub async fn run(cmd: RunsCommand, data_dir: Option<&Path>) -> ExitCode {
    let dir = match DataDir::resolve(data_dir) {
        Ok(d) => d,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    if !dir.db_path().exists() {
        return match cmd {
            RunsCommand::List { json: true, .. } => {
                out("[]");
                ExitCode::SUCCESS
            }
            RunsCommand::List { .. } => {
                out("no runs yet");
                ExitCode::SUCCESS
            }
            RunsCommand::Show { id, .. } => fail(&Error::not_found(format!("no run `{id}`")), EXIT_USAGE),
        };
    }
    let host = match Host::open(dir, BrowserSettings::default()).await {
        Ok(h) => h,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let code = match cmd {
        RunsCommand::List { json, limit } => match host.handle(Op::RunHistory { limit }).await {
            Ok(Reply::RunHistory { runs }) => list(&runs, json),
            Ok(_) => unexpected(),
            Err(e) => fail(&e, EXIT_FAILURE),
        },
        RunsCommand::Show { id, json, traces } => match host.handle(Op::ShowRun { run_id: id.clone(), traces }).await {
            Ok(Reply::RunDetail { run, steps, tool_calls, messages, traces }) => {
                let detail = Detail { run, steps, calls: tool_calls, messages, traces };
                if json { show_json(&detail) } else { show(detail) }
            }
            Ok(_) => unexpected(),
            Err(e) if e.code() == ErrorCode::NotFound => fail(
                &Error::new(ErrorCode::NotFound, format!("no run `{id}`; `halley runs list` shows them")),
                EXIT_USAGE,
            ),
            Err(e) => fail(&e, EXIT_FAILURE),
        },
    };
    host.close().await;
    code
}

fn unexpected() -> ExitCode {
    fail(&Error::internal("the host did not answer with runs"), EXIT_FAILURE)
}

/// A value's JSON, or null.
fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// A unit enum's name as it is serialised (`completed`, `assistant`).
fn wire_name<T: serde::Serialize>(value: T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn list(runs: &[RunRecord], json_out: bool) -> ExitCode {
    if json_out {
        out(&to_json(&runs).to_string());
        return ExitCode::SUCCESS;
    }
    if runs.is_empty() {
        out("no runs yet");
    }
    for r in runs {
        out(&format!(
            "{}  {:9}  {:18}  {}",
            r.id,
            wire_name(r.status),
            r.stop_reason.as_deref().unwrap_or_default(),
            r.started_at
        ));
    }
    ExitCode::SUCCESS
}

/// One run as the host answered it.
struct Detail {
    run: RunRecord,
    steps: Vec<RunStep>,
    calls: Vec<RunToolCall>,
    messages: Vec<RunMessage>,
    traces: Option<Vec<RunTrace>>,
}

/// `runs show --json`: the run's fields with its `steps`, `tool_calls`,
/// `messages` and (with `--traces`) `traces`.
fn show_json(d: &Detail) -> ExitCode {
    let mut v = to_json(&d.run);
    v["steps"] = to_json(&d.steps);
    v["tool_calls"] = to_json(&d.calls);
    v["messages"] = to_json(&d.messages);
    if let Some(traces) = &d.traces {
        v["traces"] = to_json(traces);
    }
    out(&v.to_string());
    ExitCode::SUCCESS
}

fn show(d: Detail) -> ExitCode {
    let Detail { run, steps, calls, messages, traces } = d;
    out(&format!("run {}  {}  ({})", run.id, wire_name(run.status), run.stop_reason.unwrap_or_default()));
    for s in &steps {
        out(&format!(
            "  step {}  {}  {} ms  tokens {}/{}{}",
            s.idx,
            s.model,
            s.latency_ms.unwrap_or(0),
            s.prompt_tokens.unwrap_or(0),
            s.completion_tokens.unwrap_or(0),
            s.error.as_deref().map(|e| format!("  error: {e}")).unwrap_or_default()
        ));
    }
    for c in &calls {
        let why = c.reasoning.as_deref().map(|r| format!("  (why: {r})")).unwrap_or_default();
        let err = c.error_code.map(|e| format!(" {e}")).unwrap_or_default();
        let args: String = c.arguments.to_string().chars().take(160).collect();
        out(&format!(
            "  call {}  {} {args}  {}{err}  {} ms  [{}]{why}",
            c.call_id, c.tool, c.status, c.duration_ms, c.executor
        ));
    }
    for m in &messages {
        let role = wire_name(m.role);
        let text: String = m.content.clone().unwrap_or_default().chars().take(200).collect();
        let calls = m
            .tool_calls
            .as_ref()
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|c| c.pointer("/function/name").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .filter(|s| !s.is_empty())
            .map(|s| format!(" → {s}"))
            .unwrap_or_default();
        out(&format!("  [{}] {role}: {text}{calls}", m.seq));
    }
    for t in traces.iter().flatten() {
        let step = t.step_idx.map(|i| format!("step {i}  ")).unwrap_or_default();
        let status = t.status.map(|s| format!("  HTTP {s}")).unwrap_or_default();
        let error = t.error.as_deref().map(|e| format!("  error: {e}")).unwrap_or_default();
        out(&format!("  trace {}  {step}POST {}{status}{error}", t.id, t.endpoint));
        out(&format!("    request: {}", t.request));
        match &t.response {
            Some(text) => {
                out("    response:");
                for line in text.lines().filter(|l| !l.is_empty()) {
                    out(&format!("      {line}"));
                }
            }
            None => out("    response: (nothing received)"),
        }
    }
    ExitCode::SUCCESS
}
