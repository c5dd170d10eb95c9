//! The user's tabs kept across a restart of the desktop app
//! ([`Host::keep_tabs`]): the managed browser's tabs are written to
//! `tabs.json` in the data directory every few seconds while the app runs
//! and when it closes, and opened again (same addresses, same order, the
//! current one in front) when it starts, unless the setting `reopen_tabs`
//! is off (then the file is removed and nothing is kept).
//!
//! Reopening is a GET of each address, nothing more: a page that answered
//! a form (a POST result, a payment's confirmation after its form, or the
//! page such a form redirected to: the tab's history says it came from a
//! form), a page that is not a web page (`about:blank`, `chrome:`, `data:`,
//! an error page), and the tab of a CAPTCHA or OTP hand-off still waiting
//! are not kept.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Host;
use crate::browser::OpenTab;
use crate::error::{Error, ErrorCode, Result};

/// The file in the data directory.
pub const TABS_FILE: &str = "tabs.json";

/// How often the tabs are written while the app runs.
const KEEP_EVERY: Duration = Duration::from_secs(3);

/// How long a save waits for a call that holds the browser.
const BROWSER_WAIT: Duration = Duration::from_secs(1);

/// At most this many tabs are kept.
const MAX_KEPT: usize = 50;

/// What `tabs.json` holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptTabs {
    pub tabs: Vec<KeptTab>,
}

/// One tab to open again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptTab {
    pub url: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub current: bool,
}

/// Why tab `tab` is not opened again, or `None` when it may be
/// (`handed_over`: the tabs of challenges waiting for the user).
pub fn not_kept(tab: &OpenTab, handed_over: &[String]) -> Option<&'static str> {
    let web = url::Url::parse(&tab.url).is_ok_and(|u| matches!(u.scheme(), "http" | "https" | "file"));
    if !web {
        return Some("not a web page");
    }
    if tab.from_form {
        return Some("the answer to a form: opening it again could send the form again");
    }
    if handed_over.contains(&tab.id) {
        return Some("a challenge handed to the user");
    }
    None
}

/// The tabs to keep out of those open now, in their order; the current one
/// stays current when it is kept.
pub fn to_keep(open: &[OpenTab], handed_over: &[String]) -> KeptTabs {
    let tabs = open
        .iter()
        .filter(|t| match not_kept(t, handed_over) {
            Some(why) => {
                tracing::debug!(tab = %t.id, "a tab is not kept for the next start: {why}");
                false
            }
            None => true,
        })
        .take(MAX_KEPT)
        .map(|t| KeptTab { url: t.url.clone(), title: t.title.clone(), current: t.current })
        .collect();
    KeptTabs { tabs }
}

impl Host {
    /// The desktop app's tabs across restarts: open the tabs kept last time
    /// (unless the setting is off), then keep them while the app runs and
    /// when it closes ([`Host::close`]). Returns how many were opened.
    pub async fn keep_tabs(self: &Arc<Self>) -> Result<usize> {
        let reopened = if self.settings().await.reopen_tabs { self.reopen_kept().await } else { Ok(0) };
        self.keeping_tabs.store(true, Ordering::SeqCst);
        let host = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(KEEP_EVERY).await;
                let Some(host) = host.upgrade() else { break };
                if host.closing() {
                    break;
                }
                if let Err(e) = host.save_tabs().await {
                    tracing::warn!("cannot keep the tabs for the next start: {}", e.to_wire().message);
                }
            }
        });
        reopened
    }

    async fn reopen_kept(&self) -> Result<usize> {
        let kept = read_kept(self.core.data_dir().root()).await?;
        if kept.tabs.is_empty() {
            return Ok(0);
        }
        let urls: Vec<String> = kept.tabs.iter().map(|t| t.url.clone()).collect();
        let current = kept.tabs.iter().position(|t| t.current);
        self.core.browser().reopen(&urls, current).await?;
        Ok(urls.len())
    }

    /// Write the tabs open now for the next start (nothing when no browser
    /// runs: the last list stays); with the setting off, forget them.
    pub async fn save_tabs(&self) -> Result<()> {
        let path = self.core.data_dir().root().join(TABS_FILE);
        if !self.settings().await.reopen_tabs {
            return match tokio::fs::remove_file(&path).await {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(Error::write_failed(ErrorCode::Storage, format!("cannot remove {}", path.display()), e))
                }
                _ => Ok(()),
            };
        }
        // A call holding the browser longer (a slow page) skips this turn.
        let Some(open) = self.core.browser().open_tabs(BROWSER_WAIT).await? else { return Ok(()) };
        let kept = to_keep(&open, &self.confirmer.challenge_tabs());
        write_kept(self.core.data_dir().root(), &kept).await
    }
}

