//! A small W3C WebDriver client over plain HTTP/1.1 (std `TcpStream`, one
//! connection per request), enough to drive the desktop app through
//! tauri-driver: sessions, elements by CSS, clicks, keys, text, scripts,
//! screenshots and polling helpers.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread::sleep;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use base64::Engine;
use serde_json::{Value, json};

/// The W3C key for a web element reference in JSON.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";
/// How long one HTTP request may take (new session launches the app).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How often the `wait_*` helpers poll.
pub const POLL: Duration = Duration::from_millis(100);

/// A WebDriver endpoint (`127.0.0.1:PORT`), e.g. tauri-driver's.
#[derive(Clone, Debug)]
pub struct Client {
    addr: String,
}

/// One WebDriver session: for tauri-driver, one running app.
#[derive(Debug)]
pub struct Session {
    client: Client,
    id: String,
    deleted: bool,
}

/// A reference to an element of the current page.
#[derive(Clone, Debug)]
pub struct Element(pub String);

impl Element {
    /// The element as a script argument.
    pub fn to_json(&self) -> Value {
        json!({ ELEMENT_KEY: self.0 })
    }
}

impl Client {
    pub fn new(port: u16) -> Self {
        Self { addr: format!("127.0.0.1:{port}") }
    }

    /// Sends one request and returns the response's `value`; a WebDriver
    /// error (any non-2xx status) becomes an `Err` with its message.
    ///
    /// tauri-driver proxies to WebKitWebDriver over pooled connections, and
    /// a pooled connection WebKitWebDriver has closed fails the request
    /// before it is sent on: tauri-driver then closes ours without an
    /// answer. Such a request never reached the browser, so it is sent again.
    pub fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.request_once(method, path, body) {
                Err(e) if attempt < 4 && format!("{e:#}").contains("truncated HTTP response") => {
                    sleep(Duration::from_millis(200 * attempt));
                }
                other => return other,
            }
        }
    }

    fn request_once(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value> {
        let mut stream = TcpStream::connect(&self.addr).with_context(|| format!("connecting to {}", self.addr))?;
        stream.set_read_timeout(Some(REQUEST_TIMEOUT))?;
        stream.set_write_timeout(Some(REQUEST_TIMEOUT))?;
        let body = match body {
            Some(v) => serde_json::to_vec(v)?,
            None if method == "POST" => b"{}".to_vec(),
            None => Vec::new(),
        };
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nAccept: application/json\r\n\r\n",
            self.addr,
            body.len()
        );
        stream.write_all(head.as_bytes())?;
        stream.write_all(&body)?;
        stream.flush()?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).with_context(|| format!("reading the answer to {method} {path}"))?;
        let (status, body) = parse_response(&raw).with_context(|| format!("{method} {path}"))?;
        let json: Value = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&body).with_context(|| {
                format!("{method} {path}: HTTP {status}, not JSON: {}", String::from_utf8_lossy(&body))
            })?
        };
        let value = json.get("value").cloned().unwrap_or(Value::Null);
        if !(200..300).contains(&status) {
            let error = value.get("error").and_then(Value::as_str).unwrap_or("unknown error");
            let message = value.get("message").and_then(Value::as_str).unwrap_or("");
            bail!("{method} {path}: HTTP {status} {error}: {message}");
        }
        Ok(value)
    }

    /// Whether the server answers `/status` at all.
    pub fn is_up(&self) -> bool {
        self.request("GET", "/status", None).is_ok()
    }

    /// Starts a session with these `capabilities` (the `alwaysMatch` part).
    pub fn new_session(&self, capabilities: Value) -> Result<Session> {
        let body = json!({ "capabilities": { "alwaysMatch": capabilities } });
        let value = self.request("POST", "/session", Some(&body))?;
        let id = value.get("sessionId").and_then(Value::as_str).context("new session: no sessionId")?.to_owned();
        Ok(Session { client: self.clone(), id, deleted: false })
    }
}

/// Splits a raw HTTP/1.1 response into status and (de-chunked) body.
fn parse_response(raw: &[u8]) -> Result<(u16, Vec<u8>)> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").context("truncated HTTP response")?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut body = raw[split + 4..].to_vec();
    let status = head
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("bad status line in {head:?}"))?;
    let chunked = head.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    if chunked {
        body = dechunk(&body)?;
    }
    Ok((status, body))
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").context("bad chunk header")?;
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .with_context(|| format!("bad chunk size {size_text:?}"))?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(data.get(..size).context("truncated chunk")?);
        data = data.get(size + 2..).unwrap_or(&[]);
    }
}

