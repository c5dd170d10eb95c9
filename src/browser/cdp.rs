//! The CDP leaf the rest of `browser` stands on: a DevTools failure as a
//! Halley error (`browser_crashed` when the browser is gone, `timeout`,
//! else `browser_unavailable` with the cause). It names no other module of
//! `browser`: the order is `cdp` <- `intercept` <- `launch` <- `session`.

use crate::error::{Error, ErrorCode};

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