/// The kept tabs (none when the file is missing; an unreadable file is
/// set aside with a warning, not an error: the app still starts).
pub async fn read_kept(root: &std::path::Path) -> Result<KeptTabs> {
    let path = root.join(TABS_FILE);
    match tokio::fs::read(&path).await {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            tracing::warn!("{} cannot be read ({e}); no tabs are reopened", path.display());
            KeptTabs::default()
        })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KeptTabs::default()),
        Err(e) => Err(Error::write_failed(ErrorCode::Storage, format!("cannot read {}", path.display()), e)),
    }
}

/// Replace the file in one step (a temporary file renamed over it, private
/// to the user: addresses may carry tokens).
async fn write_kept(root: &std::path::Path, kept: &KeptTabs) -> Result<()> {
    let root = root.to_owned();
    let body = serde_json::to_vec_pretty(kept).map_err(|e| Error::internal(format!("tabs: {e}")))?;
    tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut file = tempfile::NamedTempFile::new_in(&root)
            .map_err(|e| Error::write_failed(ErrorCode::Storage, "cannot keep the tabs for the next start", e))?;
        file.write_all(&body)
            .and_then(|()| file.as_file().sync_all())
            .map_err(|e| Error::write_failed(ErrorCode::Storage, "cannot keep the tabs for the next start", e))?;
        file.persist(root.join(TABS_FILE))
            .map_err(|e| Error::write_failed(ErrorCode::Storage, "cannot keep the tabs for the next start", e.error))?;
        Ok(())
    })
    .await
    .map_err(|e| Error::internal(format!("tabs: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(id: &str, url: &str, current: bool, from_form: bool) -> OpenTab {
        OpenTab { id: id.into(), url: url.into(), title: String::new(), current, from_form }
    }

    #[test]
    fn only_pages_opened_by_their_address_are_kept() {
        let open = [
            tab("tab-1", "http://127.0.0.1:9/a.html", false, false),
            tab("tab-2", "about:blank", false, false),
            tab("tab-3", "http://127.0.0.1:9/checkout", false, true),
            tab("tab-4", "chrome-error://chromewebdata/", false, false),
            tab("tab-5", "http://127.0.0.1:9/captcha.html", false, false),
            tab("tab-6", "data:text/html,<form>", false, false),
            tab("tab-7", "https://vi.wikipedia.org/wiki/H%E1%BB%93_G%C6%B0%C6%A1m", true, false),
            tab("tab-8", "javascript:alert(1)", false, false),
        ];
        let kept = to_keep(&open, &["tab-5".to_owned()]);
        let urls: Vec<(&str, bool)> = kept.tabs.iter().map(|t| (t.url.as_str(), t.current)).collect();
        assert_eq!(
            urls,
            [("http://127.0.0.1:9/a.html", false), ("https://vi.wikipedia.org/wiki/H%E1%BB%93_G%C6%B0%C6%A1m", true)]
        );
    }

    #[tokio::test]
    async fn the_file_round_trips_and_a_broken_one_reopens_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_kept(dir.path()).await.unwrap(), KeptTabs::default());
        let kept =
            KeptTabs { tabs: vec![KeptTab { url: "https://a.example/".into(), title: "A".into(), current: true }] };
        write_kept(dir.path(), &kept).await.unwrap();
        assert_eq!(read_kept(dir.path()).await.unwrap(), kept);
        std::fs::write(dir.path().join(TABS_FILE), b"{not json").unwrap();
        assert_eq!(read_kept(dir.path()).await.unwrap(), KeptTabs::default());
    }
}
