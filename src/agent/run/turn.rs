//! One run's loop: model turns until an answer, a limit, an error or a
//! cancel; each turn's calls run through the core in the run's context,
//! their results recorded and given back to the model; the run pauses while
//! its user is asked.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::super::budget as context;
use super::super::calls::{self, Executed, Prepared};
use super::super::control::{Observed, StepRelay, Waiting};
use super::super::textcalls::{self, Offered, Reading, TokenGate};
use super::super::trace;
use super::super::{Completion, ModelClient, StreamEvent, ToolCallOut};
use super::cut::Cut;
use super::guard::{Judgement, LoopGuard};
use super::prompt::{self, offered_definitions};
use super::{AgentEvent, Journal, RunLimits, RunOutcome};
use crate::context::CallContext;
use crate::core::Core;
use crate::error::{Error, ErrorCode, Result};
use crate::store::messages::{NewMessage, Role};
use crate::store::runs::{RunStatus, StopReason};
use crate::store::steps::{NewStep, StepOutcome, StepStatus};
use crate::store::tool_calls::ToolCallStatus;
use crate::tools::Registry;
use crate::tools::offer::{self, Offer};

/// Why the loop stopped.
pub(super) type Stop = (RunStatus, StopReason);

/// `text`, a message of the person's, as the model reads it: each value
/// sensitive by its shape replaced by its placeholder, the values kept (in
/// memory, for run `run_id`) for the browser tools to fill in and the gate
/// to watch for ([`crate::secrets::message`]).
fn seal_for(core: &Core, run_id: &str, text: &str) -> String {
    let sealed = crate::secrets::message::seal(text);
    if !sealed.values.is_empty() {
        core.store().sensitive_results().keep_sealed(run_id, &sealed.values);
    }
    sealed.text
}

/// How a run stops once its cancel switch is on: cancelled, or paused
/// (`interrupted`, resumable) when Halley is closing.
pub(crate) fn cancelled_stop(cancel: &crate::context::Cancel) -> Stop {
    if cancel.is_interrupted() {
        (RunStatus::Paused, StopReason::Interrupted)
    } else {
        (RunStatus::Cancelled, StopReason::Cancelled)
    }
}

/// One run's state while it goes.
pub(super) struct Loop<'a> {
    core: &'a Core,
    client: &'a ModelClient,
    model: &'a str,
    limits: &'a RunLimits,
    /// The run's context: its id, and its confirmer wrapped to report
    /// when the run pauses on the user.
    cx: CallContext,
    /// The tools as the last turn saw them: registered or unregistered
    /// tools show from the next turn; a call runs on the snapshot its turn
    /// offered.
    registry: Arc<Registry>,
    run_id: String,
    conversation_id: String,
    agent_id: String,
    pub(super) messages: Vec<Value>,
    /// Earlier messages were left out to fit the context (the system
    /// prompt says so).
    trimmed: bool,
    /// The core memory or the profile may have changed (at the start, and
    /// after a call that edits them): the system message and the secrets
    /// redacted from traces are read again before the next model call.
    stale: bool,
    /// The profile's sensitive values, kept out of provider traces (with
    /// those of the client results marked sensitive, read at each turn).
    secrets: Vec<String>,
    tools: Vec<Value>,
    /// Which tools the requests offer: the core set and what was loaded
    /// (by the loader, the user's words, a call of a tool not offered yet).
    offer: Offer,
    /// `offer` or the registry changed: `tools` is built again before the
    /// next request.
    reoffer: bool,
    images: bool,
    pub(super) steps: u32,
    guard: LoopGuard,
    /// Turns in a row whose reply could not be used (a call written as text
    /// that could not be read, thinking alone): the first is sent back with
    /// a correction, the second ends the run.
    unreadable: u32,
    /// Turns in a row the server stopped at its length limit: the first is
    /// asked again, shorter; the second ends the run.
    cut_short: u32,
    rx: Option<mpsc::UnboundedReceiver<Waiting>>,
    /// Whether every call of the last batch [`Loop::run_calls`] ran succeeded.
    last_ok: bool,
    /// Pending writes of the run's paused/running status, in order.
    status_writes: Option<tokio::task::JoinHandle<()>>,
    /// Provider traces being written.
    trace_writes: Vec<tokio::task::JoinHandle<()>>,
}

