//! What runs a tool: the [`Handler`] contract every executor implements
//! (the built-ins, the browser tools, the watch tools, web search, skills,
//! MCP servers' tools, client tools), and the [`Services`] they share.
//!
//! Handlers are registered, not named: each module that runs tools exports
//! its handlers (`builtin::handlers`, `watch::tools::handlers`,
//! `search::handlers`, `skills::handlers`, `mcp::McpClients`), the host
//! (the composition root) puts them in one [`Handlers`] table and builds
//! `Core` with it, and `Core` runs a call through the gate and whatever
//! handler the table has for it. `Core` names none of those modules.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::browser::BrowserSession;
use crate::context::{CallContext, ToolCaller};
use crate::error::{Error, Result};
use crate::gate::check::{Gate, Grade};
use crate::oauth::OAuth;
use crate::paths::DataDir;
use crate::store::Store;
use crate::tools::spec::{Executor, ToolSpec, ToolStatus};
use crate::tools::{Registry, ToolOutput};

/// What handlers share: the store, the data directory, the managed browser
/// (started on the first browser call), the gate and the OAuth accounts.
/// What belongs to one call (its run, who answers, its model helpers) is
/// its [`CallContext`].
#[derive(Debug, Clone)]
pub struct Services {
    pub store: Store,
    pub data_dir: DataDir,
    pub browser: Arc<BrowserSession>,
    pub gate: Arc<Gate>,
    /// OAuth accounts: connect, access tokens by account (`crate::oauth`).
    pub oauth: Arc<OAuth>,
}

/// One call handed to a handler: its arguments are already checked against
/// the tool's schema.
pub struct Invocation<'a> {
    pub services: &'a Services,
    pub cx: &'a CallContext,
    /// How the handler calls other tools (a skill's steps): through the
    /// core, on the registry snapshot this call runs on.
    pub tools: &'a dyn ToolCaller,
    /// The tool called (for a blueprint run by a program, the program).
    pub spec: &'a ToolSpec,
    pub name: &'a str,
    pub args: Value,
}

impl Invocation<'_> {
    /// The arguments as the tool's type (`invalid_arguments` naming the tool).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T> {
        parse(self.name, &self.args)
    }
}

/// What running a tool gave: its output or error, and how the gate graded
/// the call when the handler passed the gate itself ([`Gating::Inside`];
/// `None` for the others, which `Core` gates before they run).
#[derive(Debug)]
pub struct Ran {
    pub output: Result<ToolOutput>,
    pub grade: Option<Grade>,
}

impl From<Result<ToolOutput>> for Ran {
    fn from(output: Result<ToolOutput>) -> Ran {
        Ran { output, grade: None }
    }
}

/// How a handler's calls pass the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gating {
    /// `Core` checks the call on its declared scope before it runs.
    Declared,
    /// The handler checks it itself, with the action read from the page
    /// (the browser tools).
    Inside,
    /// Each step the handler takes is checked (and confirmed) on its own,
    /// so a denied step is reported and the rest goes on; the call itself
    /// is audited as a skill (the skills).
    PerStep,
}

/// Runs the tools registered to it.
pub trait Handler: Send + Sync + std::fmt::Debug + Any {
    /// How its calls pass the gate.
    fn gating(&self) -> Gating {
        Gating::Declared
    }

    /// Whether a call of `name` can run at all, said before anyone is asked
    /// (a client tool whose client is gone).
    fn ready(&self, _cx: &CallContext, _name: &str) -> Result<()> {
        Ok(())
    }

    /// Run one call.
    fn run<'a>(&'a self, call: Invocation<'a>) -> BoxFuture<'a, Ran>;

    /// Tools this handler keeps in the store (an MCP server's), added to
    /// the registry when the core opens.
    fn stored_tools<'a>(&'a self, _store: &'a Store) -> BoxFuture<'a, Result<Vec<ToolSpec>>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Let go of what it holds (servers it started) when the core closes.
    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// A handler that is one function over the call.
pub type RunFn = for<'a> fn(Invocation<'a>) -> BoxFuture<'a, Result<ToolOutput>>;

