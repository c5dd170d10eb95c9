//! Executors of the browser tools, beside the other executors.
//! [`BrowserTool`] is their closed set. A call takes the browser (calls
//! take turns, each seeing its run's tabs) and lets go of it only while its
//! user is asked ([`Call::unlocked`]).

mod act;
mod capture;
mod challenge;
mod facts;
mod files;
mod nav;
mod press;
mod wire;

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::browser::session::{Guard, TabHandle};
use crate::context::CallContext;
use crate::error::{Error, ErrorCode, Result};
use crate::gate::action::{Action, PagePrice};
use crate::gate::check::{Checked, Grade, Pass};
use crate::gate::request::WireRequest;
use crate::handler::{Ran, Services};
use crate::tools::ToolOutput;
use crate::tools::catalogue::common::Target;
use crate::tools::catalogue::robustness::{BrowserRetryArgs, BrowserRetryOutput, RetryableTool};
use crate::tools::{PermissionScope, RiskLevel};

macro_rules! browser_tools {
    ($($variant:ident => $name:literal,)*) => {
        /// The browser tools that run now.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum BrowserTool { $($variant,)* }

        impl BrowserTool {
            pub const ALL: &'static [BrowserTool] = &[$(BrowserTool::$variant,)*];

            pub fn name(self) -> &'static str {
                match self { $(BrowserTool::$variant => $name,)* }
            }
        }
    };
}

browser_tools! {
    Navigate => "browser_navigate",
    NewTab => "browser_new_tab",
    SwitchTab => "browser_switch_tab",
    ListTabs => "browser_list_tabs",
    CloseTab => "browser_close_tab",
    Wait => "browser_wait",
    Click => "browser_click",
    Type => "browser_type",
    Scroll => "browser_scroll",
    PressKey => "browser_press_key",
    SelectOption => "browser_select_option",
    Check => "browser_check",
    Uncheck => "browser_uncheck",
    UploadFile => "browser_upload_file",
    Download => "browser_download",
    Screenshot => "browser_screenshot",
    GetDom => "browser_get_dom",
    ReadText => "browser_read_text",
    Extract => "browser_extract",
    Snapshot => "browser_snapshot",
    Find => "browser_find",
    Retry => "browser_retry",
    DetectState => "browser_detect_state",
    ExtractTable => "browser_extract_table",
    SolveChallenge => "human_solve_challenge",
}

impl BrowserTool {
    pub fn for_tool(name: &str) -> Option<BrowserTool> {
        Self::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// The declared scope and risk (as in the catalogue; a test keeps the
    /// two in step), the floor of what the gate grades a call.
    pub fn declared(self) -> (PermissionScope, RiskLevel) {
        use BrowserTool as T;
        use PermissionScope as S;
        match self {
            T::UploadFile => (S::Submit, RiskLevel::High),
            T::CloseTab => (S::Destructive, RiskLevel::Medium),
            T::ListTabs
            | T::Wait
            | T::Screenshot
            | T::GetDom
            | T::ReadText
            | T::Extract
            | T::Snapshot
            | T::Find
            | T::DetectState
            | T::ExtractTable
            | T::SolveChallenge => (S::ReadOnly, RiskLevel::Low),
            T::Navigate
            | T::NewTab
            | T::SwitchTab
            | T::Click
            | T::Type
            | T::Scroll
            | T::PressKey
            | T::SelectOption
            | T::Check
            | T::Uncheck
            | T::Download
            | T::Retry => (S::WriteNonDestructive, RiskLevel::Low),
        }
    }

    /// Run the tool on schema-validated arguments. Every call passes the
    /// gate, with the action read from the page where it acts on one; the
    /// run says how the gate graded it (also when it failed or was refused).
    pub async fn run(self, ctx: &Services, cx: &CallContext, args: Value) -> Ran {
        let guard = match ctx.browser.acquire(cx.tab_owner(), cx.in_foreground()).await {
            Ok(guard) => guard,
            Err(e) => return Ran { output: Err(e), grade: None },
        };
        let mut call = Call {
            held: Some(guard),
            ctx,
            cx,
            args: args.clone(),
            grade: None,
            tool: self,
            seen: None,
            priced: (None, None),
        };
        let output = call.complete(self, args).await;
        Ran { output, grade: call.grade }
    }
}

impl crate::handler::Handler for BrowserTool {
    /// Browser tools pass the gate inside, with the action read from the page.
    fn gating(&self) -> crate::handler::Gating {
        crate::handler::Gating::Inside
    }

