//! `Core`: what every front end (CLI, desktop app, local API) talks to. It
//! owns the registry and the store and runs a tool call, in the context of
//! its run ([`CallContext`]), from validation to a ToolResultV2. Many runs
//! share one core; the registry can change while they go.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use serde_json::Value;

use crate::browser::{BrowserOptions, BrowserSession};
use crate::builtin::client::ClientCalls;
use crate::context::{CallContext, Reads, ToolCaller};
use crate::error::{Error, ErrorCode, Result};
use crate::gate::action::Action;
use crate::gate::check::{Gate, Grade, Pass, Refused};
use crate::handler::{Gating, Handler, Handlers, Invocation, Services};
use crate::oauth::OAuth;
use crate::paths::DataDir;
use crate::store::Store;
use crate::store::tools::NewTool;
use crate::tools::blueprint;
use crate::tools::registry::Registry;
use crate::tools::{Executor, ToolOutput, ToolResultV2, ToolSpec, ToolStatus};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrowserSettings {
    pub chromium: Option<PathBuf>,
    pub headless: bool,
    pub cdp_url: Option<String>,
    /// Benchmarks only (feature `bench-knobs`, never in the product): the
    /// browser's request interception is not turned on, so no action
    /// that the wire gate guards can run (they fail closed), and page
    /// loads go as if there were no gate. What the gate costs is read
    /// against it.
    #[cfg(feature = "bench-knobs")]
    pub bench_wire_off: bool,
}

/// The core, opened on one data directory.
#[derive(Debug)]
pub struct Core {
    /// Replaced whole when a tool is registered or unregistered: a call
    /// or a model turn keeps the snapshot it started with.
    registry: RwLock<Arc<Registry>>,
    services: Services,
    /// What runs each tool, as the host registered it.
    handlers: Handlers,
    /// Calls of client tools waiting for their clients (also the handler
    /// of every client tool).
    client_calls: Arc<ClientCalls>,
}

impl Core {
    /// Open the data directory (creating it), the database (migrating it),
    /// `registry` plus the tools kept in the store (registered blueprints,
    /// the tools the handlers keep: an MCP server's), and run calls through
    /// `handlers`. Fails when a built-in tool declared available has no
    /// handler ([`Handlers::check`]). The browser itself starts on the
    /// first browser call. The host builds the handler table
    /// (`crate::host::open_core`).
    pub async fn open(
        data_dir: DataDir,
        registry: Registry,
        browser: BrowserSettings,
        mut handlers: Handlers,
    ) -> Result<Core> {
        handlers.check(&registry)?;
        let client_calls = Arc::new(ClientCalls::default());
        handlers.add_executor(Executor::Client, Arc::clone(&client_calls) as Arc<dyn Handler>);
        data_dir.ensure()?;
        let store = Store::open(&data_dir.db_path()).await?;
        let registry = with_stored(registry, &store, &handlers).await?;
        let options = BrowserOptions {
            chromium: browser.chromium,
            headless: browser.headless,
            cdp_url: browser.cdp_url,
            #[cfg(feature = "bench-knobs")]
            bench_wire_off: browser.bench_wire_off,
            profile_dir: data_dir.profile_dir(),
            downloads_dir: data_dir.root().join("downloads"),
        };
        let browser = Arc::new(BrowserSession::new(options));
        let gate = Arc::new(Gate::open(store.clone()).await?);
        let oauth = Arc::new(OAuth::new(store.clone())?);
        Ok(Core {
            registry: RwLock::new(Arc::new(registry)),
            services: Services { store, data_dir, browser, gate, oauth },
            handlers,
            client_calls,
        })
    }

    /// The core as a [`ToolCaller`] on the registry snapshot `registry`.
    pub fn caller<'a>(&'a self, registry: &'a Registry) -> Snapshot<'a> {
        Snapshot { core: self, registry }
    }

    /// What the handlers share.
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// The handler table the host built.
    pub fn handlers(&self) -> &Handlers {
        &self.handlers
    }