/// [`Handler`] of a plain function, gated on the tool's declared scope.
#[derive(Debug, Clone, Copy)]
pub struct FnHandler(pub RunFn);

impl Handler for FnHandler {
    fn run<'a>(&'a self, call: Invocation<'a>) -> BoxFuture<'a, Ran> {
        let run = self.0;
        Box::pin(async move { Ran::from(run(call).await) })
    }
}

/// The handler table `Core` runs calls through: by tool name, and by
/// executor for tools whose names are not known in advance (an MCP
/// server's, a client's).
#[derive(Debug, Default, Clone)]
pub struct Handlers {
    by_name: HashMap<String, Arc<dyn Handler>>,
    by_executor: HashMap<Executor, Arc<dyn Handler>>,
}

impl Handlers {
    pub fn new() -> Handlers {
        Handlers::default()
    }

    /// Register `handler` for the tool `name`. Fails when another handler
    /// has that name already.
    pub fn add(&mut self, name: &str, handler: Arc<dyn Handler>) -> Result<()> {
        if self.by_name.insert(name.to_owned(), handler).is_some() {
            return Err(Error::internal(format!("tool `{name}` has two handlers")));
        }
        Ok(())
    }

    /// Whether a handler is registered for the tool `name`.
    pub fn has(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Register every `(name, handler)` of a module.
    pub fn extend(&mut self, handlers: impl IntoIterator<Item = (String, Arc<dyn Handler>)>) -> Result<()> {
        handlers.into_iter().try_for_each(|(name, handler)| self.add(&name, handler))
    }

    /// Register `handler` for every tool of `executor` (not `Builtin`).
    pub fn add_executor(&mut self, executor: Executor, handler: Arc<dyn Handler>) {
        self.by_executor.insert(executor, handler);
    }

    /// The handler of `spec`'s calls.
    pub fn of(&self, spec: &ToolSpec) -> Option<&Arc<dyn Handler>> {
        self.by_name.get(&spec.name).or_else(|| self.by_executor.get(&spec.executor))
    }

    /// The handler registered for `executor`, as its own type.
    pub fn executor_as<T: Handler>(&self, executor: Executor) -> Option<&T> {
        let handler: &dyn Any = self.by_executor.get(&executor)?.as_ref();
        handler.downcast_ref::<T>()
    }

    /// Every handler once (for closing).
    pub fn all(&self) -> Vec<Arc<dyn Handler>> {
        let mut seen: Vec<Arc<dyn Handler>> = Vec::new();
        for handler in self.by_name.values().chain(self.by_executor.values()) {
            if !seen.iter().any(|s| Arc::ptr_eq(s, handler)) {
                seen.push(Arc::clone(handler));
            }
        }
        seen
    }

    /// The check made once when the core is built: every built-in tool
    /// declared `available` has a handler, and none declared `planned` has
    /// one.
    pub fn check(&self, registry: &Registry) -> Result<()> {
        for spec in registry.list().filter(|s| s.executor == Executor::Builtin && s.activity.is_none()) {
            match (spec.status, self.by_name.contains_key(&spec.name)) {
                (ToolStatus::Available, false) => {
                    return Err(Error::internal(format!(
                        "tool `{}` is declared available but has no handler",
                        spec.name
                    )));
                }
                (ToolStatus::Planned, true) => {
                    return Err(Error::internal(format!("tool `{}` has a handler but is declared planned", spec.name)));
                }
                _ => {}
            }
        }
        if let Some(name) = self.by_name.keys().find(|name| registry.get(name).is_none()) {
            return Err(Error::internal(format!("a handler is registered for `{name}`, which is not declared")));
        }
        Ok(())
    }
}

/// A tool's arguments as its type (`invalid_arguments` naming the tool).
pub fn parse<T: DeserializeOwned>(name: &str, args: &Value) -> Result<T> {
    T::deserialize(args).map_err(|e| Error::invalid_arguments(format!("invalid arguments for `{name}`: {e}")))
}

/// A tool's typed result as its output.
pub fn to_output<T: Serialize>(data: &T) -> Result<ToolOutput> {
    serde_json::to_value(data)
        .map(ToolOutput::data)
        .map_err(|e| Error::internal("cannot serialise a tool result").with_source(e))
}
