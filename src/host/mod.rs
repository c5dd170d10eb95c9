//! The host: what a front end holds (the desktop app, the CLI's `run`,
//! `chat` and `rules`; later the local API). It owns the [`Core`], the model settings, the runs going on
//! (the panel's, background ones, other front ends') and the questions
//! waiting for the user, takes [`Op`]s and broadcasts [`Event`]s
//! (`crate::protocol`). It never imports a UI toolkit.
//!
//! The API below is the contract the desktop shell codes against.

pub mod actions;
mod compose;
pub mod confirm;
mod direct;
mod history;
pub mod letta;
mod mcp_servers;
pub mod memory;
pub mod models;
mod ops;
mod routines;
mod run;
pub mod settings;
mod sources;
pub mod tabs;
pub mod watches;

pub use compose::{handlers, open_core, open_core_full, open_core_with, stored_registry};
pub(crate) use ops::new_rule;
pub use run::{RunModel, RunRequest};

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use tokio::sync::{RwLock, broadcast};

use self::confirm::ChannelConfirmer;
use self::run::RunTable;
use crate::agent::{ModelClient, ModelFlags};
use crate::browser::window::{self, WindowBounds};
use crate::builtin::client::ClientAnswer;
use crate::context::{CallContext, FrontEnd};
use crate::core::{BrowserSettings, Core};
use crate::error::{Error, Result};
use crate::paths::DataDir;
use crate::protocol::{Event, Op, Reply, Settings};
use crate::tools::catalogue::safety::ConfirmResultV1;

/// A rectangle on the screen, in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

/// Who sends an [`Op`]: the front end, who answers the questions its tool
/// calls raise (the panel's channel unless the front end asks itself: a
/// terminal prompt, `--yes`), and the origins its calls may act on.
#[derive(Debug, Clone)]
pub struct Caller {
    pub front_end: FrontEnd,
    pub confirmer: Arc<dyn crate::gate::Confirmer>,
    /// Acting outside these origins or host patterns asks first (empty: no
    /// limit).
    pub allowed_origins: Vec<String>,
    /// Stops the calls made for this caller (an MCP client cancelling its
    /// request).
    pub cancel: crate::context::Cancel,
}

impl Caller {
    /// The desktop panel: questions go to the panel.
    pub fn panel(host: &Host) -> Caller {
        Caller {
            front_end: FrontEnd::Panel,
            confirmer: host.panel_confirmer(),
            allowed_origins: Vec::new(),
            cancel: crate::context::Cancel::new(),
        }
    }

    /// The context of a direct call made for this caller.
    pub fn context(&self) -> CallContext {
        CallContext::new(self.front_end)
            .with_confirmer(Arc::clone(&self.confirmer))
            .with_allowed_origins(self.allowed_origins.clone())
            .with_cancel(self.cancel.clone())
    }
}

/// See the module documentation.
#[derive(Debug)]
pub struct Host {
    core: Core,
    events: broadcast::Sender<Event>,
    /// The panel's questions: events answered by ops.
    confirmer: Arc<ChannelConfirmer>,
    /// The saved settings, as the next run and `CheckModel` read them.
    settings: RwLock<Settings>,
    runs: std::sync::Mutex<RunTable>,
    paused: AtomicBool,
    /// [`Host::close`] has begun: background work stops.
    closing: AtomicBool,
    /// The desktop panel is there to ask the user ([`Host::set_has_panel`]).
    has_panel: AtomicBool,
    /// The user's tabs are kept for the next start ([`Host::keep_tabs`]).
    keeping_tabs: AtomicBool,
    /// The local API served with this host, if any: its port and the token
    /// it accepts (a rotation replaces it at once).
    local_api: crate::secrets::token::Live,
    /// The scheduled replays going on in this host, by routine id, with
    /// their cancel switches (the tray's pause and closing stop them).
    replaying: std::sync::Mutex<std::collections::HashMap<String, crate::context::Cancel>>,
}

/// How long [`Host::close`] lets a stopped run record its end.
const CLOSE_WAIT: Duration = Duration::from_secs(3);