impl Session {
    pub fn id(&self) -> &str {
        &self.id
    }

    fn cmd(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value> {
        self.client.request(method, &format!("/session/{}{path}", self.id), body)
    }

    /// The first element matching a CSS selector (an error when none).
    pub fn find(&self, css: &str) -> Result<Element> {
        let v = self.cmd("POST", "/element", Some(&json!({ "using": "css selector", "value": css })))?;
        element_of(&v).with_context(|| format!("find {css:?}"))
    }

    /// Every element matching a CSS selector (maybe none).
    pub fn find_all(&self, css: &str) -> Result<Vec<Element>> {
        let v = self.cmd("POST", "/elements", Some(&json!({ "using": "css selector", "value": css })))?;
        v.as_array().context("find_all: not an array")?.iter().map(element_of).collect()
    }

    /// Clicks the element, scrolled into the middle of its scrolling
    /// panel first (WebKit's driver refuses an element outside the view of
    /// a nested scroll container as not interactable).
    ///
    /// A click WebKitWebDriver refuses as "intercepted" (another element,
    /// such as the sticky settings menu while the layout settles, is on top
    /// of the element's centre) was never dispatched, so it is tried again
    /// for a short while before the error is returned.
    pub fn click(&self, el: &Element) -> Result<()> {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            self.execute("arguments[0].scrollIntoView({block: 'center'});", &[el.to_json()])?;
            match self.cmd("POST", &format!("/element/{}/click", el.0), None) {
                Err(e) if Instant::now() < deadline && format!("{e:#}").contains("element click intercepted") => {
                    sleep(Duration::from_millis(150));
                }
                other => return other.map(drop),
            }
        }
    }

    /// Types `text` into the element (focusing it first).
    pub fn send_keys(&self, el: &Element, text: &str) -> Result<()> {
        self.cmd("POST", &format!("/element/{}/value", el.0), Some(&json!({ "text": text }))).map(drop)
    }

    pub fn clear(&self, el: &Element) -> Result<()> {
        self.cmd("POST", &format!("/element/{}/clear", el.0), None).map(drop)
    }

