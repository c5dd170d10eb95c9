//! Executors of the built-in tools that run now, and their argument and
//! output types (the catalogue generates their JSON Schemas from these).
//! [`Builtin`] is the closed set of them: a tool is `available` exactly
//! when it has a variant here (the registry checks this at start).

pub mod auth;
pub mod browser;
pub mod confirm;
pub mod files;
pub mod memory;
pub mod normalize_compare;
pub mod profile;
pub mod watch;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use std::sync::Arc;

use crate::browser::BrowserSession;
use crate::context::CallContext;
use crate::error::{Error, Result};
use crate::gate::check::{Gate, Grade};
use crate::paths::DataDir;
use crate::store::Store;
use crate::tools::Effects;
use crate::tools::result::ToolOutput;
use browser::BrowserTool;

/// What executors share: the store, the data directory, the managed
/// browser (started on the first browser call) and the gate. What belongs
/// to one call (its run, who answers, its model helpers) is its
/// [`CallContext`].
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub store: Store,
    pub data_dir: DataDir,
    pub browser: Arc<BrowserSession>,
    pub gate: Arc<Gate>,
    /// OAuth accounts: connect, access tokens by account (`crate::oauth`).
    pub oauth: Arc<crate::oauth::OAuth>,
}

/// What running a built-in tool gave: its output or error, and how the gate
/// graded the call when the executor passed the gate itself (the browser
/// tools, with the action read from the page; `None` for the others, which
/// `Core` gates before they run, and for a call that failed before the gate).
#[derive(Debug)]
pub struct Ran {
    pub output: Result<ToolOutput>,
    pub grade: Option<Grade>,
}

/// The built-in tools that run now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    NormalizeCompare,
    UserProfileGet,
    UserProfileSet,
    FilesStore,
    FilesGet,
    FilesTag,
    RequestUserConfirmation,
    CoreMemoryAppend,
    CoreMemoryReplace,
    ArchivalMemoryInsert,
    ArchivalMemorySearch,
    WatchCreate,
    WatchPoll,
    WatchList,
    WatchPause,
    WatchResume,
    WatchUpdate,
    WatchDelete,
    WatchHistory,
    NotifySend,
    AuthOauthConnect,
    WebSearch,
    /// The browser tools (`browser`).
    Browser(BrowserTool),
}