impl Host {
    /// Open the data directory and the core. The browser starts on the first
    /// browser call (or [`Host::set_browser_window`]).
    pub async fn open(data_dir: DataDir, browser: BrowserSettings) -> Result<Arc<Host>> {
        data_dir.ensure()?;
        // The saved settings may name the browser to use.
        let saved = settings::read(&data_dir).await?;
        let browser = BrowserSettings {
            chromium: browser.chromium.or_else(|| saved.chromium.as_deref().map(std::path::PathBuf::from)),
            ..browser
        };
        let core = compose::open_core_full(data_dir, crate::tools::Registry::builtin()?, browser).await?;
        let (events, _) = broadcast::channel(1024);
        let confirmer = Arc::new(ChannelConfirmer::new(events.clone()));
        Ok(Arc::new(Host {
            core,
            events,
            confirmer,
            settings: RwLock::new(saved),
            runs: std::sync::Mutex::default(),
            paused: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            has_panel: AtomicBool::new(false),
            keeping_tabs: AtomicBool::new(false),
            local_api: crate::secrets::token::Live::default(),
            replaying: std::sync::Mutex::default(),
        }))
    }

    /// Every [`Event`] from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// The core (the store, the registry, the browser), for front ends
    /// that need more than the protocol.
    pub fn core(&self) -> &Core {
        &self.core
    }

    /// The settings as saved now.
    pub async fn settings(&self) -> Settings {
        self.settings.read().await.clone()
    }

    /// Carry out one [`Op`] for the panel; what it answers is documented on
    /// the `Op`.
    pub async fn handle(self: &Arc<Self>, op: Op) -> Result<Reply> {
        let panel = Caller::panel(self);
        self.handle_as(&panel, op).await
    }

