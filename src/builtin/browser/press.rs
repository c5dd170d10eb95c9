//! The press lands where the gate looked (issue 42, item 6).
//!
//! A click is graded on the element the cover check found under its
//! centre; the page may then slide something over that point before the
//! real mouse press arrives (a nearly invisible frame of another site, a
//! transparent link of its own, an overlay whose `pointer-events` turns to
//! `auto` on the first mouse move), so that the press lands on a GET buy
//! link instead. A press is therefore made in steps, each checked:
//!
//! 1. the pointer moves to the point (what a page does on `mousemove` or
//!    `pointerover` is done by then);
//! 2. the point is hit-tested again, through frames (`__halley.pressArm`),
//!    and must still be the graded element (or its label); a guard is armed
//!    in every document the page runtime reaches, which cancels any
//!    trusted pointer event of the press aimed at something else;
//! 3. the button goes down; unless the element's own document saw it land
//!    on the element (`__halley.pressDown`), the press is abandoned without
//!    a release (`page::mouse_abandon`: no `mouseup`, no `click` in
//!    whichever frame took it, even one of another site the runtime cannot
//!    reach);
//! 4. the button is released; a `mouseup` or `click` the page diverted to
//!    something else in the meantime was cancelled by the guard, and the
//!    call reports it (`__halley.pressEnd`), as it does a release that
//!    clicked nothing (it went to a frame slid under the pointer after the
//!    press). A new document by then is the click's navigation (a link).
//!
//! Each refusal is an error the model reads: `not_interactable` when
//! something lay over the element before anything was pressed,
//! `denied` when the press itself was diverted. What a frame's own script
//! does on the `mousedown` it was given is a request like any other, held
//! by the wire (`builtin::browser::wire`).

use chromiumoxide::cdp::browser_protocol::input::MouseButton;
use serde_json::{Value, json};

use crate::browser::page;
use crate::browser::runtime;
use crate::browser::session::TabHandle;
use crate::error::{Error, ErrorCode, Result};

/// How many times a press follows its element when the element itself
/// moved since it was located (a layout shift), before giving up.
const REAIM: usize = 2;

/// What is pressed: the element (pinned by its ref, as the gate read it),
/// as the model is told about it, and where.
pub(crate) struct Press<'a> {
    pub target: Value,
    pub what: &'a str,
    pub x: f64,
    pub y: f64,
}

impl Press<'_> {
    /// The element's ref from a runtime description (`{"ref": "e8", ...}`).
    pub fn target_of(desc: &Value) -> Result<Value> {
        match desc.get("ref").and_then(Value::as_str) {
            Some(r) if !r.is_empty() => Ok(json!({"ref": r})),
            _ => Err(Error::internal("the page runtime gave the element no ref")),
        }
    }
}

/// Press `button` `count` times on the element, checked at each step.
pub(crate) async fn press(tab: &TabHandle, p: &Press<'_>, button: MouseButton, count: i64) -> Result<()> {
    let (mut x, mut y) = (p.x, p.y);
    let what = p.what;
    let mut aims = 0;
    loop {
        page::mouse_move(tab, x, y).await?;
        let armed = runtime::call(tab, "pressArm", &json!({"target": p.target, "x": x, "y": y})).await?;
        if armed.get("ok").and_then(Value::as_bool).unwrap_or(false) {
            break;
        }
        let at = |k: &str| armed.get("retry").and_then(|r| r.get(k)).and_then(Value::as_f64);
        if let (Some(nx), Some(ny)) = (at("x"), at("y"))
            && aims < REAIM
        {
            // The element moved (an image above it loaded): press it where it is.
            aims += 1;
            (x, y) = (nx, ny);
            continue;
        }
        let by = text(&armed, "by", "something else");
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!(
                "{what} was not clicked: when the pointer came to press it, {by} lay over it, put there after \
                 {what} was found uncovered. Nothing was pressed. Take a new browser_snapshot; if it keeps \
                 happening, the page may be trying to take the click elsewhere: tell the user."
            ),
        ));
    }
    for n in 1..=count {
        if let Err(e) = page::mouse_down(tab, x, y, &button, n).await {
            give_up(tab, x, y).await;
            return Err(e);
        }
        let down = match runtime::call(tab, "pressDown", &json!({"x": x, "y": y})).await {
            Ok(down) => down,
            Err(e) => {
                give_up(tab, x, y).await;
                return Err(e);
            }
        };
        if down.get("gone").and_then(Value::as_bool).unwrap_or(false) {
            // Another document (the press navigated, or the page replaced
            // itself): what it was pressed on is gone; nothing is released.
            give_up(tab, x, y).await;
            return Err(Error::new(
                ErrorCode::NotInteractable,
                format!(
                    "{what} was pressed but the page changed before it was released (a new document), so the \
                     click was not finished. Take a new browser_snapshot."
                ),
            ));
        }
        match down.get("down").and_then(Value::as_str) {
            Some("hit") => page::mouse_up(tab, x, y, &button, n).await?,
            landed => {
                give_up(tab, x, y).await;
                let by = text(&down, "by", "another frame");
                let stopped = if landed == Some("stray") { "cancelled there" } else { "never released" };
                return Err(Error::new(
                    ErrorCode::Denied,
                    format!(
                        "{what} was not clicked: as it was pressed, the page put {by} under the pointer, and the \
                         press went there instead; it was {stopped}, so nothing was clicked or sent. Do not try \
                         another way around this; tell the user that this page tried to redirect a click."
                    ),
                ));
            }
        }
    }
    // Read where the runtime is now, once: the click may be navigating
    // (a link, a form), and its navigation is left alone.
    let end =
        runtime::call_here(tab, "pressEnd", &json!({"x": x, "y": y})).await?.unwrap_or_else(|| json!({"gone": true}));
    if let Some(event) = end.get("strayed").and_then(Value::as_str) {
        let by = text(&end, "by", "something else");
        return Err(Error::new(
            ErrorCode::Denied,
            format!(
                "{what} was not clicked: it was pressed, but before the release the page put {by} under the \
                 pointer; its `{event}` was stopped there, so nothing was clicked. Do not try another way around \
                 this; tell the user that this page tried to redirect a click."
            ),
        ));
    }
    let gone = end.get("gone").and_then(Value::as_bool).unwrap_or(false);
    if !gone && !end.get("clicked").and_then(Value::as_bool).unwrap_or(false) {
        // The release went to another frame (one slid under the pointer
        // after the press): no click reached the element.
        let by = end
            .get("by")
            .and_then(Value::as_str)
            .map(|by| format!(": {by} lay under the pointer by then"))
            .unwrap_or_default();
        return Err(Error::new(
            ErrorCode::Denied,
            format!(
                "{what} was not clicked: it was pressed, but the release did not reach it{by}. Nothing was \
                 clicked. Take a new browser_snapshot; if it happens again, tell the user that this page tries to \
                 redirect clicks."
            ),
        ));
    }
    Ok(())
}

/// The press went wrong: end it without a release, and disarm the guard.
async fn give_up(tab: &TabHandle, x: f64, y: f64) {
    if let Err(e) = page::mouse_abandon(tab, x, y).await {
        tracing::debug!("press: the abandoned press was not ended: {}", e.to_wire().message);
    }
    let _ = runtime::call(tab, "pressEnd", &json!({})).await;
}

fn text(v: &Value, key: &str, or: &str) -> String {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or(or).to_owned()
}
