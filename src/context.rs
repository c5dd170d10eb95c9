//! The context every tool call carries: the run it belongs to, which front
//! end started that run, where its questions go, its model-assisted
//! extraction, its cancellation, its allowed origins, whether it may
//! bring a tab to the front, and what others' words it has read (a page, a
//! file, another program's result: [`Reads`]). Nothing per run lives on `Core` or the `Gate`:
//! many runs (the panel's, background watches, API and MCP clients) share
//! one core, each call with its own context.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio::sync::Notify;

use crate::browser::extract::fallback::FieldFallback;
use crate::protocol::{AgentEvent, ChallengeAnswer, ChallengeRequest, ConfirmationRequest};
use crate::tools::catalogue::safety::ConfirmResultV1;
use crate::tools::{Registry, ToolResultV2};

pub use crate::protocol::FrontEnd;

/// A cancel switch shared by whoever may stop the run (Ctrl-C, a Stop
/// button, a pause) and the run itself. Cloning shares the switch.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    inner: Arc<(AtomicBool, Notify)>,
    /// Set with the switch when the process is ending rather than someone
    /// stopping the run: the run is left to be resumed.
    interrupted: Arc<AtomicBool>,
}

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Stop the run: the model stream or tool call in flight is dropped and
    /// the run ends `cancelled`.
    pub fn cancel(&self) {
        self.inner.0.store(true, Ordering::SeqCst);
        self.inner.1.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.0.load(Ordering::SeqCst)
    }

    /// Stop the run because Halley is closing (Quit, a signal): the call
    /// in flight is dropped as on [`Cancel::cancel`], but the run ends
    /// `paused` (`interrupted`), resumable, and its unfinished calls keep
    /// their "interrupted" placeholders instead of a cancelled result. A run
    /// someone stopped already stays cancelled.
    pub fn interrupt(&self) {
        if !self.is_cancelled() {
            self.interrupted.store(true, Ordering::SeqCst);
        }
        self.cancel();
    }

    /// Whether the switch was an [`Cancel::interrupt`].
    pub fn is_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    /// Resolves once [`Cancel::cancel`] has been called.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.1.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
            if self.is_cancelled() {
                return;
            }
        }
    }

    /// Run `work` unless cancelled first: `None` when cancelled.
    pub async fn or_cancelled<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        tokio::select! {
            out = work => Some(out),
            () = self.cancelled() => None,
        }
    }
}

/// The words of others a run has read so far: a page, a file, another
/// program's result (an MCP tool's, a client tool's), a web search. A
/// change that lasts (the profile, memory, watches) made after any of them
/// is asked of the user first, naming where the idea may come from
/// (`gate::check`). Shared by every clone of the run's context, so a
/// skill's steps and the run's own calls add to the same record.
#[derive(Debug, Default)]
pub struct Reads {
    sources: Mutex<Vec<String>>,
    /// A skill's record ([`Reads::for_skill`]): what its steps read goes to
    /// the run's record, not to this one, so its steps are judged on what
    /// the run had read when the model called the skill.
    run: Option<Arc<Reads>>,
}

/// At most this many sources are kept (the first ones; the question names them).
const MAX_SOURCES: usize = 16;

impl Reads {
    /// Note one source (`the page https://shop.vn/p/1`), once.
    pub fn note(&self, source: impl Into<String>) {
        let source = source.into();
        if let Some(run) = &self.run {
            return run.note(source);
        }
        let mut sources = self.sources.lock().unwrap_or_else(|e| e.into_inner());
        if sources.len() < MAX_SOURCES && !sources.contains(&source) {
            sources.push(source);
        }
    }

    /// What was read, in order (empty: only the user's own words).
    pub fn sources(&self) -> Vec<String> {
        self.sources.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The record a skill's steps carry: what `run` has read so far, fixed;
    /// what they read goes on to `run`.
    pub fn for_skill(run: &Arc<Reads>) -> Reads {
        Reads { sources: Mutex::new(run.sources()), run: Some(Arc::clone(run)) }
    }
}

/// See the module documentation. Cheap to clone.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// The run the call belongs to (`None`: a direct call, e.g. the `/`
    /// palette or `halley tools call`).
    pub run_id: Option<String>,
    pub front_end: FrontEnd,
    /// Who answers the call's confirmations and challenges.
    pub confirmer: Arc<dyn Confirmer>,
    /// Who reads the fields `browser_extract`'s rules miss (nobody: they
    /// stay missing with a note).
    pub fallback: Option<Arc<dyn FieldFallback>>,
    pub cancel: Cancel,
    /// Acting outside these origins or host patterns asks first (none: no
    /// limit).
    pub allowed_origins: Option<Arc<[String]>>,
    /// Where this run's client-tool calls go ([`crate::builtin::client`]):
    /// the client that started it (a Letta agent's). None: to the client
    /// that registered each tool.
    pub client: Option<Arc<str>>,
    /// The run's model for the parts of a skill that need language (a
    /// narrow request, its answer checked by the skill): none without a
    /// model (a direct call), and the skill does without.
    pub language: Option<Arc<dyn Language>>,
    /// Where a skill reports the calls it makes (the run's timeline).
    pub steps: Option<Arc<dyn StepSink>>,
    /// The id of the call this context runs (a model's tool call id): a
    /// skill's own calls are numbered under it.
    pub call_id: Option<Arc<str>>,
    /// What others' words the run has read ([`Reads`]), shared by its clones.
    pub reads: Arc<Reads>,
}

