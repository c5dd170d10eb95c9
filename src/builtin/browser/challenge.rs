//! `human_solve_challenge`: hand a CAPTCHA, one-time code, 2FA prompt or
//! login to the user and wait until the page shows it is gone, the user
//! gives up, or the time is up. Halley never solves one itself.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::target::ActivateTargetParams;
use serde_json::{Value, json};

use super::{BrowserTool, Call, output};
use crate::browser::page;
use crate::browser::runtime;
use crate::error::Result;
use crate::gate::action::Action;
use crate::gate::{ChallengeAnswer, ChallengeRequest};
use crate::tools::ToolOutput;
use crate::tools::catalogue::safety::{ChallengeOutcome, HumanSolveChallengeArgs, HumanSolveChallengeOutput};

/// How often the page is checked while the user works.
const CHECK_EVERY: Duration = Duration::from_millis(400);

pub(super) async fn solve(call: &mut Call<'_>, args: HumanSolveChallengeArgs) -> Result<ToolOutput> {
    call.gate_plain(BrowserTool::SolveChallenge, Action::default()).await?;
    if let Some(id) = &args.tab_id
        && !call.guard()?.tabs().iter().any(|t| &t.id == id)
    {
        return Err(call.guard()?.tab_not_found(id));
    }
    let tab = call.tab(args.tab_id.as_deref()).await?;
    // Bring the tab to the user; a background run leaves the user's tab in
    // front: they bring the challenge forward from the panel or the
    // notification (`ShowChallenge`).
    if call.cx.in_foreground() {
        let _ = tab.page.bring_to_front().await;
        if let Ok(browser) = call.guard()?.browser() {
            let _ = browser.execute(ActivateTargetParams::new(tab.page.target_id().clone())).await;
        }
    }
    let (url, _) = page::url_and_title(&tab).await;
    let request = ChallengeRequest {
        tab_id: tab.id.clone(),
        url: url.clone(),
        challenge_type: args.challenge_type,
        page_hint: args.page_hint.clone(),
        run_id: call.cx.run_id.clone(),
    };
    let confirmer = std::sync::Arc::clone(&call.cx.confirmer);
    let deadline = Instant::now() + Duration::from_millis(args.timeout_ms.into());
    // The user may take minutes: other runs use the browser meanwhile (the
    // tab stays this run's).
    // The user's "done" is checked against the page before it is taken.
    let still_there = || -> futures::future::BoxFuture<'_, bool> { Box::pin(present(&tab)) };
    let outcome = call.unlocked(wait_for_user(&tab, confirmer.challenge(&request, &still_there), deadline)).await?;
    let (url, title) = page::url_and_title(&tab).await;
    call.guard()?.note_url(&tab.id, &url, &title);
    Ok(output(&HumanSolveChallengeOutput { outcome })?.at(url))
}

/// Until the page shows no challenge any more, the user gives up, or the
/// time is up. The user's "done" is checked against the page.
async fn wait_for_user(
    tab: &crate::browser::session::TabHandle,
    user: impl std::future::Future<Output = ChallengeAnswer>,
    deadline: Instant,
) -> ChallengeOutcome {
    tokio::pin!(user);
    let mut said_done = false;
    loop {
        if !present(tab).await {
            return ChallengeOutcome::Resolved;
        }
        if tab.check_alive().is_err() {
            // The browser is gone: the call fails `browser_crashed`.
            return ChallengeOutcome::Failed;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return ChallengeOutcome::Timeout;
        }
        if said_done {
            tokio::time::sleep(CHECK_EVERY.min(left)).await;
            continue;
        }
        tokio::select! {
            answer = &mut user => match answer {
                ChallengeAnswer::GaveUp => return ChallengeOutcome::Failed,
                // Done: the page decides; keep checking it.
                ChallengeAnswer::Done => said_done = true,
            },
            () = tokio::time::sleep(CHECK_EVERY.min(left)) => {}
        }
    }
}

/// Whether the page still shows a challenge (a page that cannot be read,
/// e.g. while it reloads, still counts as showing it).
async fn present(tab: &crate::browser::session::TabHandle) -> bool {
    match runtime::call(tab, "state", &json!({})).await {
        Ok(state) => !state.get("challenge").is_none_or(Value::is_null),
        Err(_) => true,
    }
}