    /// The gatekeeper.
    pub fn gate(&self) -> &Gate {
        &self.services.gate
    }

    /// The managed browser.
    pub fn browser(&self) -> &BrowserSession {
        &self.services.browser
    }

    /// The tools as registered now (a snapshot: a tool registered later is
    /// in the next snapshot).
    pub fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.registry.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Swap in the registry `change` makes of the current one. Writers take
    /// turns, so two registrations never lose one another.
    pub fn change_registry(&self, change: impl FnOnce(&Registry) -> Result<Registry>) -> Result<()> {
        let mut slot = self.registry.write().unwrap_or_else(|e| e.into_inner());
        *slot = Arc::new(change(&slot)?);
        Ok(())
    }

    /// The OAuth accounts: other tools ask it for an access token by account.
    pub fn oauth(&self) -> &OAuth {
        &self.services.oauth
    }

    /// Calls of client tools waiting for the clients that run them.
    pub fn client_calls(&self) -> &Arc<ClientCalls> {
        &self.client_calls
    }

    pub fn store(&self) -> &Store {
        &self.services.store
    }

    pub fn data_dir(&self) -> &DataDir {
        &self.services.data_dir
    }

    /// Register a tool blueprint (spec §5) or replace the one of the same
    /// name; it is kept in the store and offered to the model from every
    /// run's next turn. A built-in tool's name is refused.
    pub async fn register_blueprint(&self, blueprint: &Value) -> Result<ToolSpec> {
        self.register(blueprint, None, None).await
    }

    /// Register (or replace, by name) a tool executed by the client
    /// application that registered it, from its Python source
    /// ([`crate::tools::python`]: parsed, never run). `requires_approval`:
    /// each call is approved before the client runs it.
    pub async fn register_client_tool(
        &self,
        name: &str,
        description: &str,
        source_code: &str,
        requires_approval: bool,
    ) -> Result<ToolSpec> {
        let function = crate::tools::python::parse_function(source_code, name)?;
        let description = if description.trim().is_empty() { function.summary.as_str() } else { description };
        self.register_client_schema(name, description, &function.parameters, Some(source_code), requires_approval).await
    }

    /// Register (or replace, by name) a client tool from its JSON Schema
    /// (a Letta request's `client_tools`, or parsed source).
    pub async fn register_client_schema(
        &self,
        name: &str,
        description: &str,
        parameters: &Value,
        source_code: Option<&str>,
        requires_approval: bool,
    ) -> Result<ToolSpec> {
        let mut blueprint =
            if parameters.is_null() { serde_json::json!({"type": "object"}) } else { parameters.clone() };
        let Some(obj) = blueprint.as_object_mut() else {
            return Err(Error::invalid_arguments(format!("the parameters of `{name}` must be a JSON Schema object")));
        };
        obj.insert("description".into(), Value::String(description.trim().to_owned()));
        let props = obj.entry("properties").or_insert_with(|| serde_json::json!({}));
        let Some(props) = props.as_object_mut() else {
            return Err(Error::invalid_arguments(format!("`properties` of `{name}` must be an object")));
        };
        props.insert("_tool".into(), serde_json::json!({"type": "string", "const": name}));
        props.insert("_activity".into(), serde_json::json!({"type": "string", "const": blueprint::CLIENT_ACTIVITY}));
        self.register(&blueprint, source_code, Some(requires_approval)).await
    }