    /// The element's rendered text (`innerText`; WebKitWebDriver's own
    /// "get element text" has been seen to drop the connection).
    pub fn text(&self, el: &Element) -> Result<String> {
        let v = self.execute("return arguments[0].innerText;", &[el.to_json()])?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    pub fn attribute(&self, el: &Element, name: &str) -> Result<Option<String>> {
        let v = self.cmd("GET", &format!("/element/{}/attribute/{name}", el.0), None)?;
        Ok(v.as_str().map(str::to_owned))
    }

    pub fn is_displayed(&self, el: &Element) -> Result<bool> {
        let v = self.cmd("GET", &format!("/element/{}/displayed", el.0), None)?;
        Ok(v.as_bool().unwrap_or(false))
    }

    pub fn title(&self) -> Result<String> {
        Ok(self.cmd("GET", "/title", None)?.as_str().unwrap_or_default().to_owned())
    }

    pub fn url(&self) -> Result<String> {
        Ok(self.cmd("GET", "/url", None)?.as_str().unwrap_or_default().to_owned())
    }

    /// Runs `script` as a function body in the page (`return ...;` gives
    /// the result); `args` are its `arguments`.
    pub fn execute(&self, script: &str, args: &[Value]) -> Result<Value> {
        self.cmd("POST", "/execute/sync", Some(&json!({ "script": script, "args": args })))
    }

    /// The handles of the app's windows (one per webview window).
    pub fn window_handles(&self) -> Result<Vec<String>> {
        let v = self.cmd("GET", "/window/handles", None)?;
        Ok(v.as_array()
            .context("window handles: not an array")?
            .iter()
            .filter_map(|h| h.as_str().map(str::to_owned))
            .collect())
    }

    /// The handle of the window commands go to now.
    pub fn window_handle(&self) -> Result<String> {
        Ok(self.cmd("GET", "/window", None)?.as_str().context("window handle: not a string")?.to_owned())
    }

    /// Send the next commands to another window.
    pub fn switch_to_window(&self, handle: &str) -> Result<()> {
        self.cmd("POST", "/window", Some(&json!({ "handle": handle }))).map(drop)
    }

    /// Waits for a window other than `known` to appear and switches to it.
    pub fn wait_new_window(&self, known: &[String], timeout: Duration) -> Result<String> {
        let handle = self
            .wait_for("a new window", timeout, |s| Ok(s.window_handles()?.into_iter().find(|h| !known.contains(h))))?;
        self.switch_to_window(&handle)?;
        Ok(handle)
    }

    /// Answers the confirmation dialog that opens (over the panel, window
    /// `panel`) with `button` (`#approve`/`#deny`), goes back to the panel
    /// and returns the dialog's summary.
    pub fn answer_dialog(&self, panel: &str, button: &str, timeout: Duration) -> Result<String> {
        let dialog =
            self.wait_new_window(&[panel.to_owned()], timeout).context("the confirmation dialog did not open")?;
        // The body says "waiting for the request" until the question is read.
        self.wait_visible("#headline", timeout)?;
        // All the dialog says, the folded technical details included.
        let summary = self
            .execute(r#"return document.querySelector(".dialog-body").textContent;"#, &[])?
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if button == "#approve" && !self.find_all("#confirm-pay")?.is_empty() {
            // A payment: the box ticked first, as a person does.
            let tick = self.wait_visible("#confirm-pay", timeout)?;
            self.click(&tick)?;
        }
        self.wait_script(&format!("return !document.querySelector({button:?}).disabled;"), timeout)?;
        let b = self.wait_visible(button, timeout)?;
        // The answer closes the dialog, sometimes before WebKitWebDriver has
        // answered the click: then the click reports "no such window".
        if let Err(e) = self.click(&b)
            && !format!("{e:#}").contains("no such window")
        {
            return Err(e);
        }
        // Gone before the next question, so a dialog is never answered twice.
        let closed = |s: &Session| Ok((!s.window_handles()?.contains(&dialog)).then_some(()));
        let first = timeout.min(Duration::from_secs(15));
        if self.wait_for("the dialog to close", first, closed).is_err() {
            // Still open with its button enabled: the click never reached
            // the page (a loaded machine's WebKitWebDriver drops one now and
            // then); an answered dialog disables its buttons, so this click
            // cannot answer twice. What the dialog says, for the error.
            let state = self
                .execute(
                    r#"const b = document.querySelector(arguments[0]); const st = document.querySelector(".form-status");
                       return JSON.stringify({enabled: !!b && !b.disabled, status: st ? st.textContent : null});"#,
                    &[serde_json::Value::String(button.to_owned())],
                )
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            eprintln!("the dialog is still open after the click on {button}: {state}");
            if state.contains("\"enabled\":true")
                && let Ok(b) = self.find(button)
            {
                let _ = self.click(&b);
            }
            self.wait_for("the dialog to close", timeout, closed)
                .with_context(|| format!("the dialog after the click on {button}: {state}"))?;
        }
        self.switch_to_window(panel)?;
        Ok(summary)
    }

    /// Presses and releases one key (a WebDriver key code such as
    /// `"\u{E007}"` for Enter) where the focus is, as the keyboard does.
    pub fn press_key(&self, key: &str) -> Result<()> {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}
        ]}]});
        self.cmd("POST", "/actions", Some(&actions)).map(drop)
    }

    /// The current window's outer place and size: (x, y, width, height).
    pub fn window_rect(&self) -> Result<(i64, i64, i64, i64)> {
        let v = self.cmd("GET", "/window/rect", None)?;
        let n = |k: &str| {
            v.get(k)
                .and_then(Value::as_f64)
                .map(|f| f.round() as i64)
                .with_context(|| format!("window rect: no {k} in {v}"))
        };
        Ok((n("x")?, n("y")?, n("width")?, n("height")?))
    }

    /// Moves and resizes the current window (outer size), as the user does
    /// by dragging it or its edge.
    pub fn set_window_rect(&self, x: i64, y: i64, width: i64, height: i64) -> Result<()> {
        let body = json!({ "x": x, "y": y, "width": width, "height": height });
        self.cmd("POST", "/window/rect", Some(&body)).map(drop)
    }

    /// A PNG of the current window, as WebKit renders it for WebDriver.
    ///
    /// WebKitWebDriver waits for the page's next presentation update before
    /// it answers; a page rendered without compositing (how Halley's
    /// webviews render) that has nothing left to paint never gets one, so
    /// this can hang once the page has settled. Use it right after a load,
    /// and [`super::x11::capture`] of [`Session::window_rect`] otherwise.
    pub fn screenshot(&self) -> Result<Vec<u8>> {
        let v = self.cmd("GET", "/screenshot", None)?;
        let b64 = v.as_str().context("screenshot: not a string")?;
        base64::engine::general_purpose::STANDARD.decode(b64.trim()).context("screenshot: bad base64")
    }

    /// Polls `probe` until it returns `Some`, or fails after `timeout` with
    /// the last error seen.
    pub fn wait_for<T>(
        &self,
        what: &str,
        timeout: Duration,
        mut probe: impl FnMut(&Self) -> Result<Option<T>>,
    ) -> Result<T> {
        let deadline = Instant::now() + timeout;
        let mut last = String::new();
        loop {
            match probe(self) {
                Ok(Some(v)) => return Ok(v),
                Ok(None) => {}
                Err(e) => last = format!(" (last error: {e:#})"),
            }
            if Instant::now() >= deadline {
                bail!("timed out after {timeout:?} waiting for {what}{last}");
            }
            sleep(POLL);
        }
    }

    /// Waits until an element matching `css` exists and is displayed.
    pub fn wait_visible(&self, css: &str, timeout: Duration) -> Result<Element> {
        self.wait_for(&format!("{css:?} to be visible"), timeout, |s| {
            let found = s.find_all(css)?;
            for el in found {
                if s.is_displayed(&el)? {
                    return Ok(Some(el));
                }
            }
            Ok(None)
        })
    }

    /// Waits until the text of the first `css` element satisfies `pred`.
    pub fn wait_text(&self, css: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> Result<String> {
        self.wait_for(&format!("the text of {css:?}"), timeout, |s| {
            let Some(el) = s.find_all(css)?.into_iter().next() else { return Ok(None) };
            let text = s.text(&el)?;
            Ok(pred(&text).then_some(text))
        })
    }

    /// Waits until at least `n` elements match `css`, and returns them.
    pub fn wait_count(&self, css: &str, n: usize, timeout: Duration) -> Result<Vec<Element>> {
        self.wait_for(&format!("{n} x {css:?}"), timeout, |s| {
            let found = s.find_all(css)?;
            Ok((found.len() >= n).then_some(found))
        })
    }

    /// Waits until `script` (a function body) returns `true`.
    pub fn wait_script(&self, script: &str, timeout: Duration) -> Result<()> {
        self.wait_for(&format!("script {script:?}"), timeout, |s| {
            Ok((s.execute(script, &[])? == Value::Bool(true)).then_some(()))
        })
    }

    /// Types a task into the panel's composer and sends it (for the chat UI:
    /// `#composer` and `#send`).
    pub fn send_task(&self, task: &str, timeout: Duration) -> Result<()> {
        let composer = self.wait_visible("#composer", timeout)?;
        self.clear(&composer)?;
        self.send_keys(&composer, task)?;
        let send = self.wait_visible("#send", timeout)?;
        self.click(&send)
    }

    /// Ends the session (for tauri-driver: the app is closed).
    pub fn delete(mut self) -> Result<()> {
        self.deleted = true;
        self.client.request("DELETE", &format!("/session/{}", self.id), None).map(drop)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.deleted {
            let _ = self.client.request("DELETE", &format!("/session/{}", self.id), None);
        }
    }
}

fn element_of(v: &Value) -> Result<Element> {
    v.get(ELEMENT_KEY)
        .and_then(Value::as_str)
        .map(|s| Element(s.to_owned()))
        .with_context(|| format!("not an element: {v}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_and_chunked_responses() -> Result<()> {
        let (s, b) = parse_response(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")?;
        assert_eq!((s, b.as_slice()), (200, &b"{}"[..]));
        let (s, b) = parse_response(
            b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        )?;
        assert_eq!((s, b.as_slice()), (404, &b"abcde"[..]));
        Ok(())
    }
}
