//! Client-executed tools: a call of a tool registered by a client
//! application (the local API) is handed to that client, which runs its own
//! function and posts the result back.
//!
//! [`ClientCalls`] is the switchboard. Each client is a *key*: the id a
//! client application gives itself (`X-Halley-Client`, default `default`)
//! for tools it registered, or `letta:<agent id>` for the client that
//! started a Letta agent's run (every client tool call of that run goes to
//! it). A call waits in `pending` until the client answers it, the time is
//! up, or the run is cancelled; whoever listens on the key (an event stream)
//! is given the calls waiting for it when it connects, then each new one, so
//! a client that reconnects gets its pending calls again. An answer is taken
//! once: a second answer for the same call, or one for a call that timed out,
//! is refused and changes nothing.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{broadcast, oneshot};

use crate::context::CallContext;
use crate::error::{Error, ErrorCode, Result};
use crate::store::Store;
use crate::tools::ToolOutput;

/// The client key of tools registered without `X-Halley-Client`.
pub const DEFAULT_CLIENT: &str = "default";

/// How long a call waits for its client's answer unless the client set
/// another time at registration.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The longest time a client may ask for.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// How many closed call ids are remembered.
const CLOSED_KEPT: usize = 10_000;

/// A call handed to a client: the `tool_call_message` of its event stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClientCall {
    /// Always `tool_call_message`.
    pub message_type: String,
    pub tool_call_id: String,
    /// The function's name.
    pub name: String,
    /// The arguments, validated against the tool's schema.
    pub arguments: Value,
    /// The run that makes the call (none: a direct call).
    pub run_id: Option<String>,
    /// The client key it is addressed to.
    #[serde(skip)]
    pub client: String,
    /// Whether the user already approved it (a tool registered with
    /// `defaultRequiresApproval`); a Letta client is asked itself.
    pub approved: bool,
}

/// A client's answer to a call.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientAnswer {
    /// What the function returned (any JSON).
    Result(Value),
    /// A result the client marked sensitive: its values are kept in memory
    /// and the model gets placeholders (`crate::secrets::results`).
    Sensitive { tool_call_id: String, result: Value },
    /// The function failed; this message goes to the model.
    Error(String),
    /// The client refused to run the call (a Letta `approve: false`).
    Denied(String),
}

/// Who owns a registered tool, and how long its calls wait.
#[derive(Debug, Clone)]
struct Owner {
    client: String,
    timeout: Duration,
}

struct Pending {
    /// Order of arrival.
    seq: u64,
    call: ClientCall,
    reply: oneshot::Sender<ClientAnswer>,
}

#[derive(Default)]
struct Inner {
    seq: u64,
    owners: HashMap<String, Owner>,
    pending: HashMap<String, Pending>,
    /// Calls answered, timed out or cancelled: a late answer is refused.
    /// The oldest are forgotten past [`CLOSED_KEPT`] (their answers are
    /// then refused as unknown, still not applied).
    closed: HashSet<String>,
    closed_order: VecDeque<String>,
    /// How many event streams listen on each key.
    listeners: HashMap<String, usize>,
    /// The run a client key drives (a Letta agent's one run at a time;
    /// empty while it starts).
    driving: HashMap<String, String>,
}

impl Inner {
    fn close(&mut self, id: String) {
        if self.closed.insert(id.clone()) {
            self.closed_order.push_back(id);
        }
        while self.closed_order.len() > CLOSED_KEPT {
            if let Some(old) = self.closed_order.pop_front() {
                self.closed.remove(&old);
            }
        }
    }
}

/// The switchboard; one per [`Core`](crate::core::Core).
pub struct ClientCalls {
    inner: Mutex<Inner>,
    new_calls: broadcast::Sender<ClientCall>,
}

impl std::fmt::Debug for ClientCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCalls").finish_non_exhaustive()
    }
}

impl Default for ClientCalls {
    fn default() -> Self {
        ClientCalls { inner: Mutex::default(), new_calls: broadcast::channel(256).0 }
    }
}

/// A client's event stream: the calls waiting for it when it connected,
/// then each new one. Dropping it disconnects the client.
pub struct Listener {
    calls: Arc<ClientCalls>,
    key: String,
    /// The calls that were waiting when it connected.
    pub waiting: Vec<ClientCall>,
    receiver: broadcast::Receiver<ClientCall>,
}