    async fn register(&self, blueprint: &Value, source: Option<&str>, approval: Option<bool>) -> Result<ToolSpec> {
        let builtin = Registry::builtin()?;
        let mut spec = blueprint::parse(blueprint, &builtin)?;
        if let Some(approval) = approval {
            blueprint::set_client_approval(&mut spec, approval);
        }
        if builtin.get(&spec.name).is_some() {
            return Err(Error::invalid_arguments(format!(
                "`{}` is a built-in tool; give the blueprint another name",
                spec.name
            )));
        }
        // Checked before it is stored: the schema must compile with the rest.
        let kept = |now: &Registry| now.list().filter(|t| t.name != spec.name).cloned().collect::<Vec<_>>();
        Registry::new(kept(&self.registry()))?.with_custom(vec![spec.clone()])?;
        self.services
            .store
            .tools()
            .upsert(&NewTool {
                name: spec.name.clone(),
                description: spec.description.clone(),
                kind: spec.kind,
                executor: spec.executor,
                json_schema: blueprint.clone(),
                source_code: source.map(str::to_owned),
                permission_scope: spec.permission_scope,
                risk_level: spec.risk_level,
                requires_confirmation: spec.requires_confirmation,
            })
            .await?;
        self.change_registry(|now| Registry::new(kept(now))?.with_custom(vec![spec.clone()]))?;
        Ok(spec)
    }

    /// Remove a registered blueprint; `not_found` when there is none. A
    /// call already running it finishes; new calls get `unknown_tool`.
    pub async fn unregister_blueprint(&self, name: &str) -> Result<()> {
        if !self.services.store.tools().delete(name).await? {
            return Err(Error::not_found(format!("no registered tool `{name}`; built-in tools cannot be removed")));
        }
        self.change_registry(|now| Registry::new(now.list().filter(|t| t.name != name).cloned().collect()))
    }

    /// Run one tool call in the context of its run. Never fails: every
    /// problem becomes a ToolResultV2 error with a code. `_reasoningForCall`
    /// is not part of the arguments a tool sees (the agent loop records it).
    /// The call runs on the registry as it is when it starts.
    pub async fn call_tool(&self, cx: &CallContext, name: &str, args: Value) -> ToolResultV2 {
        self.call_in(&self.registry(), cx, name, args).await
    }

    /// [`Core::call_tool`] on the registry snapshot `registry`.
    pub async fn call_in(&self, registry: &Registry, cx: &CallContext, name: &str, mut args: Value) -> ToolResultV2 {
        blueprint::take_reasoning(&mut args);
        if cx.cancel.is_cancelled() {
            let err = Error::new(ErrorCode::Cancelled, "the run was cancelled; nothing was done");
            return error_result(registry.get(name), &err);
        }
        let spec = match preflight(registry, name, &args) {
            Ok(spec) => spec,
            Err((spec, err)) => return error_result(spec, &err),
        };
        // A blueprint run by a program: the program's call is gated and run
        // as if it had been called by name, with the blueprint's inputs.
        if let Some(activity) = spec.activity.as_deref().filter(|a| *a != blueprint::CLIENT_ACTIVITY) {
            let activity = activity.to_owned();
            return Box::pin(self.call_in(registry, cx, &activity, args)).await;
        }
        // Blueprints whose result the model wrote (validated with the
        // arguments) need no handler.
        let handler = self.handlers.of(spec);
        if handler.is_none() && spec.executor == Executor::Implicit {
            let grade = match self.gate_declared(cx, spec, &args).await {
                Ok(pass) => pass.grade,
                Err(refused) => return graded_result(spec, refused.grade, Err(refused.error)),
            };
            let data = args.get(blueprint::OUTPUT_FIELD).cloned().unwrap_or(Value::Null);
            return graded_result(spec, Some(grade), Ok(ToolOutput { data, ..ToolOutput::default() }));
        }
        let Some(handler) = handler else {
            return error_result(Some(spec), &Error::internal(format!("tool `{name}` has no handler")));
        };
        // A tool that cannot run now (a client tool with no client): said
        // before anyone is asked.
        if let Err(err) = handler.ready(cx, name) {
            return error_result(Some(spec), &err);
        }
        // Browser tools pass the gate inside, with the action read from
        // the page; skills pass it at each step (a denied step is reported
        // and the rest goes on); every other call passes it here, on its
        // declared scope.
        let gating = handler.gating();
        let mut grade = None;
        if gating == Gating::Declared {
            match self.gate_declared(cx, spec, &args).await {
                Ok(pass) => grade = Some(pass.grade),
                Err(refused) => return graded_result(spec, refused.grade, Err(refused.error)),
            }
        }
        let caller = Snapshot { core: self, registry };
        let call = Invocation { services: &self.services, cx, tools: &caller, spec, name, args: args.clone() };
        if gating == Gating::PerStep {
            // Its steps are judged on what the run had read when the skill
            // was called; what they read is the run's from then on.
            let stepping = CallContext { reads: Arc::new(Reads::for_skill(&cx.reads)), ..cx.clone() };
            let call = Invocation { cx: &stepping, ..call };
            let output = handler.run(call).await.output;
            let result = graded_result(spec, grade, output);
            self.audit_skill(cx, spec, &args, &result).await;
            return result;
        }
        side_effect_point("before", spec);
        let ran = handler.run(call).await;
        side_effect_point("after", spec);
        let mut result = graded_result(spec, ran.grade.or(grade), ran.output);
        // Another program's or a file's words reach the run's model sealed,
        // as the person's own message does: its values by their shape.
        if let Some(run) = cx.run_id.as_deref()
            && seals_result(spec)
        {
            seal_result(&self.services.store, run, &spec.name, &mut result.data);
        }
        // Others' words the run has now read (a page, a file, another
        // program's result): what lasts is asked after this.
        let theirs = matches!(spec.executor, Executor::Mcp | Executor::Client);
        if (result.is_ok() || theirs)
            && let Some(source) = crate::gate::lasting::source_of(spec, &args, &result)
        {
            cx.reads.note(source);
        }
        result
    }