impl<'a> Loop<'a> {
    /// The set-up a new run and a resumed one share: a loop going on from
    /// `history` (the conversation so far, as the model reads it), hearing
    /// the questions its calls put to the user. The system message is a
    /// placeholder, written on the first turn (see `stale`).
    pub(super) fn start(
        core: &'a Core,
        client: &'a ModelClient,
        model: &'a str,
        limits: &'a RunLimits,
        cx: &CallContext,
        (run_id, conversation_id, agent_id): (String, String, String),
        history: impl IntoIterator<Item = Value>,
    ) -> Loop<'a> {
        let (tx, rx) = mpsc::unbounded_channel();
        let observed = Arc::new(Observed { inner: Arc::clone(&cx.confirmer), tx: tx.clone() });
        let registry = core.registry();
        let mut messages: Vec<Value> =
            std::iter::once(json!({"role": "system", "content": ""})).chain(history).collect();
        // The person's own words reach the model sealed (their values as
        // placeholders the browser tools fill in).
        for m in messages.iter_mut().filter(|m| m["role"] == "user") {
            if let Some(text) = m["content"].as_str() {
                let sealed = seal_for(core, &run_id, text);
                m["content"] = Value::String(sealed);
            }
        }
        // What the conversation so far read of others' words counts as read.
        let cx = cx
            .clone()
            .with_run(run_id.clone())
            .with_confirmer(observed)
            .with_steps(Some(Arc::new(StepRelay { tx })))
            .with_reads(prompt::sources_in_history(&messages, &registry));
        let offer = Offer::from_history(&messages, &registry);
        Loop {
            core,
            client,
            model,
            limits,
            cx,
            tools: offered_definitions(&registry, &offer),
            offer,
            reoffer: false,
            registry,
            run_id,
            conversation_id,
            agent_id,
            messages,
            trimmed: false,
            stale: true,
            secrets: Vec::new(),
            images: limits.images.unwrap_or_else(|| context::accepts_images(model)),
            steps: 0,
            guard: LoopGuard::default(),
            unreadable: 0,
            cut_short: 0,
            rx: Some(rx),
            last_ok: true,
            status_writes: None,
            trace_writes: Vec::new(),
        }
    }

    /// The user's task: its words may call for more tools.
    pub(super) fn push_task(&mut self, task: &str) {
        let sealed = seal_for(self.core, &self.run_id, task);
        self.messages.push(json!({"role": "user", "content": sealed}));
        self.reoffer |= self.offer.note_words(task, &self.registry);
    }

    async fn record(
        &self,
        role: Role,
        content: Option<String>,
        calls: Option<Value>,
        call: Option<(&str, &str)>,
    ) -> Result<()> {
        self.core
            .store()
            .messages()
            .append(&NewMessage {
                conversation_id: self.conversation_id.clone(),
                run_id: Some(self.run_id.clone()),
                role,
                content,
                tool_calls: calls,
                tool_call_id: call.map(|c| c.0.to_owned()),
                tool_name: call.map(|c| c.1.to_owned()),
            })
            .await?;
        Ok(())
    }

    /// Run the loop to its end and record how it ended.
    pub(super) async fn drive(&mut self, on_event: &mut impl FnMut(AgentEvent)) -> Result<RunOutcome> {
        match self.turns(on_event).await {
            Ok((stop, answer)) => self.finish(stop, answer, on_event).await,
            Err(e) => {
                let store = self.core.store();
                let _ = store.runs().set_status(&self.run_id, RunStatus::Failed, Some(StopReason::InternalError)).await;
                Err(e)
            }
        }
    }

    /// Model turns until an answer, a limit, an error or a cancel.
    async fn turns(&mut self, on_event: &mut impl FnMut(AgentEvent)) -> Result<(Stop, Option<String>)> {
        let store = self.core.store();
        loop {
            if self.cx.cancel.is_cancelled() {
                return Ok((cancelled_stop(&self.cx.cancel), None));
            }
            // Tools registered or unregistered since the last turn.
            let now = self.core.registry();
            if !Arc::ptr_eq(&now, &self.registry) {
                self.registry = now;
                self.reoffer = true;
            }
            if std::mem::take(&mut self.reoffer) {
                self.tools = offered_definitions(&self.registry, &self.offer);
            }
            if self.steps >= self.limits.max_steps {
                return Ok(((RunStatus::Failed, StopReason::MaxSteps), None));
            }
            self.steps += 1;
            let step = store.steps().insert(&NewStep::started(&self.run_id, self.model)).await?;
            if self.stale {
                let system = prompt::system_prompt(self.core.store(), &self.agent_id, self.trimmed).await?;
                if let Some(first) = self.messages.first_mut() {
                    *first = json!({"role": "system", "content": system});
                }
                self.secrets =
                    crate::gate::secrets::profile_values(store).await?.into_iter().map(|s| s.value).collect();
                self.stale = false;
            }
            // A local model's own context (Ollama) may hold less than the run's budget.
            let budget = match self.client.prompt_budget(self.model).await {
                Some(fits) => fits.min(self.limits.context_tokens),
                None => self.limits.context_tokens,
            };
            // A model without tool calling reads the tools as compact text, not schemas.
            let tools_cost = if self.client.emulates_tools(self.model).await {
                context::estimate_text(&textcalls::emulate::describe_tools(&self.tools))
            } else {
                context::estimate_tools(&self.tools)
            };
            let fitted = context::fit(&mut self.messages, tools_cost, budget);
            self.trimmed |= fitted.dropped > 0;
            let request =
                json!({"model": self.model, "messages": self.messages, "tools": self.tools, "tool_choice": "auto"});
            // The values of client results marked sensitive come and go
            // during the run: read at each turn (memory only).
            let mut secrets = self.secrets.clone();
            secrets.extend(store.sensitive_results().values().into_iter().map(|s| s.value));
            let started = Instant::now();
            // Thinking and calls written as text are not streamed to the user.
            // Every known tool is read in a call written as text: one not
            // offered yet runs all the same (and is offered from then on).
            let offered =
                Offered::from_definitions(&self.tools).with_names(self.registry.list().map(|t| t.name.as_str()));
            let mut gate = TokenGate::new(&offered.names());
            let streamed = {
                let stream = self.client.stream_chat(request.clone(), |ev| {
                    if let StreamEvent::Token(text) = ev
                        && let Some(text) = gate.push(&text)
                    {
                        on_event(AgentEvent::Token { text });
                    }
                });
                self.cx.cancel.or_cancelled(stream).await
            };
            let latency = i64::try_from(started.elapsed().as_millis()).ok();
            match &streamed {
                // Written off the step's path (the request can be ~100 KB);
                // the run waits for every trace before it ends.
                Some(Ok(completion)) => {
                    let (store, client, run_id, step_id) =
                        (store.clone(), self.client.clone(), self.run_id.clone(), step.id.clone());
                    let outcome = Ok(completion.clone());
                    self.trace_writes.push(tokio::spawn(async move {
                        let written =
                            trace::record_call(&store, &run_id, Some(&step_id), &client, &request, &outcome, &secrets);
                        if let Err(e) = written.await {
                            tracing::warn!("run {run_id}: the provider trace was not written: {}", e.message());
                        }
                    }));
                }
                Some(result) => {
                    let written = trace::record_call(
                        store,
                        &self.run_id,
                        Some(&step.id),
                        self.client,
                        &request,
                        result,
                        &secrets,
                    );
                    if let Err(e) = written.await {
                        tracing::warn!("run {}: the provider trace was not written: {}", self.run_id, e.message());
                    }
                }
                None => {}
            }
            let outcome = |status, usage: Option<&super::super::Usage>, error| StepOutcome {
                status,
                prompt_tokens: usage.and_then(|u| i64::try_from(u.prompt_tokens).ok()),
                completion_tokens: usage.and_then(|u| i64::try_from(u.completion_tokens).ok()),
                latency_ms: latency,
                error,
            };
            let completion: Completion = match streamed {
                None => {
                    store.steps().finish(&step.id, &outcome(StepStatus::Cancelled, None, None)).await?;
                    return Ok((cancelled_stop(&self.cx.cancel), None));
                }
                Some(Err(e)) => {
                    let message = e.to_wire().message;
                    store.steps().finish(&step.id, &outcome(StepStatus::Failed, None, Some(message.clone()))).await?;
                    on_event(AgentEvent::Error { run_id: self.run_id.clone(), code: e.code(), message });
                    return Ok(((RunStatus::Failed, StopReason::ModelError), None));
                }
                Some(Ok(c)) => c,
            };
            // A turn without `tool_calls`: an answer, calls written as text, or neither.
            let reading = completion.tool_calls.is_empty().then(|| textcalls::read(&completion.content, &offered));
            let cut = (completion.finish_reason.as_deref() == Some("length")).then(|| {
                let calls = !completion.tool_calls.is_empty()
                    || matches!(reading, Some(Reading::Calls { .. } | Reading::Unreadable { .. }));
                if calls { Cut::Call } else { Cut::Answer }
            });
            let note = match (&reading, cut) {
                (_, Some(cut)) => Some(cut.note().to_owned()),
                (Some(Reading::Unreadable { why, .. }), None) => Some(format!("the reply could not be used: {why}")),
                _ => None,
            };
            store.steps().finish(&step.id, &outcome(StepStatus::Completed, completion.usage.as_ref(), note)).await?;
            // A reply cut at the length limit is neither the answer nor a
            // call to run: asked again once, shorter.
            if let Some(cut) = cut {
                self.cut_short += 1;
                if self.cut_short > 1 {
                    on_event(AgentEvent::Error {
                        run_id: self.run_id.clone(),
                        code: ErrorCode::ModelError,
                        message: cut.give_up(),
                    });
                    return Ok(((RunStatus::Failed, StopReason::ModelError), None));
                }
                tracing::info!("run {}: {}", self.run_id, cut.note());
                let said = match (&reading, cut) {
                    (_, Cut::Answer) => textcalls::strip_thinking(&completion.content).trim().to_owned(),
                    (Some(Reading::Calls { prose, .. } | Reading::Unreadable { prose, .. }), Cut::Call) => {
                        prose.clone()
                    }
                    _ => String::new(),
                };
                if !said.is_empty() {
                    self.messages.push(json!({"role": "assistant", "content": said}));
                }
                self.messages.push(json!({"role": "user", "content": cut.again()}));
                continue;
            }
            self.cut_short = 0;
            // The thinking stays in the provider trace, out of the history.
            let mut content = textcalls::strip_thinking(&completion.content).trim().to_owned();
            let mut tool_calls = completion.tool_calls;
            let mut written_as_text = Vec::new();
            if let Some(reading) = reading {
                match reading {
                    Reading::Answer(answer) => {
                        if let Some(text) = gate.rest(&answer) {
                            on_event(AgentEvent::Token { text });
                        }
                        self.record(Role::Assistant, Some(answer.clone()), None, None).await?;
                        return Ok(((RunStatus::Completed, StopReason::EndTurn), Some(answer)));
                    }
                    Reading::Calls { prose, calls } => {
                        content = prose;
                        for call in calls {
                            let out = ToolCallOut {
                                id: format!("call_{}", uuid::Uuid::new_v4().simple()),
                                name: call.name,
                                arguments: call.arguments.to_string(),
                            };
                            written_as_text.push((out.id.clone(), call.known));
                            tool_calls.push(out);
                        }
                    }
                    Reading::Unreadable { why, .. } => {
                        self.unreadable += 1;
                        if self.unreadable > 1 {
                            let message = format!(
                                "the model's reply could not be used, twice in a row ({why}); the run stopped. \
                                 A model with native tool calling may do better."
                            );
                            on_event(AgentEvent::Error {
                                run_id: self.run_id.clone(),
                                code: ErrorCode::ModelError,
                                message,
                            });
                            return Ok(((RunStatus::Failed, StopReason::ModelError), None));
                        }
                        // Sent back once, in this run's history only.
                        tracing::info!("run {}: the model's reply could not be used: {why}", self.run_id);
                        self.messages.push(json!({"role": "assistant", "content": content}));
                        self.messages.push(json!({"role": "user", "content": textcalls::correction(&why)}));
                        continue;
                    }
                }
            }
            self.unreadable = 0;
            let prepared: Vec<Prepared> = tool_calls
                .iter_mut()
                .map(|call| {
                    // `Web-Search` for `web_search`.
                    if self.registry.get(&call.name).is_none()
                        && let Some(real) = offered.canonical(&call.name)
                    {
                        call.name = real.to_owned();
                    }
                    let mut p = calls::prepare(call);
                    // A tool that does not exist, or was written as text and
                    // never offered: answered with the nearest offered names.
                    let unoffered = written_as_text.iter().any(|(id, known)| *id == p.id && !known);
                    let known = self.registry.get(&p.name).is_some() || p.name == offer::LOADER;
                    if p.refused.is_none() && (unoffered || !known) {
                        p.refused = Some(offered.unknown(&p.name));
                    }
                    p
                })
                .collect();
            let calls_json: Vec<Value> = prepared
                .iter()
                .map(|p| json!({"id": p.id, "type": "function", "function": {"name": p.name, "arguments": p.history_arguments}}))
                .collect();
            let content = (!content.is_empty()).then_some(content);
            self.record(Role::Assistant, content.clone(), Some(Value::Array(calls_json.clone())), None).await?;
            self.messages.push(json!({"role": "assistant", "content": content, "tool_calls": calls_json}));
            if let Some(stop) = self.run_calls(prepared, Some(&step.id), on_event).await? {
                return Ok((stop, None));
            }
        }
    }

    /// The open tabs the task is about, each read before the first turn as
    /// the model would read it: `browser_switch_tab`, then (when the tab is
    /// there) `browser_read_text`, each recorded as an assistant call and
    /// run through the gate. The text reaches the model fenced like any page
    /// text, and the user sees the reads as steps. A stop (cancel) ends the
    /// reading; the turns then see the cancel.
    pub(super) async fn read_tabs(&mut self, tabs: &[String], on_event: &mut impl FnMut(AgentEvent)) -> Result<()> {
        for tab in tabs {
            let switched = self.call_for_user("browser_switch_tab", json!({"tab_id": tab}), on_event).await?;
            if switched != Some(true) {
                if switched.is_none() {
                    return Ok(());
                }
                continue;
            }
            if self.call_for_user("browser_read_text", json!({}), on_event).await?.is_none() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// One call made for the user's task (not by the model), recorded and
    /// run as the model's are: whether it succeeded, `None` when the run
    /// must stop.
    async fn call_for_user(
        &mut self,
        name: &str,
        args: Value,
        on_event: &mut impl FnMut(AgentEvent),
    ) -> Result<Option<bool>> {
        let out = ToolCallOut {
            id: format!("call_{}", uuid::Uuid::new_v4().simple()),
            name: name.to_owned(),
            arguments: args.to_string(),
        };
        let p = calls::prepare(&out);
        let calls_json = vec![
            json!({"id": p.id, "type": "function", "function": {"name": p.name, "arguments": p.history_arguments}}),
        ];
        self.record(Role::Assistant, None, Some(Value::Array(calls_json.clone())), None).await?;
        self.messages.push(json!({"role": "assistant", "content": null, "tool_calls": calls_json}));
        let stop = self.run_calls(vec![p], None, on_event).await?;
        Ok(if stop.is_some() { None } else { Some(self.last_ok) })
    }

    /// Run one turn's calls and put their results in the history; `Some`
    /// when the run must stop (cancelled, too many failures, a loop).
    pub(super) async fn run_calls(
        &mut self,
        prepared: Vec<Prepared>,
        step_id: Option<&str>,
        on_event: &mut impl FnMut(AgentEvent),
    ) -> Result<Option<Stop>> {
        for p in &prepared {
            on_event(AgentEvent::ToolCall {
                id: p.id.clone(),
                name: p.name.clone(),
                arguments: p.args.clone(),
                reasoning: p.reasoning.clone(),
            });
        }
        let asked: Vec<Prepared> = prepared.clone();
        let (registry, cx) = (Arc::clone(&self.registry), self.cx.clone());
        let store = self.core.store().clone();
        let (conversation_id, run_id) = (self.conversation_id.clone(), self.run_id.clone());
        let journal = Journal::new(&store, &registry, (&conversation_id, &run_id), step_id);
        let mut exec = Box::pin(calls::execute_all(self.core, &registry, &cx, prepared, &journal));
        let executed = loop {
            // Questions first: a call answered at once (nobody to ask) ends
            // in the same poll that queued its question.
            tokio::select! {
                biased;
                Some(w) = recv(&mut self.rx) => self.waiting(w, on_event),
                () = self.cx.cancel.cancelled() => break None,
                done = &mut exec => break Some(done),
            }
        };
        // What the gate said while the last call finished.
        while let Some(w) = self.rx.as_mut().and_then(|rx| rx.try_recv().ok()) {
            self.waiting(w, on_event);
        }
        let Some(executed) = executed else {
            // The calls still going end here, before anything is written: one
            // left unpolled in the middle of a write would keep the database's
            // write lock, and the writes below would wait on it in vain.
            drop(exec);
            if self.cx.cancel.is_interrupted() {
                // Halley is closing: the calls that did not end keep their
                // "interrupted" placeholders, which a resumed run settles.
                return Ok(Some(cancelled_stop(&self.cx.cancel)));
            }
            // Every call gets a result in the history, or the conversation
            // could not go on with another run; calls that ended keep theirs.
            for p in &asked {
                if let Some(content) = journal.result(&p.id) {
                    self.messages.push(json!({"role": "tool", "tool_call_id": p.id, "content": content}));
                    continue;
                }
                let err = Error::new(ErrorCode::Cancelled, "the run was cancelled before this call finished");
                let result = crate::core::error_result(self.registry.get(&p.name), &err);
                let now = crate::store::now();
                journal.write(p, &result, ("none", ToolCallStatus::Cancelled), (0, &now), false).await?;
                let content = journal.result(&p.id).unwrap_or_default();
                self.messages.push(json!({"role": "tool", "tool_call_id": p.id, "content": content}));
            }
            return Ok(Some((RunStatus::Cancelled, StopReason::Cancelled)));
        };
        let mut stop = None;
        let mut images = Vec::new();
        self.last_ok = true;
        for Executed { call, result, effects, duration_ms, .. } in executed? {
            self.last_ok &= result.is_ok();
            on_event(AgentEvent::ToolResult {
                id: call.id.clone(),
                name: call.name.clone(),
                result: result.clone(),
                duration_ms,
            });
            let content = journal.result(&call.id).unwrap_or_default();
            self.messages.push(json!({"role": "tool", "tool_call_id": call.id, "content": content}));
            // A tool called that was not offered yet, or the loader's
            // tools: offered from the next request on.
            self.reoffer |= if call.name == offer::LOADER {
                self.offer.note_result(&result, &self.registry)
            } else {
                self.offer.note_call(&call.name, &self.registry)
            };
            if result.is_ok() && effects.edits_memory {
                self.stale = true;
            }
            if self.images && result.is_ok() {
                images.extend(context::screenshot_message(&call.id, &result));
            }

            match self.guard.after_call(self.limits, &call.name, &call.args, result.is_ok()) {
                Judgement::Go => {}
                Judgement::Nudge(text) => images.push(json!({"role": "user", "content": text})),
                Judgement::Stop(reason) => stop = Some((RunStatus::Failed, reason)),
            }
        }
        // After every tool message of the turn (they must follow the call).
        self.messages.extend(images);
        Ok(stop)
    }

    /// The user is being asked (the run is paused) or has answered. The
    /// run's status is written off the loop, in order: the call in flight
    /// may hold the database's write lock and is not polled meanwhile.
    fn waiting(&mut self, w: Waiting, on_event: &mut impl FnMut(AgentEvent)) {
        let status = match w {
            Waiting::Confirmation(request) => {
                on_event(AgentEvent::ConfirmationRequest { request });
                (RunStatus::Paused, Some(StopReason::WaitingForConfirmation))
            }
            Waiting::Challenge(request) => {
                on_event(AgentEvent::Challenge { request });
                (RunStatus::Paused, Some(StopReason::WaitingForChallenge))
            }
            Waiting::Client(_) => (RunStatus::Paused, Some(StopReason::WaitingForClient)),
            Waiting::Answered => {
                on_event(AgentEvent::Resumed);
                (RunStatus::Running, None)
            }
            Waiting::Step(event) => return on_event(event),
        };
        let store = self.core.store().clone();
        let run_id = self.run_id.clone();
        let before = self.status_writes.take();
        self.status_writes = Some(tokio::spawn(async move {
            if let Some(before) = before {
                let _ = before.await;
            }
            if let Err(e) = store.runs().set_status(&run_id, status.0, status.1).await {
                tracing::warn!("run {run_id}: cannot record its status: {}", e.message());
            }
        }));
    }

    /// Record how the run ended and tell the caller.
    pub(super) async fn finish(
        &mut self,
        (status, reason): Stop,
        answer: Option<String>,
        on_event: &mut impl FnMut(AgentEvent),
    ) -> Result<RunOutcome> {
        if let Some(writes) = self.status_writes.take() {
            let _ = writes.await;
        }
        for write in std::mem::take(&mut self.trace_writes) {
            let _ = write.await;
        }
        self.core.store().runs().set_status(&self.run_id, status, Some(reason)).await?;
        let run_id = self.run_id.clone();
        match &answer {
            Some(text) => on_event(AgentEvent::Final { run_id, text: text.clone(), steps: self.steps }),
            None if reason == StopReason::ModelError => {}
            None if reason == StopReason::Interrupted => on_event(AgentEvent::Error {
                run_id: run_id.clone(),
                code: ErrorCode::Cancelled,
                message: format!("Halley closed during the run: resume it with `halley run --resume {run_id}`"),
            }),
            None if status == RunStatus::Cancelled => on_event(AgentEvent::Error {
                run_id,
                code: ErrorCode::Cancelled,
                message: "the run was cancelled".to_owned(),
            }),
            None => on_event(AgentEvent::Error {
                run_id,
                code: ErrorCode::Internal,
                message: format!("the run stopped: {reason}"),
            }),
        }
        Ok(RunOutcome {
            run_id: self.run_id.clone(),
            conversation_id: self.conversation_id.clone(),
            status,
            stop_reason: reason,
            answer,
            steps: self.steps,
        })
    }
}

impl Drop for Loop<'_> {
    /// However the run ends (an answer, an error, its future dropped), the
    /// sensitive values clients gave it are not kept past it.
    fn drop(&mut self) {
        self.core.store().sensitive_results().forget_run(&self.run_id);
    }
}

/// The next question of the gate, or never when nobody listens.
async fn recv(rx: &mut Option<mpsc::UnboundedReceiver<Waiting>>) -> Option<Waiting> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}