impl Listener {
    /// The next call for this client.
    pub async fn next(&mut self) -> Option<ClientCall> {
        loop {
            match self.receiver.recv().await {
                Ok(call) if call.client == self.key => return Some(call),
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    // Missed calls are still pending: give them again.
                    tracing::warn!("client `{}` missed {n} call notices; resending what waits", self.key);
                    if let Some(call) = self.calls.waiting_for(&self.key).into_iter().next() {
                        return Some(call);
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let mut inner = self.calls.lock();
        if let Some(n) = inner.listeners.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                inner.listeners.remove(&self.key);
            }
        }
    }
}

impl ClientCalls {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Record that `client` registered `tool`, whose calls wait `timeout`
    /// (none: [`DEFAULT_TIMEOUT`]) for an answer.
    pub fn set_owner(&self, tool: &str, client: &str, timeout: Option<Duration>) {
        let owner = Owner { client: client.to_owned(), timeout: timeout.unwrap_or(DEFAULT_TIMEOUT).min(MAX_TIMEOUT) };
        self.lock().owners.insert(tool.to_owned(), owner);
    }

    /// The client that registered `tool` (a tool registered before Halley
    /// started: [`DEFAULT_CLIENT`] until it is registered again).
    pub fn owner(&self, tool: &str) -> String {
        self.lock().owners.get(tool).map_or_else(|| DEFAULT_CLIENT.to_owned(), |o| o.client.clone())
    }

    /// Whether an event stream listens on `key` now.
    pub fn connected(&self, key: &str) -> bool {
        self.lock().listeners.contains_key(key)
    }

    /// The calls waiting for `key`, oldest first.
    pub fn waiting_for(&self, key: &str) -> Vec<ClientCall> {
        waiting(&self.lock(), key)
    }

    /// Connect `key`'s event stream.
    pub fn listen(self: &Arc<Self>, key: &str) -> Listener {
        let mut inner = self.lock();
        // Subscribed under the lock: a call is either waiting now or sent
        // later, never both and never neither.
        let receiver = self.new_calls.subscribe();
        *inner.listeners.entry(key.to_owned()).or_default() += 1;
        let waiting = waiting(&inner, key);
        Listener { calls: Arc::clone(self), key: key.to_owned(), waiting, receiver }
    }

    /// Hand the call of `tool` to its client and wait for the answer: the
    /// run's own client when it has one (a Letta agent's), else the client
    /// that registered the tool. No client listening, no answer in time, a
    /// cancelled run: an error, and the call is closed (a late answer is
    /// refused).
    pub async fn call(&self, cx: &CallContext, tool: &str, arguments: Value, approved: bool) -> Result<ClientAnswer> {
        let (key, timeout) = self.route(cx, tool);
        let id = format!("call-{}", uuid::Uuid::new_v4().simple());
        let (reply, answer) = oneshot::channel();
        {
            let mut inner = self.lock();
            if !inner.listeners.contains_key(&key) {
                return Err(not_connected(tool, &key));
            }
            let call = ClientCall {
                message_type: "tool_call_message".to_owned(),
                tool_call_id: id.clone(),
                name: tool.to_owned(),
                arguments,
                run_id: cx.run_id.clone(),
                client: key.clone(),
                approved,
            };
            inner.seq += 1;
            let seq = inner.seq;
            inner.pending.insert(id.clone(), Pending { seq, call: call.clone(), reply });
            let _ = self.new_calls.send(call);
        }
        cx.confirmer.waits_for_client(Some(tool));
        let waited = cx.cancel.or_cancelled(tokio::time::timeout(timeout, answer)).await;
        cx.confirmer.waits_for_client(None);
        let mut inner = self.lock();
        inner.pending.remove(&id);
        inner.close(id);
        match waited {
            Some(Ok(Ok(answer))) => Ok(answer),
            Some(Ok(Err(_))) => Err(Error::internal("the client call was dropped")),
            Some(Err(_)) => Err(Error::new(
                ErrorCode::Timeout,
                format!(
                    "client `{key}` did not answer the call of `{tool}` within {} s; its result is no longer awaited",
                    timeout.as_secs()
                ),
            )),
            None => Err(Error::new(ErrorCode::Cancelled, "the run was cancelled while the client ran the call")),
        }
    }

    /// The client a call of `tool` in `cx` goes to, and how long it waits:
    /// the run's own client when it has one (a Letta agent's), else the
    /// client that registered the tool.
    fn route(&self, cx: &CallContext, tool: &str) -> (String, Duration) {
        let inner = self.lock();
        let owner = inner.owners.get(tool);
        let timeout = owner.map_or(DEFAULT_TIMEOUT, |o| o.timeout);
        let key = match (&cx.client, owner) {
            (Some(client), _) => client.to_string(),
            (None, Some(owner)) => owner.client.clone(),
            (None, None) => DEFAULT_CLIENT.to_owned(),
        };
        (key, timeout)
    }

    /// Whether a call of `tool` in `cx` has a client to go to now: checked
    /// before anyone is asked to approve it.
    pub fn ready(&self, cx: &CallContext, tool: &str) -> Result<()> {
        let (key, _) = self.route(cx, tool);
        if self.connected(&key) { Ok(()) } else { Err(not_connected(tool, &key)) }
    }

