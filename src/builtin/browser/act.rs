//! Interaction tools: click, type, scroll, press keys, select, check.
//!
//! Elements are acted on like a person would: scrolled into view, waited
//! for until visible, enabled and not covered, then clicked with real mouse
//! events at their centre.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::input::MouseButton as CdpButton;
use serde_json::{Value, json};

use super::press::{self, Press};
use super::{BrowserTool, Call, output, wire};
use crate::browser::keys::parse_chord;
use crate::browser::page::{self, NavWatch};
use crate::browser::runtime;
use crate::browser::session::TabHandle;
use crate::error::{Error, ErrorCode, Result};
use crate::gate::action::Action;
use crate::tools::ToolOutput;
use crate::tools::catalogue::common::Target;
use crate::tools::catalogue::interaction::{
    BrowserCheckArgs, BrowserCheckOutput, BrowserClickArgs, BrowserPressKeyArgs, BrowserPressKeyOutput,
    BrowserScrollArgs, BrowserScrollOutput, BrowserSelectOptionArgs, BrowserSelectOptionOutput, BrowserTypeArgs,
    ElementActionOutput, MouseButton,
};

/// How long an element may take to appear and become actionable.
pub(crate) const ACTIONABLE_WITHIN: Duration = Duration::from_secs(5);

/// How long a navigation started by an action may take to commit and parse.
const NAVIGATION_WITHIN: Duration = Duration::from_secs(30);

/// An element found and ready for the action.
pub(crate) struct Located {
    pub raw: Value,
    pub x: f64,
    pub y: f64,
}

impl Located {
    /// `button "Thêm vào giỏ" [e8]`.
    pub fn describe(&self) -> String {
        describe(&self.raw["element"])
    }

    /// The element found, by its ref (the gate reads it, and it is pressed).
    pub fn pinned(&self) -> Result<Target> {
        let target = Press::target_of(&self.raw["element"])?;
        Ok(Target { element_ref: target["ref"].as_str().map(str::to_owned), ..Target::default() })
    }

    /// The press of the element at its centre.
    pub fn press<'a>(&self, what: &'a str) -> Result<Press<'a>> {
        Ok(Press { target: Press::target_of(&self.raw["element"])?, what, x: self.x, y: self.y })
    }
}

pub(crate) fn describe(desc: &Value) -> String {
    let s = |k: &str| desc.get(k).and_then(Value::as_str).unwrap_or_default();
    let role = if s("role").is_empty() { s("tag") } else { s("role") };
    let name = if s("name").is_empty() { s("text") } else { s("name") };
    let mut out = role.to_owned();
    if !name.is_empty() {
        out.push_str(&format!(" \"{name}\""));
    }
    if !s("ref").is_empty() {
        out.push_str(&format!(" [{}]", s("ref")));
    }
    out
}

pub(crate) fn target_json(target: &Target) -> Value {
    serde_json::to_value(target).unwrap_or(Value::Null)
}