    /// Carry out one [`Op`] for `caller`: the front end that sent it, who
    /// answers the questions its tool calls raise, and where they may act.
    pub async fn handle_as(self: &Arc<Self>, caller: &Caller, op: Op) -> Result<Reply> {
        let store = self.core.store();
        match op {
            Op::SendMessage { text, conversation_id, tabs } => self.send_message(text, conversation_id, tabs).await,
            Op::Stop { run_id } => {
                self.stop(run_id.as_deref())?;
                Ok(Reply::Done)
            }
            Op::ListRuns => Ok(Reply::Runs { runs: self.runs_going() }),
            // [ops: Letta's routes]
            Op::StoredTool { name } => letta::stored_tool(&self.core, &name).await,
            Op::ListClientTools => letta::client_tools(&self.core).await,
            Op::RegisterClientSchema { name, description, parameters } => {
                let parameters = parameters.unwrap_or(serde_json::Value::Null);
                letta::register_client_schema(&self.core, &name, &description, &parameters).await
            }
            Op::CreateLettaAgent { name, model, system, tools } => {
                letta::create_agent(store, name, model, system, tools).await
            }
            Op::GetLettaAgent { id } => letta::agent(store, &id).await,
            Op::StartLettaRun { agent_id, text, max_steps } => {
                self.start_letta_run(caller, &agent_id, text, max_steps).await
            }
            Op::RunUsage { run_id } => letta::run_usage(store, &run_id).await,
            Op::RegisterTool { blueprint } => {
                let tool = self.core.register_blueprint(&blueprint).await?;
                let _ = self.events.send(Event::ToolsChanged);
                Ok(Reply::Tool { tool })
            }
            Op::RegisterClientTool { name, description, source_code, requires_approval, client, timeout_secs } => {
                let tool = self.core.register_client_tool(&name, &description, &source_code, requires_approval).await?;
                let timeout = timeout_secs.map(|s| std::time::Duration::from_secs(u64::from(s.max(1))));
                let client = client.as_deref().unwrap_or(crate::builtin::client::DEFAULT_CLIENT);
                self.core.client_calls().set_owner(&name, client, timeout);
                let _ = self.events.send(Event::ToolsChanged);
                Ok(Reply::Tool { tool })
            }
            Op::AnswerClientCall { tool_call_id, result, error, sensitive } => {
                let answer = match (result, error) {
                    (Some(result), None) if sensitive => {
                        crate::secrets::results::check_size(&result)?;
                        ClientAnswer::Sensitive { tool_call_id: tool_call_id.clone(), result }
                    }
                    (Some(result), None) => ClientAnswer::Result(result),
                    (None, Some(_)) if sensitive => {
                        return Err(Error::invalid_arguments(
                            "`sensitive` marks a result; an error message goes to the model as it is. Answer with \
                             the error without `sensitive` (and no secret in it), or with a sensitive `result`",
                        ));
                    }
                    (None, Some(error)) => ClientAnswer::Error(error),
                    _ => {
                        return Err(Error::invalid_arguments(
                            "give exactly one of `result` (the function's JSON result) and `error` (a message)",
                        ));
                    }
                };
                self.core.client_calls().answer(&tool_call_id, answer).map_err(|r| r.error(&tool_call_id))?;
                Ok(Reply::Done)
            }
            Op::UnregisterTool { name } => {
                self.core.unregister_blueprint(&name).await?;
                let _ = self.events.send(Event::ToolsChanged);
                Ok(Reply::Done)
            }
            Op::AnswerConfirmation { id, approved, user_edits, reason } => {
                self.confirmer.answer_confirmation(&id, ConfirmResultV1 { approved, user_edits, reason })?;
                Ok(Reply::Done)
            }
            Op::AnswerChallenge { id, done } => {
                let still_there = self.confirmer.answer_challenge(&id, done).await?;
                Ok(Reply::ChallengeAnswered { still_there })
            }
            Op::ShowChallenge { id } => {
                let tab = self.confirmer.challenge_tab(&id)?;
                self.show_tab(&tab).await?;
                Ok(Reply::Done)
            }
            Op::ListConversations { limit, query } => ops::conversations(store, limit, query.as_deref()).await,
            Op::OpenConversation { id } => ops::conversation(store, &id).await,
            Op::RunTimeline { run_id } => ops::timeline(store, &run_id).await,
            Op::ListTools => Ok(Reply::Tools { tools: self.core.registry().list().cloned().collect() }),
            Op::CallTool { name, args } => {
                let result = self.core.call_tool(&caller.context(), &name, args).await;
                self.after_tool_call(&name, &result).await;
                Ok(Reply::ToolResult { result })
            }
            Op::GetSettings => Ok(self.settings_reply().await),
            Op::SaveSettings { settings: new } => {
                let saved = settings::save(store, new).await?;
                *self.settings.write().await = saved;
                Ok(self.settings_reply().await)
            }
            Op::SaveApiKey { key } => {
                settings::save_key(&self.settings().await, &key).await?;
                Ok(self.settings_reply().await)
            }
            Op::DeleteApiKey => {
                settings::delete_key(&self.settings().await).await?;
                Ok(self.settings_reply().await)
            }
            Op::SaveSearchKey { key } => {
                crate::search::save_brave_key(self.core.data_dir(), &key).await?;
                Ok(self.settings_reply().await)
            }
            Op::DeleteSearchKey => {
                crate::search::delete_brave_key(self.core.data_dir()).await?;
                Ok(self.settings_reply().await)
            }
            Op::CheckModel { endpoint: None } => {
                Ok(Reply::ModelStatus { status: settings::check_model(&self.settings().await).await? })
            }
            Op::CheckModel { endpoint: Some(typed) } => {
                Ok(Reply::ModelStatus { status: settings::check_typed(&self.settings().await, typed).await? })
            }
            Op::FindLocalModels => {
                Ok(Reply::LocalModels { servers: settings::find_local(&self.settings().await).await })
            }
            Op::ListRules => ops::rules(store).await,
            Op::AddRule { site, tool, min_scope, decision, note } => {
                let rule = ops::new_rule(site, tool, min_scope, decision, note.unwrap_or_default())?;
                store.gate_rules().add(&rule).await?;
                self.core.gate().reload_rules().await?;
                ops::rules(store).await
            }
            Op::RemoveRule { id } => {
                store.gate_rules().remove(&id).await?;
                self.core.gate().reload_rules().await?;
                ops::rules(store).await
            }
            Op::ReadArtifact { reference } => ops::read_artifact(self.core.data_dir().root(), &reference).await,
            Op::SetPaused { paused } => {
                self.set_paused(paused);
                Ok(Reply::Done)
            }
            Op::CurrentTab => {
                let tab = self.core.browser().user_tab().await?;
                let (url, title) = tab.map_or((None, None), |(u, t)| (Some(u), Some(t)));
                Ok(Reply::CurrentTab { url, title })
            }
            Op::ListAlerts { limit } => self.alerts(limit).await,
            Op::MarkAlertsRead { ids } => self.mark_alerts_read(ids.as_deref()).await,
            // [ops: the CLI's tools, watch, auth and mcp commands]
            Op::SignInAccount { provider, issuer, client_id, client_secret, scopes, timeout_secs } => {
                let sign_in = direct::SignIn { provider, issuer, client_id, client_secret, scopes, timeout_secs };
                self.sign_in_account(caller, sign_in).await
            }
            Op::OpenSignInPage { url } | Op::OpenPage { url } => self.open_page(&url).await,
            Op::CheckAccount { name } => self.check_account(name).await,
            Op::SignOutAccount { name } => self.sign_out_account(&name).await,
            Op::ListAccountRecords => self.account_records().await,
            Op::AttachMcpServer { name, url, headers, command } => {
                self.attach_mcp_server(name, url, &headers, command).await
            }
            Op::ListMcpServerRecords => self.mcp_server_records().await,
            Op::ListAccounts => ops::accounts(&self.core).await,
            Op::ConnectAccount { provider, issuer, client_id, client_secret, scopes } => {
                let request = ops::connect_request(&provider, issuer, client_id, client_secret, scopes)?;
                let pending = self.core.oauth().begin(request).await?;
                let url = pending.authorize_url.clone();
                let _ = self.events.send(Event::AccountSignIn { provider: pending.provider.name().to_owned(), url });
                if let Err(e) = crate::oauth::open_in_browser(self.core.browser(), &pending.authorize_url).await {
                    tracing::warn!(error = %e, "cannot open the sign-in page in the managed browser; the panel shows it");
                }
                self.core.oauth().finish(pending).await?;
                ops::accounts(&self.core).await
            }
            Op::DisconnectAccount { name } => {
                self.core.oauth().disconnect(&name).await?;
                ops::accounts(&self.core).await
            }
            Op::ListMcpServers => ops::mcp_servers(&self.core).await,
            Op::AddMcpServer { name, url, headers, command } => {
                let transport = crate::mcp::client::transport(url, &headers, command)?;
                self.core.add_mcp_server(&name, &transport).await?;
                ops::mcp_servers(&self.core).await
            }
            // [ops: run history, audit and memory]
            Op::RunHistory { limit } => history::runs(store, limit).await,
            Op::ShowRun { run_id, traces } => history::run(store, &run_id, traces).await,
            Op::AuditLog { limit } => history::audit(store, limit).await,
            Op::MemoryBlocks => memory::blocks(store).await,
            Op::SetMemoryBlock { label, value, limit } => memory::set(store, &label, &value, limit).await,
            Op::MemoryHistory { label, limit } => memory::history(store, label.as_deref(), limit).await,
            Op::SearchArchival { query, tags, limit, mode, since, until, source } => {
                let filter = crate::builtin::memory::embedder::Filter { tags, since, until, source };
                memory::search(store, &query, filter, limit, mode).await
            }
            Op::MemoryEmbedder => memory::embedder(store).await,
            Op::SetMemoryEmbedder { base_url, model, api, query_prefix, passage_prefix, input_type, allow_remote } => {
                let input = crate::builtin::memory::embedder::EmbedderInput {
                    base_url,
                    model,
                    api: api.map(memory::api_of),
                    query_prefix,
                    passage_prefix,
                    input_type,
                    allow_remote,
                };
                memory::set_embedder(store, input).await
            }
            Op::EmbedArchival => memory::embed(store).await,
            Op::ListArchival { limit } => memory::passages(store, limit).await,
            Op::AddArchival { text, tags } => memory::add(store, &text, &tags).await,
            Op::CreateSource { name, description } => sources::create(store, &name, &description).await,
            Op::ListSources => sources::list(store).await,
            Op::AddToSource { name, paths } => Box::pin(sources::add(self.core.services(), &name, &paths)).await,
            Op::SourceFiles { name } => sources::files(store, &name).await,
            Op::DeleteSource { name } => sources::delete(store, &name).await,
            Op::RemoveMcpServer { name } => {
                self.core.remove_mcp_server(&name).await?;
                ops::mcp_servers(&self.core).await
            }
            // [ops: routines] (their futures on the heap: a replay's steps are
            // whole tool calls, which would make every op's future as large)
            Op::SaveRoutine { run_id, name } => Box::pin(self.save_routine(&run_id, &name)).await,
            Op::CanSaveRoutine { run_id } => {
                Ok(Reply::RoutineSavable { refusal: crate::routine::savable(self.core.store(), &run_id).await? })
            }
            Op::ListRoutines => self.list_routines().await,
            Op::ShowRoutine { name } => self.show_routine(&name).await,
            Op::DeleteRoutine { name } => self.delete_routine(&name).await,
            Op::EditRoutineParams { name, rename, set, require } => {
                self.edit_routine_params(&name, crate::routine::ParamEdits { rename, set, require }).await
            }
            Op::RunRoutine { name, params, after_interrupted, remember_approval } => {
                let options = crate::routine::ReplayOptions {
                    params,
                    after_interrupted,
                    remember_approval,
                    ..crate::routine::ReplayOptions::default()
                };
                Box::pin(self.run_routine(caller, &name, options)).await
            }
            Op::ForgetRoutineApprovals { name } => self.forget_routine_approvals(&name).await,
            Op::ScheduleRoutine { name, every, at } => self.schedule_routine(&name, &every, at.as_deref()).await,
            Op::PauseRoutine { name, paused } => self.pause_routine(&name, paused).await,
            Op::UnscheduleRoutine { name } => self.unschedule_routine(&name).await,
            Op::SetRoutineRepair { name, allowed } => self.set_routine_repair(&name, allowed).await,
            Op::ApiInfo => {
                let secrets = crate::secrets::SecretStore::os()?;
                let token = crate::secrets::token::get_or_create(&secrets, self.core.data_dir()).await?;
                Ok(self.api_info(token.into_exposed()))
            }
            Op::RotateApiToken => {
                let secrets = crate::secrets::SecretStore::os()?;
                let token = crate::secrets::token::rotate(&secrets, self.core.data_dir()).await?.into_exposed();
                self.local_api.replace_token(&token);
                Ok(self.api_info(token))
            }
        }
    }