/// A model asked for text: one plain chat request (a system and a user
/// message, no tools), its answer's text.
pub trait Language: Send + Sync + std::fmt::Debug {
    fn complete<'a>(&'a self, system: &'a str, user: &'a str) -> BoxFuture<'a, crate::Result<String>>;
}

/// Hears the steps of a skill as they go (what the run's timeline shows).
pub trait StepSink: Send + Sync + std::fmt::Debug {
    fn step(&self, event: AgentEvent);
}

impl CallContext {
    /// A direct call from `front_end`, with nobody to ask (so anything that
    /// needs consent is refused).
    pub fn new(front_end: FrontEnd) -> CallContext {
        CallContext {
            run_id: None,
            front_end,
            confirmer: Arc::new(DenyAll),
            fallback: None,
            cancel: Cancel::new(),
            allowed_origins: None,
            client: None,
            language: None,
            steps: None,
            call_id: None,
            reads: Arc::new(Reads::default()),
        }
    }

    #[must_use]
    pub fn with_run(mut self, run_id: impl Into<String>) -> CallContext {
        self.run_id = Some(run_id.into());
        self
    }

    #[must_use]
    pub fn with_client(mut self, client: Option<&str>) -> CallContext {
        self.client = client.map(Arc::from);
        self
    }

    #[must_use]
    pub fn with_confirmer(mut self, confirmer: Arc<dyn Confirmer>) -> CallContext {
        self.confirmer = confirmer;
        self
    }

    #[must_use]
    pub fn with_fallback(mut self, fallback: Option<Arc<dyn FieldFallback>>) -> CallContext {
        self.fallback = fallback;
        self
    }

    #[must_use]
    pub fn with_language(mut self, language: Option<Arc<dyn Language>>) -> CallContext {
        self.language = language;
        self
    }

    #[must_use]
    pub fn with_steps(mut self, steps: Option<Arc<dyn StepSink>>) -> CallContext {
        self.steps = steps;
        self
    }

    /// The context of the call `call_id` (a skill numbers its own calls under it).
    #[must_use]
    pub fn for_call(mut self, call_id: &str) -> CallContext {
        self.call_id = Some(Arc::from(call_id));
        self
    }

    #[must_use]
    pub fn with_cancel(mut self, cancel: Cancel) -> CallContext {
        self.cancel = cancel;
        self
    }

    /// Limit acting to these origins (an empty list: no limit).
    #[must_use]
    pub fn with_allowed_origins(mut self, origins: Vec<String>) -> CallContext {
        self.allowed_origins = (!origins.is_empty()).then(|| origins.into());
        self
    }

    /// A record of its own of what the run reads (a new run on a context
    /// cloned from another's starts with what its history holds, not with
    /// what the other read).
    #[must_use]
    pub fn with_reads(mut self, sources: impl IntoIterator<Item = String>) -> CallContext {
        let reads = Reads::default();
        for source in sources {
            reads.note(source);
        }
        self.reads = Arc::new(reads);
        self
    }