/// Find the element and wait until it can take a pointer action: visible,
/// enabled and not covered by something else. With `need_hit: false` a
/// covered element is accepted (keyboard actions).
pub(crate) async fn actionable(tab: &TabHandle, target: &Target, need_hit: bool) -> Result<Located> {
    let deadline = Instant::now() + ACTIONABLE_WITHIN;
    let arg = json!({"target": target_json(target), "scroll": true});
    loop {
        let attempt = runtime::call(tab, "locate", &arg).await;
        let problem = match attempt {
            Ok(raw) => {
                let flag = |k: &str| raw.get(k).and_then(Value::as_bool).unwrap_or(false);
                let rect = &raw["rect"];
                let num = |k: &str| rect.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                let (x, y) = (num("x") + num("width") / 2.0, num("y") + num("height") / 2.0);
                let what = describe(&raw["element"]);
                if !flag("visible") {
                    Error::new(ErrorCode::NotInteractable, format!("{what} is not visible"))
                } else if !flag("enabled") {
                    Error::new(ErrorCode::NotInteractable, format!("{what} is disabled"))
                } else if need_hit && !flag("hit") {
                    Error::new(
                        ErrorCode::NotInteractable,
                        format!(
                            "{what} is covered by another element (a modal or banner?); close it first (see browser_detect_state)"
                        ),
                    )
                } else {
                    return Ok(Located { raw, x, y });
                }
            }
            Err(e) if matches!(e.code(), ErrorCode::ElementNotFound) => e,
            Err(e) => return Err(e),
        };
        tab.check_alive()?;
        if Instant::now() >= deadline {
            return Err(problem);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub(super) async fn click(call: &mut Call<'_>, args: BrowserClickArgs) -> Result<ToolOutput> {
    args.target.require("browser_click")?;
    let tab = call.tab(None).await?;
    let el = actionable(&tab, &args.target, true).await?;
    // The element found is the one graded and the one pressed (a selector
    // read again could name another by then).
    let pinned = el.pinned()?;
    let approved = call.gate_page(BrowserTool::Click, &tab, Some(&pinned), |_| {}).await?;
    let button = match args.button {
        MouseButton::Left => CdpButton::Left,
        MouseButton::Right => CdpButton::Right,
        MouseButton::Middle => CdpButton::Middle,
    };
    let what = el.describe();
    let clicked = async {
        let watch = NavWatch::start(&tab).await?;
        press::press(&tab, &el.press(&what)?, button, i64::from(args.click_count)).await?;
        watch.settle(&tab, NAVIGATION_WITHIN).await
    };
    let navigated = wire::guarded(call, &tab, BrowserTool::Click, approved, &[], clicked).await?;
    finish(call, &tab, &ElementActionOutput { element: el.describe(), navigated }).await
}

pub(super) async fn type_text(call: &mut Call<'_>, args: BrowserTypeArgs) -> Result<ToolOutput> {
    args.target.require("browser_type")?;
    // The model writes `{{profile.KEY}}` (or a sensitive client result's
    // `{{secret.ID.PATH}}`) for a sensitive value it never saw; the real
    // value is typed below, after the gate asked. One that is gone fails
    // the call before anything else.
    let (text, fills) = fill_placeholders(call, &args.text).await?;
    let tab = call.tab(None).await?;
    let el = actionable(&tab, &args.target, false).await?;
    if !el.raw.get("editable").and_then(Value::as_bool).unwrap_or(false) {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!("{} does not take text (not an input, textarea or editable area, or read-only)", el.describe()),
        ));
    }
    let approved = call
        .gate_page(BrowserTool::Type, &tab, Some(&args.target), |a| {
            a.text = Some(args.text.clone());
            a.fills.clone_from(&fills);
        })
        .await?;
    let kind = el.raw["element"].get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    // A page may send what is typed as it is typed (`oninput`): the wire sees it.
    let typed = async {
        if PICKER_TYPES.contains(&kind.as_str()) {
            return set_picker_value(&tab, &args.target, &kind, &text).await;
        }
        runtime::call(&tab, "focus", &json!({"target": target_json(&args.target), "clear": args.clear_first})).await?;
        if !text.is_empty() {
            page::insert_text(&tab, &text).await?;
        }
        Ok(())
    };
    // What the user gave this site by approving: its own page may send it home.
    let mut given = fills;
    if !text.is_empty() {
        let secrets = call.ctx.gate.secrets().await.unwrap_or_default();
        given.extend(crate::gate::exfil::find_secrets(&text, &secrets).into_iter().map(|s| s.key.clone()));
    }
    wire::guarded(call, &tab, BrowserTool::Type, approved, &given, typed).await?;
    finish(call, &tab, &ElementActionOutput { element: el.describe(), navigated: false }).await
}

/// `text` with each `{{profile.KEY}}` replaced by the profile's value and
/// each `{{secret.ID.PATH}}` by the sensitive client result's value the
/// core keeps for this run; and what is filled in, as the gate names it.
async fn fill_placeholders(call: &Call<'_>, text: &str) -> Result<(String, Vec<String>)> {
    let keys = crate::gate::secrets::placeholders_in(text);
    let mut out = text.to_owned();
    let mut fills = keys.clone();
    for name in crate::gate::secrets::result_placeholders_in(text) {
        let (value, label) = call.ctx.store.sensitive_results().get(&name, call.cx.run_id.as_deref())?;
        out = out.replace(&format!("{{{{{name}}}}}"), &value);
        fills.push(label);
    }
    for key in &keys {
        let value = call.ctx.store.profile().get(key).await?.ok_or_else(|| {
            Error::invalid_arguments(format!(
                "`{{{{profile.{key}}}}}`: the profile has no `{key}` (see user_profile_get)"
            ))
        })?;
        let value = match value {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            other => other.to_string(),
        };
        out = out.replace(&crate::gate::secrets::placeholder(key), &value);
    }
    Ok((out, fills))
}

/// Inputs whose value is picked, not typed: typing into them is setting
/// their value in the format the browser expects.
const PICKER_TYPES: [&str; 7] = ["date", "time", "datetime-local", "month", "week", "color", "range"];

async fn set_picker_value(tab: &TabHandle, target: &Target, kind: &str, text: &str) -> Result<()> {
    let value = if kind == "date" { iso_date(text) } else { text.trim().to_owned() };
    let expr = format!(
        "(() => {{ const el = globalThis.__halley && __halley.element({t}); if (!el) return null; \
         const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set; \
         el.focus(); set.call(el, {v}); \
         el.dispatchEvent(new Event('input', {{bubbles: true}})); el.dispatchEvent(new Event('change', {{bubbles: true}})); \
         return el.value; }})()",
        t = target_json(target),
        v = serde_json::to_string(&value).unwrap_or_default(),
    );
    let got = runtime::eval(tab, &expr, true).await?;
    match got.as_ref().and_then(Value::as_str) {
        Some(v) if !v.is_empty() || value.is_empty() => Ok(()),
        Some(_) => Err(Error::invalid_arguments(format!(
            "a `{kind}` field does not take {text:?}; use its format (date: YYYY-MM-DD or DD/MM/YYYY, time: HH:MM, month: YYYY-MM)"
        ))),
        None => Err(Error::new(ErrorCode::ElementNotFound, "the field went away")),
    }
}

/// `10/02/2026` (day first, as in Vietnam) or `2026-02-10` → `2026-02-10`.
fn iso_date(text: &str) -> String {
    let t = text.trim();
    let parts: Vec<&str> = t.split(['/', '.', '-']).collect();
    if let [d, m, y] = parts.as_slice()
        && y.len() == 4
        && let (Ok(d), Ok(m), Ok(y)) = (d.parse::<u32>(), m.parse::<u32>(), y.parse::<u32>())
    {
        return format!("{y:04}-{m:02}-{d:02}");
    }
    t.to_owned()
}

pub(super) async fn scroll(call: &mut Call<'_>, args: BrowserScrollArgs) -> Result<ToolOutput> {
    if args.target.is_page() && args.amount_px.is_none() {
        return Err(Error::invalid_arguments(
            "browser_scroll: give `amount_px` (pixels, negative scrolls up), or `selector`/`ref` to scroll to",
        ));
    }
    let tab = call.tab(None).await?;
    call.gate_plain(BrowserTool::Scroll, Action::default()).await?;
    let target = if args.target.is_page() { Value::Null } else { target_json(&args.target) };
    let v = runtime::call(&tab, "scroll", &json!({"target": target, "amount": args.amount_px})).await?;
    let out = BrowserScrollOutput {
        scroll_y: v.get("scroll_y").and_then(Value::as_f64).unwrap_or(0.0),
        at_end: v.get("at_end").and_then(Value::as_bool).unwrap_or(false),
    };
    finish(call, &tab, &out).await
}

pub(super) async fn press_key(call: &mut Call<'_>, args: BrowserPressKeyArgs) -> Result<ToolOutput> {
    let keys = args.keys.iter().map(|k| parse_chord(k)).collect::<Result<Vec<_>>>()?;
    let tab = call.tab(None).await?;
    if !args.target.is_page() {
        actionable(&tab, &args.target, false).await?;
        // Any element can take focus for keys (a button, a link, a list).
        let expr = format!(
            "(() => {{ const el = globalThis.__halley && __halley.element({}); if (!el) return false; el.focus(); return true; }})()",
            target_json(&args.target)
        );
        runtime::eval(&tab, &expr, true).await?;
    }
    let enter = keys.iter().any(|k| k.key == "Enter");
    let names: Vec<String> = args.keys.clone();
    let target = (!args.target.is_page()).then_some(&args.target);
    let approved = call
        .gate_page(BrowserTool::PressKey, &tab, target, |a| {
            a.keys.clone_from(&names);
            if !enter && let Some(t) = a.target.as_mut() {
                t.submits_form = false;
            }
        })
        .await?;
    let pressing = async {
        let mut navigated = false;
        let mut pressed = 0u32;
        for key in &keys {
            let watch = NavWatch::start(&tab).await?;
            page::press(&tab, key).await?;
            pressed += 1;
            if watch.settle(&tab, NAVIGATION_WITHIN).await? {
                navigated = true;
                // Keys after a navigation would land on another page: stop.
                break;
            }
        }
        Ok((pressed, navigated))
    };
    let (pressed, navigated) = wire::guarded(call, &tab, BrowserTool::PressKey, approved, &[], pressing).await?;
    finish(call, &tab, &BrowserPressKeyOutput { pressed, navigated }).await
}

pub(super) async fn select_option(call: &mut Call<'_>, args: BrowserSelectOptionArgs) -> Result<ToolOutput> {
    args.target.require("browser_select_option")?;
    if args.value.is_none() && args.label.is_none() {
        return Err(Error::invalid_arguments(
            "browser_select_option: give the option's `value` or its visible `label`",
        ));
    }
    let tab = call.tab(None).await?;
    actionable(&tab, &args.target, false).await?;
    let approved = call.gate_page(BrowserTool::SelectOption, &tab, Some(&args.target), |_| {}).await?;
    // `onchange="this.form.submit()"`, or a script posting on change: the wire sees it.
    let selecting = async {
        let watch = NavWatch::start(&tab).await?;
        let v = runtime::call(
            &tab,
            "select",
            &json!({"target": target_json(&args.target), "value": args.value, "label": args.label}),
        )
        .await?;
        // A submit it caused is a navigation: let it start under the wire
        // (only the page's `change` handler can start one).
        watch.settle_if_requested(&tab, NAVIGATION_WITHIN).await?;
        Ok(v)
    };
    let v = wire::guarded(call, &tab, BrowserTool::SelectOption, approved, &[], selecting).await?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    finish(call, &tab, &BrowserSelectOptionOutput { value: s("value"), label: s("label") }).await
}

pub(super) async fn set_checked(call: &mut Call<'_>, args: BrowserCheckArgs, want: bool) -> Result<ToolOutput> {
    let tool = if want { "browser_check" } else { "browser_uncheck" };
    args.target.require(tool)?;
    let tab = call.tab(None).await?;
    let target = json!({"target": target_json(&args.target)});
    let deadline = Instant::now() + ACTIONABLE_WITHIN;
    let state = loop {
        match runtime::call(&tab, "checkState", &target).await {
            Ok(s) => break s,
            Err(e) if e.code() == ErrorCode::ElementNotFound && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e),
        }
    };
    let tool = if want { BrowserTool::Check } else { BrowserTool::Uncheck };
    let approved = call.gate_page(tool, &tab, Some(&args.target), |_| {}).await?;
    let checked = |s: &Value| s.get("checked").and_then(Value::as_bool).unwrap_or(false);
    if checked(&state) == want {
        return finish(call, &tab, &BrowserCheckOutput { checked: want, changed: false }).await;
    }
    if state.get("kind").and_then(Value::as_str) == Some("radio") && !want {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            "a radio button cannot be unticked by itself; tick another option of the group instead",
        ));
    }
    if state.get("disabled").and_then(Value::as_bool).unwrap_or(false) {
        return Err(Error::new(ErrorCode::NotInteractable, "the checkbox is disabled"));
    }
    let rect = &state["clickRect"];
    let num = |k: &str| rect.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let (x, y) = (num("x") + num("width") / 2.0, num("y") + num("height") / 2.0);
    if num("width") <= 0.0 || num("height") <= 0.0 {
        return Err(Error::new(ErrorCode::NotInteractable, "the checkbox and its label are not visible"));
    }
    let what = describe(&state["element"]);
    let pressing = Press { target: Press::target_of(&state["element"])?, what: &what, x, y };
    let ticking = async {
        let watch = NavWatch::start(&tab).await?;
        press::press(&tab, &pressing, CdpButton::Left, 1).await?;
        watch.settle(&tab, NAVIGATION_WITHIN).await
    };
    wire::guarded(call, &tab, tool, approved, &[], ticking).await?;
    let after = runtime::call(&tab, "checkState", &target).await?;
    if checked(&after) != want {
        return Err(Error::new(
            ErrorCode::NotInteractable,
            format!("clicking did not {} it (the page may block it)", if want { "tick" } else { "untick" }),
        ));
    }
    finish(call, &tab, &BrowserCheckOutput { checked: want, changed: true }).await
}

/// The result with the tab's URL, remembered for crash recovery.
async fn finish<T: serde::Serialize>(call: &mut Call<'_>, tab: &TabHandle, out: &T) -> Result<ToolOutput> {
    let (url, title) = page::url_and_title(tab).await;
    call.guard()?.note_url(&tab.id, &url, &title);
    Ok(output(out)?.at(url))
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_read_day_first() {
        assert_eq!(super::iso_date("10/02/2026"), "2026-02-10");
        assert_eq!(super::iso_date("2026-02-10"), "2026-02-10");
        assert_eq!(super::iso_date("1.3.2026"), "2026-03-01");
    }
}
