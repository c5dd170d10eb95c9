//! A tab ready for commands ([`TabHandle`]), and CDP failures as Halley
//! errors (`browser_crashed`, `browser_unavailable`, `timeout`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chromiumoxide::Page;

use super::super::net::NetTracker;
use super::super::runtime::World;
use crate::error::{Error, ErrorCode, Result};

/// A tab ready for commands.
#[derive(Clone)]
pub(crate) struct TabHandle {
    pub id: String,
    pub page: Page,
    pub net: Arc<NetTracker>,
    pub world: Arc<World>,
    /// Set when the tab's renderer crashed; the next use reloads it.
    pub crashed: Arc<AtomicBool>,
    /// Set when the whole browser is gone (its process exited or its
    /// DevTools connection closed): waits on the tab end at once.
    pub gone: Arc<AtomicBool>,
    /// The gate's watch on what the page sends, kept between actions
    /// (`browser::wire`).
    pub wire: super::super::wire::WireSlot,
    /// The browser's interception, which the watch is on.
    pub hub: Arc<super::super::hub::Hub>,
    /// The person's values typed into the tab's pages, and the sites they
    /// were given to: what its requests to other sites may carry.
    pub filled: Arc<std::sync::Mutex<crate::browser::wire::Filled>>,
}

impl TabHandle {
    /// `browser_crashed` once the browser is gone, so a wait stops at once
    /// instead of polling a dead page until its deadline.
    pub fn check_alive(&self) -> Result<()> {
        if self.gone.load(Ordering::SeqCst) { Err(crashed()) } else { Ok(()) }
    }

    /// Benchmarks only (feature `bench-knobs`): the browser was started
    /// with the gate at the wire off, and its actions run unwatched.
    #[cfg(feature = "bench-knobs")]
    pub fn ungated(&self) -> bool {
        self.hub.is_ungated()
    }
}

/// A CDP failure as a Halley error: `browser_crashed` when the browser is
/// gone, else `browser_unavailable` with the cause.
pub(crate) fn cdp_error(err: chromiumoxide::error::CdpError, alive: bool) -> Error {
    if !alive {
        return crashed();
    }
    let text = err.to_string();
    if text.contains("Timeout") || text.contains("timed out") {
        return Error::new(ErrorCode::Timeout, "the browser did not answer in time").with_source(err);
    }
    Error::new(ErrorCode::BrowserUnavailable, "the browser refused the command").with_source(err)
}

pub(crate) fn crashed() -> Error {
    Error::new(
        ErrorCode::BrowserCrashed,
        "the browser crashed or was closed during this call; it is restarted with the same tabs on the next call. \
         The action was not repeated: check the page before trying again.",
    )
}