    /// Take `key`'s one run slot: false when it already drives a run.
    pub fn claim_run(&self, key: &str) -> bool {
        let mut inner = self.lock();
        if inner.driving.contains_key(key) {
            return false;
        }
        inner.driving.insert(key.to_owned(), String::new());
        true
    }

    /// `key` drives run `run_id` (none: its claim is given back).
    pub fn set_run(&self, key: &str, run_id: Option<&str>) {
        let mut inner = self.lock();
        match run_id {
            Some(run) => inner.driving.insert(key.to_owned(), run.to_owned()),
            None => inner.driving.remove(key),
        };
    }

    /// The run `key` drives.
    pub fn run_of(&self, key: &str) -> Option<String> {
        self.lock().driving.get(key).filter(|r| !r.is_empty()).cloned()
    }

    /// Run `run_id` of `key` ended.
    pub fn run_ended(&self, key: &str, run_id: &str) {
        let mut inner = self.lock();
        if inner.driving.get(key).is_some_and(|r| r == run_id) {
            inner.driving.remove(key);
        }
    }

    /// Take a client's answer to call `id`. An unknown call, or one already
    /// answered (or timed out, or cancelled), is refused: nothing is
    /// applied twice.
    pub fn answer(&self, id: &str, answer: ClientAnswer) -> std::result::Result<ClientCall, Refused> {
        let mut inner = self.lock();
        let Some(pending) = inner.pending.remove(id) else {
            return Err(if inner.closed.contains(id) { Refused::Closed } else { Refused::Unknown });
        };
        inner.close(id.to_owned());
        let call = pending.call.clone();
        let _ = pending.reply.send(answer);
        Ok(call)
    }
}

fn not_connected(tool: &str, key: &str) -> Error {
    Error::new(
        ErrorCode::NotAvailable,
        format!(
            "no client is connected to run `{tool}` (client `{key}`): the application that registered it must \
             listen on GET /api/v1/clients/{key}/events. Nothing was done."
        ),
    )
}

/// Why an answer was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// No such call was ever handed out.
    Unknown,
    /// It was answered already, timed out, or its run was cancelled.
    Closed,
}

impl Refused {
    /// As an error: `not_found` for an unknown call, `invalid_arguments`
    /// for one closed already.
    pub fn error(self, id: &str) -> Error {
        match self {
            Refused::Unknown => Error::not_found(format!("no tool call `{id}` waits for an answer")),
            Refused::Closed => Error::invalid_arguments(format!(
                "tool call `{id}` was already answered, timed out or cancelled; this answer is refused"
            )),
        }
    }
}

fn waiting(inner: &Inner, key: &str) -> Vec<ClientCall> {
    let mut calls: Vec<&Pending> = inner.pending.values().filter(|p| p.call.client == key).collect();
    calls.sort_by_key(|p| p.seq);
    calls.into_iter().map(|p| p.call.clone()).collect()
}

/// A client's answer as the call's output: its result is the data, its
/// error or refusal an error the model reads. A result marked sensitive is
/// `{result, note}`, every value in it a placeholder (the values kept in
/// memory for the call's run: [`crate::secrets::results`]).
fn client_output(store: &Store, cx: &CallContext, name: &str, answer: Result<ClientAnswer>) -> Result<ToolOutput> {
    match answer? {
        ClientAnswer::Result(data) => Ok(ToolOutput::data(data)),
        ClientAnswer::Sensitive { tool_call_id, result } => {
            let hidden = store.sensitive_results().hide(&tool_call_id, name, cx.run_id.as_deref(), result)?;
            Ok(ToolOutput::data(serde_json::json!({"result": hidden, "note": crate::secrets::results::NOTE})))
        }
        ClientAnswer::Error(message) => {
            Err(Error::new(ErrorCode::Internal, format!("the client's `{name}` failed: {message}")))
        }
        ClientAnswer::Denied(reason) => {
            let why = if reason.trim().is_empty() { String::new() } else { format!(": {reason}") };
            Err(Error::new(ErrorCode::Denied, format!("the client refused to run `{name}`{why}")))
        }
    }
}

impl crate::handler::Handler for ClientCalls {
    fn ready(&self, cx: &CallContext, name: &str) -> Result<()> {
        ClientCalls::ready(self, cx, name)
    }

    fn run<'a>(&'a self, call: crate::handler::Invocation<'a>) -> futures::future::BoxFuture<'a, crate::handler::Ran> {
        Box::pin(async move {
            // A tool registered with `defaultRequiresApproval` was approved
            // by the user at the gate.
            let approved = call.spec.requires_confirmation;
            let args = crate::tools::blueprint::client_arguments(call.args);
            let answer = self.call(call.cx, call.name, args, approved).await;
            crate::handler::Ran::from(client_output(&call.services.store, call.cx, call.name, answer))
        })
    }
}
