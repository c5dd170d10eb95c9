//! The browser's interception, all of what the gate sees of a page's
//! traffic, in one place and in one order: `hub` (CDP `Fetch` on the
//! browser's own session, routing each paused request to the watch of the
//! tab it belongs to), `watch` (a tab's watch: what it holds, hands on and
//! lets go, during an action and between actions, and what was filled in
//! it), `relay` (the SOCKS5 relay every connection of a launched browser
//! goes through: WebSocket and WebRTC openings, plain WebSocket messages)
//! and `host_rules` (Chromium's resolver rules, applied by the relay).
//!
//! It stands on `browser::cdp` only, and `launch` and `session` stand on
//! it (`cdp` <- `intercept` <- `launch` <- `session`): nothing here names a
//! tab handle or the session. The grading is the gate's
//! (`gate::classify::wire`), joined to this by the browser tools
//! (`builtin::browser::wire`).

mod host_rules;
mod hub;
mod relay;
mod watch;

pub(crate) use hub::Hub;
pub(crate) use relay::Relay;
pub(crate) use watch::{Filled, Idle, Outgoing, Verdict, WireSlot, WireWatch};