    fn run<'a>(&'a self, call: crate::handler::Invocation<'a>) -> futures::future::BoxFuture<'a, Ran> {
        Box::pin(BrowserTool::run(*self, call.services, call.cx, call.args))
    }
}

/// One tool call: the browser, held for the call (seen as the call's run
/// sees it: its own tabs), the tool context, the call's context, its
/// arguments (hashed into the audit log) and how the gate graded it so far.
pub(crate) struct Call<'a> {
    /// The browser, let go of while the user is asked ([`Call::unlocked`]).
    held: Option<Guard<'a>>,
    pub ctx: &'a Services,
    pub cx: &'a CallContext,
    pub args: Value,
    /// The most serious grading of the call (`None` until it reaches the gate).
    grade: Option<Grade>,
    /// The tool called.
    tool: BrowserTool,
    /// The last tab the call worked on ([`Call::tab`]): what its page sent
    /// by itself meanwhile is told at the end of the call.
    seen: Option<TabHandle>,
    /// What the page said the graded action costs (its total line, the
    /// price of what the control buys), read by [`Call::gate_page`]: the
    /// amount of a request the action sets off that names none of its own
    /// (a "Mua ngay" whose script posts only the sku).
    priced: (Option<String>, Option<PagePrice>),
}

impl<'a> Call<'a> {
    /// The browser as the call holds it.
    pub fn guard(&mut self) -> Result<&mut Guard<'a>> {
        self.held.as_mut().ok_or_else(|| Error::internal("the browser is not held by this call"))
    }

    /// Run `work` (waiting for the user, or a background run's page
    /// loading) without holding the browser, so other runs' calls go on meanwhile; then take it back (relaunched,
    /// if it died meanwhile). The call's tabs stay its run's.
    pub async fn unlocked<T>(&mut self, work: impl std::future::Future<Output = T>) -> Result<T> {
        self.held = None;
        let out = work.await;
        self.held = Some(self.ctx.browser.acquire(self.cx.tab_owner(), self.cx.in_foreground()).await?);
        Ok(out)
    }

    /// Dispatch the call; a dead browser or tab is reported as such, and the
    /// user's sensitive values are masked in what the model sees.
    async fn complete(&mut self, tool: BrowserTool, args: Value) -> Result<ToolOutput> {
        let mut result = self.dispatch(tool, args).await;
        if result.is_ok()
            && let Some(tab) = self.seen.take()
            && let Err(blocked) = wire::late(&tab, tool).await
        {
            result = Err(blocked);
        }
        if result.is_err()
            && let Some(guard) = self.held.as_mut()
            && !guard.alive()
        {
            guard.mark_crashed();
            return Err(crate::browser::cdp::crashed());
        }
        // The model sees the user's sensitive values only as placeholders,
        // whatever the page shows.
        let result = match result {
            Ok(mut out) => {
                let secrets = self.ctx.gate.secrets().await.unwrap_or_default();
                if !secrets.is_empty() {
                    mask_json(&mut out.data, &secrets);
                    out.current_url = out.current_url.map(|u| crate::gate::secrets::mask(&u, &secrets));
                }
                Ok(out)
            }
            Err(e) => Err(e),
        };
        if result.is_err() && self.held.as_ref().is_some_and(|g| g.current_tab_crashed()) {
            return Err(Error::new(
                ErrorCode::BrowserCrashed,
                "the tab crashed during this call; it is reloaded on the next call. The action was not repeated: \
                 check the page before trying again.",
            ));
        }
        result
    }

    /// Put `action` to the gate, keeping how it graded it. While the user
    /// is asked, the browser is free for other runs.
    async fn pass(&mut self, action: &Action, risk: RiskLevel) -> Result<Pass> {
        let (gate, cx) = (&self.ctx.gate, self.cx);
        let checked = match gate.begin(cx, action, risk, &self.args).await {
            Ok(Checked::Decided(done)) => done,
            Ok(Checked::Ask(asking)) => self.unlocked(gate.answer(cx, asking)).await?,
            Err(refused) => Err(refused),
        };
        let grade = match &checked {
            Ok(pass) => Some(pass.grade),
            Err(refused) => refused.grade,
        };
        if let Some(grade) = grade {
            self.grade = Some(self.grade.map_or(grade, |seen| seen.max(grade)));
        }
        checked.map_err(Error::from)
    }

    /// Pass the gate with an action that needs no page (reads, tab
    /// switches): graded by its declared scope and `destination`, if any.
    async fn gate_plain(&mut self, tool: BrowserTool, mut action: Action) -> Result<()> {
        let (scope, risk) = tool.declared();
        action.tool = tool.name().to_owned();
        action.declared = Some(scope);
        self.pass(&action, risk).await.map(|_| ())
    }

    /// Pass the gate with the action read from the page (`target`, or the
    /// focused element). `adjust` adds what the arguments say (keys, text,
    /// file). After the user approves, the action is read again just before
    /// it runs: if the page changed it (another form action, another
    /// button), the user is asked again. Approved, the binding of the
    /// request the user saw (the form it submits, with its values), which
    /// the wire lets go once (`wire::guarded`).
    async fn gate_page(
        &mut self,
        tool: BrowserTool,
        tab: &TabHandle,
        target: Option<&Target>,
        adjust: impl Fn(&mut Action),
    ) -> Result<Option<String>> {
        let (scope, risk) = tool.declared();
        let read = || async {
            let mut action = facts::read(tab, tool.name(), target).await?;
            action.declared = Some(scope);
            adjust(&mut action);
            Ok::<Action, Error>(action)
        };
        for _ in 0..3 {
            let action = read().await?;
            self.priced = (action.page_total.clone(), action.price.clone());
            let pass = self.pass(&action, risk).await?;
            let Some(binding) = pass.approved else { return Ok(None) };
            let now = read().await?;
            // The form's request as the dialog showed it, and as it is now:
            // a field changed while the user read (a hidden quantity) is
            // another request, asked about again.
            let (shown, sent) = (form_request(tool, &action), form_request(tool, &now));
            if now.binding() == binding && shown == sent {
                return Ok(shown);
            }
            tracing::warn!("{}: the page changed the action after it was approved; asking again", tool.name());
        }
        Err(Error::new(
            ErrorCode::Denied,
            "not done: the page kept changing the action after it was approved. Nothing was sent.",
        ))
    }

    /// The tab the call works on (the run's current one, or `id`),
    /// watched from now on ([`wire::watch`]).
    async fn tab(&mut self, id: Option<&str>) -> Result<TabHandle> {
        let tab = self.guard()?.page(id).await?;
        self.watched(&tab).await;
        Ok(tab)
    }

    /// `tab`'s requests judged from now on, as the call's.
    async fn watched(&mut self, tab: &TabHandle) {
        wire::watch(self, tab, self.tool).await;
        self.seen = Some(tab.clone());
    }

    fn guard_options_downloads(&self) -> PathBuf {
        self.ctx.browser.options().downloads_dir.clone()
    }

    async fn dispatch(&mut self, tool: BrowserTool, args: Value) -> Result<ToolOutput> {
        use BrowserTool as T;
        let name = tool.name();
        match tool {
            T::Navigate => nav::navigate(self, parse(name, args)?).await,
            T::NewTab => nav::new_tab(self, parse(name, args)?).await,
            T::SwitchTab => nav::switch_tab(self, parse(name, args)?).await,
            T::ListTabs => nav::list_tabs(self, parse(name, args)?).await,
            T::CloseTab => nav::close_tab(self, parse(name, args)?).await,
            T::Wait => nav::wait(self, parse(name, args)?).await,
            T::Click => act::click(self, parse(name, args)?).await,
            T::Type => act::type_text(self, parse(name, args)?).await,
            T::Scroll => act::scroll(self, parse(name, args)?).await,
            T::PressKey => act::press_key(self, parse(name, args)?).await,
            T::SelectOption => act::select_option(self, parse(name, args)?).await,
            T::Check => act::set_checked(self, parse(name, args)?, true).await,
            T::Uncheck => act::set_checked(self, parse(name, args)?, false).await,
            T::UploadFile => files::upload(self, parse(name, args)?).await,
            T::Download => files::download(self, parse(name, args)?).await,
            T::Screenshot => capture::screenshot(self, parse(name, args)?).await,
            T::GetDom => capture::get_dom(self, parse(name, args)?).await,
            T::ReadText => capture::read_text(self, parse(name, args)?).await,
            T::Extract => capture::extract(self, parse(name, args)?).await,
            T::Snapshot => capture::snapshot(self, parse(name, args)?).await,
            T::Find => capture::find(self, parse(name, args)?).await,
            T::DetectState => capture::detect_state(self, parse(name, args)?).await,
            T::ExtractTable => capture::extract_table(self, parse(name, args)?).await,
            T::SolveChallenge => challenge::solve(self, parse(name, args)?).await,
            T::Retry => Box::pin(self.retry(parse(name, args)?)).await,
        }
    }

    /// `browser_retry`: the wrapped call, validated like a direct one, run
    /// again after flaky failures (not found yet, not interactable yet,
    /// timeouts) with doubling backoff. Other errors end it at once.
    async fn retry(&mut self, args: BrowserRetryArgs) -> Result<ToolOutput> {
        self.gate_plain(BrowserTool::Retry, Action::default()).await?;
        let tool = retry_target(args.action.tool);
        let inner = Value::Object(args.action.arguments);
        let registry = crate::tools::Registry::builtin()?;
        registry.validate(tool.name(), &inner)?;
        let mut errors = Vec::new();
        let mut delay = Duration::from_millis(args.policy.backoff_ms.into());
        for attempt in 1..=args.policy.max_attempts {
            match Box::pin(self.dispatch(tool, inner.clone())).await {
                Ok(out) => {
                    let data = BrowserRetryOutput { attempts: attempt, result: out.data.clone(), errors };
                    let mut wrapped = output(&data)?;
                    wrapped.artifacts = out.artifacts;
                    wrapped.current_url = out.current_url;
                    return Ok(wrapped);
                }
                Err(e) => {
                    let flaky = matches!(
                        e.code(),
                        ErrorCode::ElementNotFound
                            | ErrorCode::NotInteractable
                            | ErrorCode::Timeout
                            | ErrorCode::NavigationFailed
                    );
                    errors.push(format!("attempt {attempt}: [{}] {}", e.code(), e.message()));
                    if !flaky || attempt == args.policy.max_attempts {
                        return Err(Error::new(
                            e.code(),
                            format!("{} failed after {attempt} attempt(s): {}", tool.name(), errors.join("; ")),
                        ));
                    }
                    tokio::time::sleep(delay).await;
                    delay = delay.saturating_mul(2);
                }
            }
        }
        Err(Error::internal("browser_retry made no attempt"))
    }
}

