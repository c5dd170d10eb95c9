//! The managed browser's window, steered over CDP: where it is, moving and
//! sizing it (to dock it beside the desktop panel), and bringing a tab to
//! the front (a challenge the user must solve).

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::{
    Bounds, GetWindowForTargetParams, SetWindowBoundsParams, WindowId, WindowState,
};

use super::cdp::cdp_error;
use crate::error::{Error, ErrorCode, Result};

/// A window's place on the screen, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowBounds {
    pub left: i64,
    pub top: i64,
    pub width: i64,
    pub height: i64,
}

/// The window holding `page` and where it is (the restored bounds when it
/// is minimized).
pub async fn bounds(page: &Page) -> Result<WindowBounds> {
    let (_, bounds) = window_of(page).await?;
    Ok(WindowBounds {
        left: bounds.left.unwrap_or(0),
        top: bounds.top.unwrap_or(0),
        width: bounds.width.unwrap_or(0),
        height: bounds.height.unwrap_or(0),
    })
}

/// Move and size the window holding `page`: made normal first (a maximized,
/// minimized or full-screen window ignores bounds), then placed.
pub async fn set_bounds(page: &Page, to: WindowBounds) -> Result<()> {
    let (id, now) = window_of(page).await?;
    if now.window_state.as_ref().is_some_and(|s| *s != WindowState::Normal) {
        let normal = Bounds { window_state: Some(WindowState::Normal), ..Bounds::default() };
        page.execute(SetWindowBoundsParams::new(id, normal)).await.map_err(|e| cdp_error(e, true))?;
    }
    let bounds = Bounds {
        left: Some(to.left),
        top: Some(to.top),
        width: Some(to.width.max(1)),
        height: Some(to.height.max(1)),
        window_state: None,
    };
    page.execute(SetWindowBoundsParams::new(id, bounds)).await.map_err(|e| cdp_error(e, true))?;
    Ok(())
}

/// Show `page`'s tab in front of the others.
pub async fn bring_to_front(page: &Page) -> Result<()> {
    page.bring_to_front().await.map_err(|e| cdp_error(e, true))?;
    Ok(())
}

async fn window_of(page: &Page) -> Result<(WindowId, Bounds)> {
    let params = GetWindowForTargetParams { target_id: Some(page.target_id().clone()) };
    let answer = page.execute(params).await.map_err(|e| {
        Error::new(ErrorCode::BrowserUnavailable, "the browser did not say where its window is").with_source(e)
    })?;
    Ok((answer.result.window_id, answer.result.bounds.clone()))
}

/// Whether the browser's window has the keyboard focus: the user is in it
/// (`document.hasFocus()` of the page shown).
pub async fn has_focus(page: &Page) -> Result<bool> {
    let focused = page.evaluate("document.hasFocus()").await.map_err(|e| cdp_error(e, true))?;
    Ok(focused.into_value::<bool>().unwrap_or(false))
}
