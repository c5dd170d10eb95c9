//! A tab ready for commands ([`TabHandle`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chromiumoxide::Page;

use super::super::cdp::crashed;
use super::super::intercept::{Filled, Hub, WireSlot, WireWatch};
use super::super::net::NetTracker;
use super::super::runtime::World;
use crate::error::Result;

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
    /// (`browser::intercept`).
    pub wire: WireSlot,
    /// The browser's interception, which the watch is on.
    pub hub: Arc<Hub>,
    /// The person's values typed into the tab's pages, and the sites they
    /// were given to: what its requests to other sites may carry.
    pub filled: Arc<std::sync::Mutex<Filled>>,
}

impl TabHandle {
    /// `browser_crashed` once the browser is gone, so a wait stops at once
    /// instead of polling a dead page until its deadline.
    pub fn check_alive(&self) -> Result<()> {
        if self.gone.load(Ordering::SeqCst) { Err(crashed()) } else { Ok(()) }
    }

    /// Start the gate's watch on what the tab's page sends: the requests
    /// that may change something, and the reads `hold_read(url, home)`
    /// picks ([`WireWatch::start`]).
    pub async fn watch_wire(&self, hold_read: fn(&str, &str) -> bool) -> Result<WireWatch> {
        self.check_alive()?;
        WireWatch::start(&self.hub, &self.page, hold_read).await
    }

    /// Benchmarks only (feature `bench-knobs`): the browser was started
    /// with the gate at the wire off, and its actions run unwatched.
    #[cfg(feature = "bench-knobs")]
    pub fn ungated(&self) -> bool {
        self.hub.is_ungated()
    }
}
