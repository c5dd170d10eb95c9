//! The managed browser: Chromium over CDP (chromiumoxide). Launch and
//! supervise it, keep tabs with stable ids, and run the browser tools
//! against real pages through an injected page runtime (`js/runtime.js`)
//! that lives in an isolated world the page cannot tamper with.

pub mod extract;
mod keys;
mod launch;
mod net;
mod page;
mod reap;
mod runtime;
mod session;
pub mod tools;
pub mod window;

pub use launch::{BrowserOptions, CHROMIUM_ENV, find_chromium};
pub use session::BrowserSession;
