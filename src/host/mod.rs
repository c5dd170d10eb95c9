//! The host: what a long-lived front end (the desktop app; later the local
//! API) holds. It owns the [`Core`], the model settings, the run in flight
//! and the questions waiting for the user, takes [`Op`]s and broadcasts
//! [`Event`]s (`crate::protocol`). It never imports a UI toolkit.
//!
//! The API below is the contract the desktop shell codes against.

use std::sync::Arc;

use tokio::sync::broadcast;

use crate::core::{BrowserSettings, Core};
use crate::error::{Error, Result};
use crate::paths::DataDir;
use crate::protocol::{Event, Op, Reply};

/// A rectangle on the screen, in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

/// See the module documentation.
#[derive(Debug)]
pub struct Host {
    core: Core,
    events: broadcast::Sender<Event>,
}

impl Host {
    /// Open the data directory and the core. The browser starts on the first
    /// browser call (or [`Host::set_browser_window`]).
    pub async fn open(data_dir: DataDir, browser: BrowserSettings) -> Result<Arc<Host>> {
        let core = Core::open_full(data_dir, crate::tools::Registry::builtin()?, browser).await?;
        let (events, _) = broadcast::channel(1024);
        Ok(Arc::new(Host { core, events }))
    }

    /// Every [`Event`] from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Carry out one [`Op`]; what it answers is documented on the `Op`.
    pub async fn handle(self: &Arc<Self>, op: Op) -> Result<Reply> {
        Err(Error::new(crate::error::ErrorCode::NotAvailable, format!("{op:?} is not built yet")))
    }

    /// Where the managed browser's window is (`None`: no browser window yet,
    /// or a headless browser).
    pub async fn browser_window(&self) -> Result<Option<Rect>> {
        Ok(None)
    }

    /// Move and size the managed browser's window (starting the browser if
    /// needed), e.g. to dock it beside the panel.
    pub async fn set_browser_window(&self, _rect: Rect) -> Result<()> {
        Ok(())
    }

    /// Stop the run in flight, refuse waiting questions, close the browser
    /// (if Halley started it) and the store.
    pub async fn close(&self) {
        self.core.close().await;
    }
}