impl Builtin {
    pub const ALL: [Builtin; 22] = [
        Self::NormalizeCompare,
        Self::UserProfileGet,
        Self::UserProfileSet,
        Self::FilesStore,
        Self::FilesGet,
        Self::FilesTag,
        Self::RequestUserConfirmation,
        Self::CoreMemoryAppend,
        Self::CoreMemoryReplace,
        Self::ArchivalMemoryInsert,
        Self::ArchivalMemorySearch,
        Self::WatchCreate,
        Self::WatchPoll,
        Self::WatchList,
        Self::WatchPause,
        Self::WatchResume,
        Self::WatchUpdate,
        Self::WatchDelete,
        Self::WatchHistory,
        Self::NotifySend,
        Self::AuthOauthConnect,
        Self::WebSearch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::NormalizeCompare => "normalize_compare",
            Self::UserProfileGet => "user_profile_get",
            Self::UserProfileSet => "user_profile_set",
            Self::FilesStore => "files_store",
            Self::FilesGet => "files_get",
            Self::FilesTag => "files_tag",
            Self::RequestUserConfirmation => "request_user_confirmation",
            Self::CoreMemoryAppend => "core_memory_append",
            Self::CoreMemoryReplace => "core_memory_replace",
            Self::ArchivalMemoryInsert => "archival_memory_insert",
            Self::ArchivalMemorySearch => "archival_memory_search",
            Self::WatchCreate => "watch_create",
            Self::WatchPoll => "watch_poll",
            Self::WatchList => "watch_list",
            Self::WatchPause => "watch_pause",
            Self::WatchResume => "watch_resume",
            Self::WatchUpdate => "watch_update",
            Self::WatchDelete => "watch_delete",
            Self::WatchHistory => "watch_history",
            Self::NotifySend => "notify_send",
            Self::AuthOauthConnect => "auth_oauth_connect",
            Self::WebSearch => "web_search",
            Self::Browser(tool) => tool.name(),
        }
    }

    /// What the tool declares about its calls (copied into its spec).
    pub fn effects(self) -> Effects {
        let edits = Effects { edits_memory: true, ..Effects::default() };
        match self {
            Self::Browser(tool) => tool.effects(),
            Self::CoreMemoryAppend | Self::CoreMemoryReplace | Self::UserProfileSet => edits,
            Self::RequestUserConfirmation => Effects { asks_user: true, ..Effects::default() },
            // Results are what pages say; a CAPTCHA on the search page is
            // handed to the user.
            Self::WebSearch => Effects { page_content: true, asks_user: true, ..Effects::default() },
            // What pages say (prices, fields, product names) comes back.
            Self::WatchCreate | Self::WatchPoll | Self::WatchList | Self::WatchHistory => {
                Effects { page_content: true, ..Effects::default() }
            }
            Self::NormalizeCompare
            | Self::UserProfileGet
            | Self::FilesStore
            | Self::FilesGet
            | Self::FilesTag
            | Self::ArchivalMemoryInsert
            | Self::ArchivalMemorySearch
            | Self::WatchPause
            | Self::WatchResume
            | Self::WatchUpdate
            | Self::WatchDelete
            | Self::NotifySend
            | Self::AuthOauthConnect => Effects::default(),
        }
    }

    pub fn for_tool(name: &str) -> Option<Builtin> {
        Self::ALL.into_iter().find(|b| b.name() == name).or_else(|| BrowserTool::for_tool(name).map(Self::Browser))
    }

    /// Run the tool on already schema-validated arguments.
    pub async fn run(self, ctx: &ToolContext, cx: &CallContext, args: Value) -> Ran {
        let output = match self {
            Self::Browser(tool) => return tool.run(ctx, cx, args).await,
            other => other.run_local(ctx, cx, args).await,
        };
        Ran { output, grade: None }
    }

    /// The tools that need no browser.
    async fn run_local(self, ctx: &ToolContext, cx: &CallContext, args: Value) -> Result<ToolOutput> {
        match self {
            Self::NormalizeCompare => {
                let out = normalize_compare::normalize_compare(&parse(self, args)?)?;
                to_output(&out)
            }
            Self::UserProfileGet => to_output(&profile::get(&ctx.store, parse(self, args)?).await?),
            Self::UserProfileSet => to_output(&profile::set(&ctx.store, parse(self, args)?).await?),
            Self::FilesStore => to_output(&files::store(ctx, parse(self, args)?).await?),
            Self::FilesGet => to_output(&files::get(ctx, parse(self, args)?).await?),
            Self::FilesTag => to_output(&files::tag(ctx, parse(self, args)?).await?),
            Self::RequestUserConfirmation => to_output(&confirm::request(ctx, cx, parse(self, args)?).await?),
            Self::CoreMemoryAppend => to_output(&memory::append(&ctx.store, parse(self, args)?).await?),
            Self::CoreMemoryReplace => to_output(&memory::replace(&ctx.store, parse(self, args)?).await?),
            Self::ArchivalMemoryInsert => to_output(&memory::insert(&ctx.store, parse(self, args)?).await?),
            Self::ArchivalMemorySearch => to_output(&memory::search(&ctx.store, parse(self, args)?).await?),
            Self::WatchCreate => to_output(&watch::create(ctx, parse(self, args)?).await?),
            Self::WatchPoll => to_output(&watch::poll(ctx, parse(self, args)?).await?),
            Self::WatchList => to_output(&watch::list(ctx, parse(self, args)?).await?),
            Self::WatchPause => to_output(&watch::set_active(ctx, parse(self, args)?, false).await?),
            Self::WatchResume => to_output(&watch::set_active(ctx, parse(self, args)?, true).await?),
            Self::WatchUpdate => to_output(&watch::update(ctx, parse(self, args)?).await?),
            Self::WatchDelete => to_output(&watch::delete(ctx, parse(self, args)?).await?),
            Self::WatchHistory => to_output(&watch::history(ctx, parse(self, args)?).await?),
            Self::NotifySend => to_output(&watch::notify_send(ctx, parse(self, args)?).await?),
            Self::AuthOauthConnect => to_output(&auth::connect(ctx, parse(self, args)?).await?),
            Self::WebSearch => to_output(&crate::search::web_search(ctx, cx, parse(self, args)?).await?),
            Self::Browser(tool) => Err(Error::internal(format!("{} runs in the browser", tool.name()))),
        }
    }
}

fn parse<T: DeserializeOwned>(tool: Builtin, args: Value) -> Result<T> {
    serde_json::from_value(args)
        .map_err(|e| Error::invalid_arguments(format!("invalid arguments for `{}`: {e}", tool.name())))
}

fn to_output<T: Serialize>(data: &T) -> Result<ToolOutput> {
    let data =
        serde_json::to_value(data).map_err(|e| Error::internal("cannot serialise a tool result").with_source(e))?;
    Ok(ToolOutput::data(data))
}
