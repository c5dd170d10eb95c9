//! A turn's calls written as they run, so a run cut short anywhere goes
//! on from its last durable step and never does a thing twice: a call that
//! may change something (any scope but READ_ONLY) first leaves a
//! placeholder result ("interrupted": see [`interrupted_result`]); each
//! call's result and its row in the run's timeline are written together
//! (one transaction, over the placeholder) as soon as the call ends, before
//! the next call starts. A resumed run reads the placeholder of a call the
//! process died in and does not run it again; calls that never started run.

use std::collections::HashMap;
use std::sync::Mutex;

use super::prompt::tool_message;
use crate::agent::calls::{Executed, Prepared};
use crate::error::{Error, ErrorCode, Result};
use crate::store::Store;
use crate::store::messages::{NewMessage, Role};
use crate::store::tool_calls::{NewToolCall, ToolCallStatus};
use crate::tools::{PermissionScope, Registry, ToolResultV2};

/// Where one turn's calls are written.
pub(crate) struct Journal<'a> {
    pub store: &'a Store,
    pub registry: &'a Registry,
    pub conversation_id: &'a str,
    pub run_id: &'a str,
    pub step_id: Option<&'a str>,
    written: Mutex<Written>,
}

#[derive(Default)]
struct Written {
    /// Call id -> its placeholder message's id.
    placeholders: HashMap<String, String>,
    /// Call id -> the result as the model reads it (what was stored).
    results: HashMap<String, String>,
}

impl<'a> Journal<'a> {
    pub fn new(
        store: &'a Store,
        registry: &'a Registry,
        (conversation_id, run_id): (&'a str, &'a str),
        step_id: Option<&'a str>,
    ) -> Journal<'a> {
        Journal { store, registry, conversation_id, run_id, step_id, written: Mutex::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Written> {
        self.written.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Just before `call` runs: its placeholder, when it may change something.
    pub async fn before(&self, call: &Prepared) -> Result<()> {
        if self.registry.get(&call.name).is_none_or(|s| s.permission_scope == PermissionScope::ReadOnly) {
            return Ok(());
        }
        let content = tool_message(&call.name, &interrupted_result(self.registry, &call.name), false);
        let row = self.store.messages().append_durable(&self.message(call, content)).await?;
        self.lock().placeholders.insert(call.id.clone(), row.id);
        Ok(())
    }

    /// As soon as a call ended: its result and its timeline row.
    pub async fn after(&self, done: &Executed) -> Result<()> {
        let status = if done.result.is_ok() { ToolCallStatus::Ok } else { ToolCallStatus::Error };
        let how = (done.executor, status);
        self.write(&done.call, &done.result, how, (done.duration_ms, &done.started_at), done.effects.page_content).await
    }

    /// A call's outcome in the run's timeline and its result as the model
    /// reads it (fenced when it carries page content), in one transaction,
    /// over its placeholder when it has one.
    pub async fn write(
        &self,
        call: &Prepared,
        result: &ToolResultV2,
        (executor, status): (&str, ToolCallStatus),
        (duration_ms, started_at): (i64, &str),
        page_content: bool,
    ) -> Result<()> {
        let content = tool_message(&call.name, result, page_content);
        let row = NewToolCall {
            run_id: self.run_id,
            step_id: self.step_id,
            call_id: &call.id,
            tool: &call.name,
            arguments: &call.args,
            reasoning: call.reasoning.as_deref(),
            executor,
            status,
            error_code: result.error.as_ref().map(|e| e.code),
            duration_ms,
            started_at,
        };
        let placeholder = self.lock().placeholders.get(&call.id).cloned();
        let message = self.message(call, content.clone());
        self.store.messages().record_tool_result(&message, placeholder.as_deref(), &row).await?;
        self.lock().results.insert(call.id.clone(), content);
        Ok(())
    }

    /// The stored result of `call_id`, once written.
    pub fn result(&self, call_id: &str) -> Option<String> {
        self.lock().results.get(call_id).cloned()
    }

    fn message(&self, call: &Prepared, content: String) -> NewMessage {
        NewMessage {
            conversation_id: self.conversation_id.to_owned(),
            run_id: Some(self.run_id.to_owned()),
            role: Role::Tool,
            content: Some(content),
            tool_calls: None,
            tool_call_id: Some(call.id.clone()),
            tool_name: Some(call.name.clone()),
        }
    }
}

/// The result a call that may change something has while it runs, and
/// keeps when the process ends before it finishes: it may have taken
/// effect, so a resumed run does not run it again.
pub(crate) fn interrupted_result(registry: &Registry, name: &str) -> ToolResultV2 {
    let err = Error::new(
        ErrorCode::Cancelled,
        "Halley stopped (its process ended) while this call ran: it may have taken effect, so it was not run \
         again; check its outcome before doing it again",
    );
    crate::core::error_result(registry.get(name), &err)
}