    async fn audit_skill(&self, cx: &CallContext, spec: &ToolSpec, args: &Value, result: &ToolResultV2) {
        use crate::gate::audit;
        let status = if result.error.is_none() { "ok" } else { "error" };
        let entry = audit::SkillRecord {
            tool: &spec.name,
            args_hash: audit::args_hash(args),
            declared: spec.permission_scope,
            front_end: cx.front_end.as_str(),
            run_id: cx.run_id.clone(),
            call_id: cx.call_id.as_deref().map(str::to_owned),
            status,
            error_code: result.error.as_ref().map(|e| e.code.as_str()),
            outcome: result.data.get("status").and_then(Value::as_str),
        };
        if let Err(e) = audit::record_skill(&self.services.store, entry).await {
            tracing::warn!("the call of skill `{}` was not audited: {}", spec.name, e.message());
        }
    }

    /// The gate's check of a call to a non-browser tool, on its declared scope.
    async fn gate_declared(&self, cx: &CallContext, spec: &ToolSpec, args: &Value) -> Result<Pass, Refused> {
        let action = Action {
            tool: spec.name.clone(),
            declared: Some(spec.permission_scope),
            upload: args.get("file_ref").and_then(Value::as_str).map(str::to_owned),
            private_file: (spec.name == "files_store")
                .then(|| args.get("file_path").and_then(Value::as_str))
                .flatten()
                .and_then(|path| crate::builtin::files::private_place(path, self.services.data_dir.root())),
            carries: (crate::tools::catalogue::effects::sends_arguments(&spec.name)
                || matches!(spec.executor, Executor::Mcp | Executor::Client))
            .then(|| args.to_string()),
            untrusted: (spec.executor == Executor::Mcp).then(|| {
                format!(
                    "`{}` is a tool of another program (an MCP server); Halley does not trust its own description of what it does",
                    spec.name
                )
            }),
            ..Action::default()
        };
        let mut action = action;
        // A change that lasts, after the run read others' words: the
        // question shows exactly what would change.
        let read_from = cx.reads.sources();
        if !read_from.is_empty() && crate::gate::lasting::lasts(&spec.name) {
            let store = &self.services.store;
            let secrets = self.services.gate.secrets().await.unwrap_or_default();
            let agent = crate::builtin::memory::blocks::default_agent(store).await.ok();
            let change = crate::gate::lasting::change_of(store, agent.as_deref(), &spec.name, args, &secrets).await;
            action.changes = Some(change.unwrap_or_else(|| format!("Run {}", spec.name)));
            action.read_from = read_from;
        }
        self.services.gate.check(cx, &action, spec.risk_level, args).await
    }