fn retry_target(t: RetryableTool) -> BrowserTool {
    use BrowserTool as B;
    use RetryableTool as R;
    match t {
        R::BrowserNavigate => B::Navigate,
        R::BrowserWait => B::Wait,
        R::BrowserClick => B::Click,
        R::BrowserType => B::Type,
        R::BrowserScroll => B::Scroll,
        R::BrowserPressKey => B::PressKey,
        R::BrowserSelectOption => B::SelectOption,
        R::BrowserCheck => B::Check,
        R::BrowserUncheck => B::Uncheck,
        R::BrowserDownload => B::Download,
        R::BrowserScreenshot => B::Screenshot,
        R::BrowserGetDom => B::GetDom,
        R::BrowserReadText => B::ReadText,
        R::BrowserExtract => B::Extract,
        R::BrowserDetectState => B::DetectState,
        R::BrowserExtractTable => B::ExtractTable,
    }
}

/// Replace the user's sensitive values in every string of `value`.
fn mask_json(value: &mut Value, secrets: &[crate::gate::action::SecretValue]) {
    match value {
        Value::String(s) => *s = crate::gate::secrets::mask(s, secrets),
        Value::Array(items) => items.iter_mut().for_each(|v| mask_json(v, secrets)),
        Value::Object(map) => map.values_mut().for_each(|v| mask_json(v, secrets)),
        _ => {}
    }
}

fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T> {
    serde_json::from_value(args).map_err(|e| Error::invalid_arguments(format!("invalid arguments for `{tool}`: {e}")))
}

pub(crate) fn output<T: Serialize>(data: &T) -> Result<ToolOutput> {
    let data =
        serde_json::to_value(data).map_err(|e| Error::internal("cannot serialise a tool result").with_source(e))?;
    Ok(ToolOutput::data(data))
}

impl ToolOutput {
    /// Set the page the call ended on.
    pub fn at(mut self, url: String) -> Self {
        if !url.is_empty() {
            self.current_url = Some(url);
        }
        self
    }
}

/// The binding of the request a form-submitting action sends, read from
/// `action` (a clicked submit button sends its own name and value too).
fn form_request(tool: BrowserTool, action: &Action) -> Option<String> {
    let el = action.target.as_ref().filter(|t| t.submits_form)?;
    let clicked = tool == BrowserTool::Click && matches!(el.tag.as_str(), "button" | "input");
    let submitter = clicked.then_some((el.field_name.as_str(), el.value.as_str()));
    let request = el.form.as_ref().and_then(|f| WireRequest::of_form(f, action.url.as_deref(), submitter))?;
    Some(request.binding())
}
