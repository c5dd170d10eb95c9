//! The managed browser: Chromium over CDP (chromiumoxide). Launch and
//! supervise it, keep tabs with stable ids (each held by a run), and give
//! the browser tools' executors (`crate::builtin::browser`) the
//! page: waits, input, and an injected page runtime (`js/runtime.js`) that
//! lives in an isolated world the page cannot tamper with.

pub(crate) mod cdp;
pub mod extract;
pub(crate) mod intercept;
pub(crate) mod keys;
mod launch;
mod net;
pub(crate) mod page;
mod process;
mod profile_lock;
mod reap;
pub(crate) mod runtime;
pub(crate) mod session;
pub mod window;

pub use launch::{BrowserOptions, CHROMIUM_ENV, find_chromium};
pub use session::{BrowserSession, OpenTab};
