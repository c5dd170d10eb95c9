//! Starting the browser (with bounded backoff after a crash), reopening the
//! old session's tabs after a relaunch, and listing the browser's pages.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::browser::{SetDownloadBehaviorBehavior, SetDownloadBehaviorParams};
use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, CreateTargetParams, GetTargetsParams, TargetId};

use super::super::cdp::cdp_error;
use super::super::launch::{BrowserOptions, Connected, connect};
use super::{State, Tab};
use crate::error::{Error, ErrorCode, Result};

/// Delays before each launch attempt after a crash.
const RELAUNCH_BACKOFF_MS: [u64; 3] = [0, 500, 1500];

/// How long after a launch the browser's own start page is closed.
const STARTUP_GRACE: Duration = Duration::from_secs(5);

pub(super) async fn start(options: &BrowserOptions, state: &mut State) -> Result<()> {
    let mut last: Option<Error> = None;
    for delay in RELAUNCH_BACKOFF_MS.iter().take(if state.launches == 0 { 1 } else { RELAUNCH_BACKOFF_MS.len() }) {
        tokio::time::sleep(Duration::from_millis(*delay)).await;
        match connect(options).await {
            Ok(conn) => {
                state.launches += 1;
                state.startup_until = conn.owned.then(|| Instant::now() + STARTUP_GRACE);
                let _ = std::fs::create_dir_all(&options.downloads_dir);
                let downloads = SetDownloadBehaviorParams::builder()
                    .behavior(SetDownloadBehaviorBehavior::AllowAndName)
                    .download_path(options.downloads_dir.display().to_string())
                    .events_enabled(true)
                    .build();
                if let Ok(params) = downloads
                    && let Err(e) = conn.browser.execute(params).await
                {
                    tracing::warn!("cannot set the download folder: {e}");
                }
                state.conn = Some(conn);
                return Ok(());
            }
            Err(e) => {
                tracing::warn!("browser launch failed: {}", e.to_wire().message);
                last = Some(e);
            }
        }
    }
    Err(last.unwrap_or_else(|| Error::new(ErrorCode::BrowserUnavailable, "cannot start the browser")))
}

/// After a relaunch, open each tab of the old session again at its last
/// URL, under its old id, without waiting for the pages to load. Only
/// navigations: no click or submit is replayed.
pub(super) async fn reopen_tabs(state: &mut State, reopen: Vec<(String, String)>) -> Result<()> {
    let old_current = state.current.clone();
    state.tabs.clear();
    let Some(conn) = state.conn.as_ref() else { return Ok(()) };
    // A browser Halley starts has no window (`--no-startup-window`); a tab
    // it opened anyway is not the user's. An attached browser's tabs are.
    let spare = if conn.owned { page_targets(conn).await? } else { Vec::new() };
    let mut tabs = Vec::new();
    for (id, url) in reopen {
        let url = if url.is_empty() || url.starts_with("chrome-error:") { "about:blank".to_owned() } else { url };
        match conn.browser.execute(CreateTargetParams::new(url.clone())).await {
            Ok(created) => {
                tabs.push(Tab { id, target: created.result.target_id.clone(), url, title: String::new(), live: None })
            }
            Err(e) => tracing::warn!("cannot reopen {url}: {e}"),
        }
    }
    if !tabs.is_empty() {
        // The blank tab the new browser opened with is not one of the user's.
        for (target, _, _, _) in spare {
            let _ = conn.browser.execute(CloseTargetParams::new(target)).await;
        }
    }
    state.tabs = tabs;
    state.current = old_current.filter(|c| state.tabs.iter().any(|t| &t.id == c));
    Ok(())
}

/// The page targets of the browser, in its order: (id, url, title, the
/// page that opened it).
pub(super) async fn page_targets(conn: &Connected) -> Result<Vec<(TargetId, String, String, Option<TargetId>)>> {
    let targets = conn.browser.execute(GetTargetsParams::default()).await.map_err(|e| cdp_error(e, true))?;
    Ok(targets
        .result
        .target_infos
        .iter()
        .filter(|t| {
            t.r#type == "page" && !t.url.starts_with("devtools://") && !t.url.starts_with("chrome-extension://")
        })
        .map(|t| (t.target_id.clone(), t.url.clone(), t.title.clone(), t.opener_id.clone()))
        .collect())
}