    /// Ask the gate about what a front end is about to do as tool `name`
    /// with `args`, without running the tool (e.g. `halley auth connect`,
    /// which does the tool's work with its own flags): checked, graded,
    /// asked and audited like the call.
    pub async fn approve(&self, cx: &CallContext, name: &str, args: &Value) -> Result<()> {
        let registry = self.registry();
        let spec = preflight(&registry, name, args).map_err(|(_, e)| e)?;
        self.gate_declared(cx, spec, args).await.map(drop).map_err(|refused| refused.error)
    }

    /// Close the browser (if Halley started it) and the store cleanly.
    pub async fn close(&self) {
        // The ids of the notifications this process showed, for their
        // buttons pressed after it exited (a long-lived Halley hears them),
        // recorded while the browser and the MCP servers close.
        let others = async {
            futures::future::join_all(self.handlers.all().iter().map(|h| h.close())).await;
            self.services.browser.close().await;
        };
        futures::join!(crate::notify::settle(NOTIFY_SETTLE), others);
        self.services.store.close().await;
    }
}

/// How long closing waits for the notification daemon's answers. A daemon
/// answers a few notifications within tens of milliseconds; one that draws
/// each before answering (dunst: 100 in 5-10 s) leaves the ids of a burst
/// unrecorded however long this is (their buttons then work while the
/// process lives), so a pass's exit is not held up for them.
const NOTIFY_SETTLE: std::time::Duration = std::time::Duration::from_secs(1);

/// `registry` plus the blueprints registered in `store`. A stored blueprint
/// that no longer reads (a renamed built-in activity) is left out with a
/// warning rather than stopping Halley.
pub async fn with_blueprints(registry: Registry, store: &Store) -> Result<Registry> {
    let builtin = Registry::builtin()?;
    let mut custom = Vec::new();
    for row in store.tools().list().await? {
        if registry.get(&row.name).is_some() {
            continue;
        }
        match blueprint::parse(&row.json_schema, &builtin) {
            Ok(mut spec) => {
                // A client tool's approval is the client's choice, kept in the row.
                if spec.executor == crate::tools::Executor::Client {
                    blueprint::set_client_approval(&mut spec, row.requires_confirmation);
                }
                custom.push(spec);
            }
            Err(e) => tracing::warn!("registered tool `{}` is left out: {}", row.name, e.message()),
        }
    }
    if custom.is_empty() { Ok(registry) } else { registry.with_custom(custom) }
}

/// `registry` plus every tool kept in `store`: registered blueprints and
/// the tools the handlers keep there (the MCP servers' added).
pub async fn with_stored(registry: Registry, store: &Store, handlers: &Handlers) -> Result<Registry> {
    let mut registry = with_blueprints(registry, store).await?;
    for handler in handlers.all() {
        registry = with_handler_tools(registry, handler.stored_tools(store).await?)?;
    }
    Ok(registry)
}

/// `registry` plus the tools a handler keeps in the store (an MCP
/// server's); one whose name is taken is left out with a warning.
fn with_handler_tools(registry: Registry, tools: Vec<ToolSpec>) -> Result<Registry> {
    let mut specs = Vec::new();
    for spec in tools {
        if registry.get(&spec.name).is_some() {
            tracing::warn!("tool `{}` is left out: another tool has that name", spec.name);
            continue;
        }
        specs.push(spec);
    }
    if specs.is_empty() { Ok(registry) } else { registry.with_custom(specs) }
}

/// The core as the [`ToolCaller`] of a handler: calls run on the registry
/// snapshot of the call that made them ([`Core::caller`]).
#[derive(Debug)]
pub struct Snapshot<'a> {
    core: &'a Core,
    registry: &'a Registry,
}

