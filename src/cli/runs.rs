//! `halley runs list|show`: what the agent did, from the store: runs with
//! their status and stop reason, and for one run its steps (model, tokens,
//! latency), messages and, with `--traces`, the provider traces (redacted).

use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::{Value, json};

use super::{EXIT_FAILURE, EXIT_USAGE, fail, out};
use crate::error::{Error, ErrorCode};
use crate::paths::DataDir;
use crate::store::Store;

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
    let store = match Store::open(&dir.db_path()).await {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let code = match cmd {
        RunsCommand::List { json, limit } => list(&store, json, limit).await,
        RunsCommand::Show { id, json, traces } => show(&store, &id, json, traces).await,
    };
    store.close().await;
    code
}

async fn list(store: &Store, json_out: bool, limit: u32) -> ExitCode {
    let runs = match store.runs().list(limit).await {
        Ok(r) => r,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    if json_out {
        let rows: Vec<Value> = runs
            .iter()
            .map(|r| {
                json!({"id": r.id, "status": r.status, "stop_reason": r.stop_reason, "started_at": r.started_at,
                       "ended_at": r.ended_at, "conversation_id": r.conversation_id})
            })
            .collect();
        out(&Value::Array(rows).to_string());
        return ExitCode::SUCCESS;
    }
    if runs.is_empty() {
        out("no runs yet");
    }
    for r in runs {
        out(&format!(
            "{}  {:9}  {:18}  {}",
            r.id,
            serde_json::to_value(r.status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            r.stop_reason.unwrap_or_default(),
            r.started_at
        ));
    }
    ExitCode::SUCCESS
}

async fn show(store: &Store, id: &str, json_out: bool, with_traces: bool) -> ExitCode {
    let run = match store.runs().get(id).await {
        Ok(Some(r)) => r,
        Ok(None) => {
            return fail(
                &Error::new(ErrorCode::NotFound, format!("no run `{id}`; `halley runs list` shows them")),
                EXIT_USAGE,
            );
        }
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let steps = match store.steps().for_run(id).await {
        Ok(s) => s,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let messages = match &run.conversation_id {
        Some(c) => match store.messages().for_conversation(c).await {
            Ok(m) => m.into_iter().filter(|m| m.run_id.as_deref() == Some(id)).collect(),
            Err(e) => return fail(&e, EXIT_FAILURE),
        },
        None => Vec::new(),
    };
    let calls = match store.tool_calls().for_run(id).await {
        Ok(c) => c,
        Err(e) => return fail(&e, EXIT_FAILURE),
    };
    let traces = if with_traces {
        match store.provider_traces().for_run(id).await {
            Ok(t) => t,
            Err(e) => return fail(&e, EXIT_FAILURE),
        }
    } else {
        Vec::new()
    };
    let step_idx =
        |step_id: &Option<String>| step_id.as_ref().and_then(|sid| steps.iter().find(|s| &s.id == sid)).map(|s| s.idx);
    let steps_json: Vec<Value> = steps
        .iter()
        .map(|s| {
            json!({"idx": s.idx, "model": s.model, "status": s.status, "prompt_tokens": s.prompt_tokens,
                   "completion_tokens": s.completion_tokens, "latency_ms": s.latency_ms, "error": s.error})
        })
        .collect();
    let messages_json: Vec<Value> = messages
        .iter()
        .map(|m| {
            json!({"seq": m.seq, "role": m.role, "content": m.content, "tool_calls": m.tool_calls,
                   "tool_call_id": m.tool_call_id, "tool_name": m.tool_name})
        })
        .collect();
    let calls_json: Vec<Value> = calls
        .iter()
        .map(|c| {
            json!({"call_id": c.call_id, "step_idx": step_idx(&c.step_id), "tool": c.tool, "arguments": c.arguments,
                   "reasoning": c.reasoning, "executor": c.executor, "status": c.status,
                   "error_code": c.error_code, "duration_ms": c.duration_ms, "started_at": c.started_at})
        })
        .collect();
    if json_out {
        let mut v = json!({"id": run.id, "conversation_id": run.conversation_id, "status": run.status,
                           "stop_reason": run.stop_reason, "started_at": run.started_at, "ended_at": run.ended_at,
                           "steps": steps_json, "tool_calls": calls_json, "messages": messages_json});
        if with_traces {
            v["traces"] = traces
                .iter()
                .map(|t| {
                    json!({"id": t.id, "step_id": t.step_id, "step_idx": step_idx(&t.step_id), "endpoint": t.endpoint,
                           "status": t.status, "error": t.error, "request": t.request, "response": t.response,
                           "created_at": t.created_at})
                })
                .collect();
        }
        out(&v.to_string());
        return ExitCode::SUCCESS;
    }
    out(&format!(
        "run {}  {}  ({})",
        run.id,
        serde_json::to_value(run.status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
        run.stop_reason.unwrap_or_default()
    ));
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
        let role = serde_json::to_value(m.role).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
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
    for t in &traces {
        let step = step_idx(&t.step_id).map(|i| format!("step {i}  ")).unwrap_or_default();
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