    /// Who owns the tabs this call opens or is handed: its run, or nobody
    /// (the user's session) for a direct call.
    pub fn tab_owner(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    /// Whether the call may act on the tab the user looks at and bring
    /// tabs to the front.
    pub fn in_foreground(&self) -> bool {
        self.front_end.in_foreground()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn cancel_wakes_every_waiter_even_a_late_one() {
        let cancel = Cancel::new();
        let c2 = cancel.clone();
        let waiter = tokio::spawn(async move { c2.cancelled().await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!cancel.is_cancelled());
        cancel.cancel();
        tokio::time::timeout(Duration::from_secs(2), waiter).await.unwrap().unwrap();
        // Already cancelled: resolves at once.
        tokio::time::timeout(Duration::from_millis(100), cancel.cancelled()).await.unwrap();
    }

    #[test]
    fn only_the_panel_and_the_cli_act_in_front_of_the_user() {
        let front: Vec<FrontEnd> = [FrontEnd::Panel, FrontEnd::Cli, FrontEnd::Background, FrontEnd::Api, FrontEnd::Mcp]
            .into_iter()
            .filter(|f| f.in_foreground())
            .collect();
        assert_eq!(front, vec![FrontEnd::Panel, FrontEnd::Cli]);
        let cx = CallContext::new(FrontEnd::Api).with_run("run-1").with_allowed_origins(vec![]);
        assert_eq!((cx.tab_owner(), cx.allowed_origins.is_none()), (Some("run-1"), true));
    }

    #[test]
    fn a_runs_reads_are_shared_by_its_clones_and_kept_once() {
        let cx = CallContext::new(FrontEnd::Panel).with_run("run-1");
        let step = cx.clone().for_call("call-1");
        step.reads.note("the page https://shop.vn/p/1");
        cx.reads.note("the page https://shop.vn/p/1");
        assert_eq!(cx.reads.sources(), ["the page https://shop.vn/p/1"]);
        // A skill's steps: judged on what the run read before it; what they read is the run's.
        let skill = Reads::for_skill(&cx.reads);
        skill.note("the page https://shop.vn/p/2");
        assert_eq!(skill.sources(), ["the page https://shop.vn/p/1"]);
        assert_eq!(cx.reads.sources(), ["the page https://shop.vn/p/1", "the page https://shop.vn/p/2"]);
        let other = cx.clone().with_reads(Vec::new());
        assert!(other.reads.sources().is_empty(), "a new record of its own");
        assert!(CallContext::new(FrontEnd::Cli).reads.sources().is_empty());
    }
}

/// Whether a challenge handed to the user still shows on its page, read
/// from the page when called.
pub type StillThere<'a> = &'a (dyn Fn() -> BoxFuture<'a, bool> + Send + Sync);

/// Who answers confirmation requests.
pub trait Confirmer: Send + Sync + std::fmt::Debug {
    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>>;

    /// Tell the user a challenge (CAPTCHA, OTP, 2FA, login) waits for them
    /// and resolve when they say they are done or give up. A "done" while
    /// `still_there` (the page read now) says the challenge is on the page
    /// is told back to them and the wait goes on. Without anyone to tell,
    /// it never resolves: the page is watched until the challenge is gone or
    /// the time is up.
    fn challenge<'a>(
        &'a self,
        _request: &'a ChallengeRequest,
        _still_there: StillThere<'a>,
    ) -> Pin<Box<dyn Future<Output = ChallengeAnswer> + Send + 'a>> {
        Box::pin(std::future::pending())
    }

    /// Who answers, for the audit log: `user` (a person was asked),
    /// `nobody` (refused: no one to ask), `preapproved` (`--yes`).
    fn answered_by(&self) -> &'static str {
        "user"
    }

    /// The call in flight waits for the client application that runs
    /// `tool` (`Some`), or no longer does (`None`): the run is paused
    /// meanwhile. Only the run's own observer listens.
    fn waits_for_client(&self, _tool: Option<&str>) {}
}

/// Refuses everything: the default when nobody can be asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl Confirmer for DenyAll {
    fn answered_by(&self) -> &'static str {
        "nobody"
    }

    fn confirm<'a>(
        &'a self,
        request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        // What the user would have been shown: why it needed asking.
        let why = if request.risks.is_empty() {
            String::new()
        } else {
            format!("; asked because {}", request.risks.join("; "))
        };
        Box::pin(async move {
            ConfirmResultV1 {
                approved: false,
                user_edits: Map::new(),
                reason: format!(
                    "no one was there to confirm it (use --yes where you wrote the calls yourself, or run in a terminal){why}"
                ),
            }
        })
    }
}

/// Approves everything: `halley tools call|script --yes`, where the user
/// wrote every call themselves. Never used for model-chosen calls.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

impl Confirmer for ApproveAll {
    fn answered_by(&self) -> &'static str {
        "preapproved"
    }

    fn confirm<'a>(
        &'a self,
        _request: &'a ConfirmationRequest,
    ) -> Pin<Box<dyn Future<Output = ConfirmResultV1> + Send + 'a>> {
        Box::pin(async {
            ConfirmResultV1 { approved: true, user_edits: Map::new(), reason: "approved in advance with --yes".into() }
        })
    }
}

/// How a handler calls other tools (a skill's steps): through the core, in
/// a context it gives, on the registry snapshot of the call it runs in
/// (validated, gated, confirmed, audited like a model's call). The core
/// implements it; handlers, below the core, see only this.
pub trait ToolCaller: Send + Sync + std::fmt::Debug {
    fn call<'a>(&'a self, cx: &'a CallContext, name: &'a str, args: Value) -> BoxFuture<'a, ToolResultV2>;

    /// The registry snapshot the calls run on.
    fn registry(&self) -> &Registry;
}