impl ToolCaller for Snapshot<'_> {
    fn call<'a>(&'a self, cx: &'a CallContext, name: &'a str, args: Value) -> BoxFuture<'a, ToolResultV2> {
        Box::pin(self.core.call_in(self.registry, cx, name, args))
    }

    fn registry(&self) -> &Registry {
        self.registry
    }
}

/// Everything that can be decided about a call without touching the data
/// directory: the tool exists, the arguments match its schema, it is
/// available. Front ends call this first so bad input writes nothing.
pub fn preflight<'r>(
    registry: &'r Registry,
    name: &str,
    args: &Value,
) -> std::result::Result<&'r ToolSpec, (Option<&'r ToolSpec>, Error)> {
    let spec = registry.lookup(name).map_err(|e| (None, e))?;
    registry.validate(name, args).map_err(|e| (Some(spec), e))?;
    if spec.status == ToolStatus::Planned {
        let needs = spec.needs.as_deref().unwrap_or("a later release");
        let err = Error::new(
            ErrorCode::NotAvailable,
            format!("`{name}` is not available yet: it needs {needs}. Nothing was done."),
        );
        return Err((Some(spec), err));
    }
    Ok(spec)
}

/// The envelope of a call the gate graded: its effective scope and risk
/// (what the call really did, or would have done when it was refused), or
/// the tool's declared ones when it never reached the gate.
fn graded_result(spec: &ToolSpec, grade: Option<Grade>, output: Result<ToolOutput>) -> ToolResultV2 {
    let (scope, risk) = grade.map_or((spec.permission_scope, spec.risk_level), |g| (g.scope, g.risk));
    match output {
        Ok(output) => ToolResultV2::ok(scope, risk, output),
        Err(err) => ToolResultV2::error(scope, risk, &err),
    }
}

/// Whose results are sealed before the model reads them: other programs'
/// (MCP servers, client applications) and the person's files.
fn seals_result(spec: &ToolSpec) -> bool {
    matches!(spec.executor, Executor::Mcp | Executor::Client)
        || matches!(spec.name.as_str(), "files_get" | "archival_memory_search")
}

/// Every string of `data` with its sensitive values (by shape) replaced by
/// placeholders, kept for `run` ([`crate::secrets::message`]).
fn seal_result(store: &crate::store::Store, run: &str, tool: &str, data: &mut Value) {
    let from = format!("the result of `{tool}`");
    let mut kept = Vec::new();
    seal_strings(data, &from, &mut kept);
    if !kept.is_empty() {
        store.sensitive_results().keep_sealed(run, &kept);
    }
}

fn seal_strings(value: &mut Value, from: &str, kept: &mut Vec<crate::secrets::message::SealedValue>) {
    match value {
        Value::String(s) => {
            let sealed = crate::secrets::message::seal_from(s, from);
            if !sealed.values.is_empty() {
                *s = sealed.text;
                kept.extend(sealed.values);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| seal_strings(v, from, kept)),
        Value::Object(map) => map.values_mut().for_each(|v| seal_strings(v, from, kept)),
        _ => {}
    }
}

/// An error envelope for a call the gate did not grade (it never reached
/// the gate, or was cut short), carrying the tool's declared scope and
/// risk, or READ_ONLY/low when no tool was identified (nothing was done).
pub fn error_result(spec: Option<&ToolSpec>, err: &Error) -> ToolResultV2 {
    use crate::tools::{PermissionScope, RiskLevel};
    let (scope, risk) =
        spec.map_or((PermissionScope::ReadOnly, RiskLevel::Low), |s| (s.permission_scope, s.risk_level));
    ToolResultV2::error(scope, risk, err)
}

/// A crash point just before or after running a tool call that may change
/// something (any scope but READ_ONLY): `before side effect: tool NAME`.
fn side_effect_point(when: &str, spec: &ToolSpec) {
    if spec.permission_scope != crate::tools::PermissionScope::ReadOnly {
        crate::crashpoint::point_with(|| format!("{when} side effect: tool {}", spec.name));
    }
}