    /// The local API's state shared with its handlers (the API sets it when
    /// it starts serving this host).
    pub fn local_api(&self) -> &crate::secrets::token::Live {
        &self.local_api
    }

    fn api_info(&self, token: String) -> Reply {
        let address = self.local_api.port().map(|p| format!("http://127.0.0.1:{p}"));
        Reply::ApiInfo { address, token }
    }

    /// The desktop app says its panel is there to ask the user (a CLI or
    /// `halley serve` host has none: questions no program answers are
    /// refused where a front end cannot ask them itself).
    pub fn set_has_panel(&self, present: bool) {
        self.has_panel.store(present, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn has_panel(&self) -> bool {
        self.has_panel.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The panel's question channel (events answered by ops), for runs and
    /// calls whose questions go to the panel.
    pub fn panel_confirmer(&self) -> Arc<dyn crate::gate::Confirmer> {
        Arc::clone(&self.confirmer) as Arc<dyn crate::gate::Confirmer>
    }

    /// The client and the model a run would use now: the saved settings
    /// with the front end's `overrides` ([`settings::agent_model`]).
    pub async fn agent_model(&self, overrides: Option<ModelFlags>) -> Result<(ModelClient, String)> {
        settings::agent_model(&self.settings().await, overrides).await
    }

    async fn settings_reply(&self) -> Reply {
        let settings = self.settings().await;
        let api_key_saved = settings::api_key_saved(&settings).await;
        let search_key_saved = crate::search::brave_key(self.core.data_dir()).await.is_ok_and(|k| k.is_some());
        Reply::Settings { settings, api_key_saved, search_key_saved }
    }

    fn headless(&self) -> bool {
        self.core.browser().options().headless
    }

    /// Where the managed browser's window is (`None`: no browser window yet,
    /// or a headless browser).
    pub async fn browser_window(&self) -> Result<Option<Rect>> {
        if self.headless() {
            return Ok(None);
        }
        let Some(page) = self.core.browser().window_page(None, false).await? else { return Ok(None) };
        let b = window::bounds(&page).await?;
        Ok(Some(Rect {
            x: i32::try_from(b.left).unwrap_or(0),
            y: i32::try_from(b.top).unwrap_or(0),
            width: u32::try_from(b.width).unwrap_or(0),
            height: u32::try_from(b.height).unwrap_or(0),
        }))
    }

    /// Move and size the managed browser's window (starting the browser if
    /// needed), e.g. to dock it beside the panel.
    pub async fn set_browser_window(&self, rect: Rect) -> Result<()> {
        if self.headless() {
            return Ok(());
        }
        let Some(page) = self.core.browser().window_page(None, true).await? else { return Ok(()) };
        let to = WindowBounds {
            left: rect.x.into(),
            top: rect.y.into(),
            width: rect.width.into(),
            height: rect.height.into(),
        };
        window::set_bounds(&page, to).await
    }

    /// Whether the managed browser's window has the focus now: the user is
    /// in it (false for a headless browser, or none running; never waits
    /// more than a second).
    pub async fn browser_focused(&self) -> bool {
        if self.headless() {
            return false;
        }
        let read = async {
            let page = self.core.browser().window_page(None, false).await.ok()??;
            window::has_focus(&page).await.ok()
        };
        tokio::time::timeout(Duration::from_secs(1), read).await.ok().flatten().unwrap_or(false)
    }

    /// Bring the browser's window and tab `tab` to the front.
    async fn show_tab(&self, tab: &str) -> Result<()> {
        if self.headless() {
            return Ok(());
        }
        match self.core.browser().window_page(Some(tab), false).await? {
            Some(page) => window::bring_to_front(&page).await,
            None => Ok(()),
        }
    }

    /// Whether [`Host::close`] has begun.
    pub fn closing(&self) -> bool {
        self.closing.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Interrupt every run (left paused, resumable), refuse the questions
    /// still waiting, keep the tabs for the next start (when
    /// [`Host::keep_tabs`] was called; at most [`CLOSE_WAIT`] more), close
    /// the browser (if Halley started it) and the store.
    pub async fn close(&self) {
        self.closing.store(true, std::sync::atomic::Ordering::SeqCst);
        self.interrupt_runs();
        let until = Instant::now() + CLOSE_WAIT;
        while !self.runs().going.is_empty() && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        // After the runs stopped (a question they waited on is asked again
        // when they resume); others' questions, e.g. a direct tool call's.
        self.confirmer.refuse_all();
        // The tabs as the user left them, before the browser closes (a call
        // still holding it past a second: the last save stands).
        if self.keeping_tabs.load(std::sync::atomic::Ordering::SeqCst) {
            match tokio::time::timeout(CLOSE_WAIT, self.save_tabs()).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!("cannot keep the tabs for the next start: {}", e.to_wire().message),
                Err(_) => tracing::warn!("the tabs were not saved within {CLOSE_WAIT:?}: the last save stands"),
            }
        }
        self.core.close().await;
    }
}
