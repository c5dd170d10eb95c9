//! The X11 display as the user sees it: top-level windows, their names,
//! classes, places and map state (`xwininfo`), and closing a window the way
//! a window manager does when its close button is clicked (a
//! `WM_DELETE_WINDOW` message, sent over the X protocol: the test session
//! has no window manager and no `xdotool`).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::thread::sleep;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::run;

/// A top-level window (a child of the root window; without a window
/// manager there are no frames, so these are the apps' own windows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// `0x...`, as xwininfo prints it.
    pub id: String,
    /// `None` for "(has no name)".
    pub name: Option<String>,
    /// WM_CLASS: instance and class (e.g. `chromium`, `Chromium`).
    pub class: Vec<String>,
    pub rect: Rect,
}

/// Where a window is on the screen, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
}

impl Rect {
    pub fn right(&self) -> i64 {
        self.x + self.width
    }

    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.right()
            && other.x < self.right()
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }
}

/// A PNG of a part of the screen as the user sees it (`import -window
/// root`, then cropped), e.g. a window at its [`Rect`].
pub fn capture(rect: &Rect, out: &std::path::Path) -> Result<()> {
    let crop = format!("{}x{}+{}+{}", rect.width, rect.height, rect.x.max(0), rect.y.max(0));
    let out = out.to_str().context("the capture's path is not UTF-8")?;
    run("import", &["-window", "root", "-crop", &crop, "+repage", out]).map(drop)
}

/// Every top-level window.
pub fn top_level_windows() -> Result<Vec<Window>> {
    let tree = run("xwininfo", &["-root", "-children"])?;
    Ok(tree.lines().filter_map(parse_child).collect())
}

/// One child line of `xwininfo -children`:
/// `0x40000e "Halley": ("halley-desktop" "Halley-desktop")  420x1080+1500+0  +1500+0`.
fn parse_child(line: &str) -> Option<Window> {
    let line = line.trim();
    let (id, rest) = line.split_once(' ')?;
    if !id.starts_with("0x") {
        return None;
    }
    let (name, rest) = if let Some(named) = rest.strip_prefix('"') {
        let end = named.rfind("\": (")?;
        (Some(named[..end].to_owned()), &named[end + 3..])
    } else {
        (None, rest.strip_prefix("(has no name):")?.trim_start())
    };
    let close = rest.rfind(')')?;
    let class = rest.get(1..close)?.split('"').skip(1).step_by(2).map(str::to_owned).collect();
    let mut tail = rest[close + 1..].split_whitespace();
    let size = tail.next()?;
    let absolute = tail.next()?;
    let (w, h) = size.split('+').next()?.split_once('x')?;
    let (x, y) = parse_offset(absolute)?;
    Some(Window {
        id: id.to_owned(),
        name,
        class,
        rect: Rect { x, y, width: w.parse().ok()?, height: h.parse().ok()? },
    })
}

/// `+1500+0` or `-1+-1` into (x, y).
fn parse_offset(s: &str) -> Option<(i64, i64)> {
    let s = s.strip_prefix('+').unwrap_or(s);
    let split = s.char_indices().skip(1).find(|(_, c)| *c == '+' || *c == '-').map(|(i, _)| i)?;
    let (x, y) = s.split_at(split);
    Some((x.parse().ok()?, y.strip_prefix('+').unwrap_or(y).parse().ok()?))
}

/// The map state of a window (`IsViewable`, `IsUnMapped`, `IsUnviewable`).
pub fn map_state(id: &str) -> Result<String> {
    let info = run("xwininfo", &["-id", id])?;
    info.lines()
        .find_map(|l| l.trim().strip_prefix("Map State:"))
        .map(|s| s.trim().to_owned())
        .context("xwininfo printed no map state")
}

/// On screen (mapped, and its parents too).
pub fn is_viewable(id: &str) -> bool {
    map_state(id).is_ok_and(|s| s == "IsViewable")
}

/// Polls the top-level windows until one is viewable and satisfies `pred`.
pub fn wait_window(what: &str, timeout: Duration, pred: impl Fn(&Window) -> bool) -> Result<Window> {
    let deadline = Instant::now() + timeout;
    loop {
        let windows = top_level_windows()?;
        if let Some(w) = windows.iter().find(|w| pred(w) && is_viewable(&w.id)) {
            return Ok(w.clone());
        }
        if Instant::now() >= deadline {
            let seen: Vec<String> =
                windows.iter().map(|w| format!("{} {:?} {:?} {:?}", w.id, w.name, w.class, w.rect)).collect();
            bail!("no viewable window: {what} within {timeout:?}; windows:\n{}", seen.join("\n"));
        }
        sleep(Duration::from_millis(100));
    }
}

/// Polls until the window's map state is `state`.
pub fn wait_map_state(id: &str, state: &str, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let now = map_state(id)?;
        if now == state {
            return Ok(());
        }
        if Instant::now() >= deadline {
            bail!("window {id} is {now}, not {state}, after {timeout:?}");
        }
        sleep(Duration::from_millis(100));
    }
}

/// Asks the window's owner to close it, as a window manager does for its
/// close button: a `WM_PROTOCOLS` client message carrying `WM_DELETE_WINDOW`
/// (ICCCM 4.2.8.1), sent to the window. What happens next is the app's
/// business (the panel hides, a dialog closes).
pub fn request_close(id: &str) -> Result<()> {
    let window = u32::from_str_radix(id.trim_start_matches("0x"), 16).with_context(|| format!("bad window id {id}"))?;
    let mut x = Connection::open()?;
    let protocols = x.intern_atom("WM_PROTOCOLS")?;
    let delete = x.intern_atom("WM_DELETE_WINDOW")?;
    let mut event = [0u8; 32];
    event[0] = CLIENT_MESSAGE;
    event[1] = 32; // format: the data is 32-bit values
    event[4..8].copy_from_slice(&window.to_le_bytes());
    event[8..12].copy_from_slice(&protocols.to_le_bytes());
    event[12..16].copy_from_slice(&delete.to_le_bytes());
    // data.l[1] = CurrentTime (0), the rest 0.
    let mut request = vec![SEND_EVENT, 0];
    request.extend_from_slice(&11u16.to_le_bytes()); // length in 4-byte units
    request.extend_from_slice(&window.to_le_bytes()); // destination
    request.extend_from_slice(&0u32.to_le_bytes()); // event mask: the window's owner
    request.extend_from_slice(&event);
    x.stream.write_all(&request)?;
    // A round trip: an error about the SendEvent (no such window) comes first.
    x.round_trip(&[GET_INPUT_FOCUS, 0, 1, 0]).context("sending WM_DELETE_WINDOW")?;
    Ok(())
}

/// Takes the keyboard focus away from every window (`SetInputFocus` to
/// None), as when the user goes to another program: the app's windows get
/// FocusOut. (The session has no window manager to do it.)
pub fn focus_nothing() -> Result<()> {
    set_input_focus(0)
}

/// Gives window `id` the keyboard focus, as a window manager does when the
/// user clicks it.
pub fn focus(id: &str) -> Result<()> {
    let window = u32::from_str_radix(id.trim_start_matches("0x"), 16).with_context(|| format!("bad window id {id}"))?;
    set_input_focus(window)
}

fn set_input_focus(window: u32) -> Result<()> {
    let mut x = Connection::open()?;
    // revert-to: Parent (1 is PointerRoot; None for no window).
    let revert = if window == 0 { 0 } else { 2 };
    let mut request = vec![SET_INPUT_FOCUS, revert];
    request.extend_from_slice(&3u16.to_le_bytes());
    request.extend_from_slice(&window.to_le_bytes());
    request.extend_from_slice(&0u32.to_le_bytes()); // time: CurrentTime
    x.stream.write_all(&request)?;
    x.round_trip(&[GET_INPUT_FOCUS, 0, 1, 0]).context("SetInputFocus")?;
    Ok(())
}

const SET_INPUT_FOCUS: u8 = 42;
const INTERN_ATOM: u8 = 16;
const SEND_EVENT: u8 = 25;
const GET_INPUT_FOCUS: u8 = 43;
const CLIENT_MESSAGE: u8 = 33;

/// A minimal X11 client connection (little-endian, no authentication: the
/// test session's Xvfb accepts local clients, as `xwininfo` shows).
struct Connection {
    stream: UnixStream,
}

impl Connection {
    fn open() -> Result<Connection> {
        let display = std::env::var("DISPLAY").context("DISPLAY is unset")?;
        let number = display
            .strip_prefix(':')
            .and_then(|d| d.split('.').next())
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .with_context(|| format!("DISPLAY={display} is not a local display (:N)"))?;
        let mut stream = UnixStream::connect(format!("/tmp/.X11-unix/X{number}"))
            .with_context(|| format!("connecting to the X server of DISPLAY={display}"))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        // Byte order 'l', protocol 11.0, no authorization.
        stream.write_all(&[b'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0])?;
        let mut head = [0u8; 8];
        stream.read_exact(&mut head).context("reading the X server's setup answer")?;
        let extra = usize::from(u16::from_le_bytes([head[6], head[7]])) * 4;
        let mut rest = vec![0u8; extra];
        stream.read_exact(&mut rest)?;
        if head[0] != 1 {
            let reason = String::from_utf8_lossy(rest.get(..usize::from(head[1])).unwrap_or(&[])).into_owned();
            bail!("the X server refused the connection: {reason}");
        }
        Ok(Connection { stream })
    }

    fn intern_atom(&mut self, name: &str) -> Result<u32> {
        let len = u16::try_from(name.len())?;
        let pad = (4 - name.len() % 4) % 4;
        let units = u16::try_from((8 + name.len() + pad) / 4)?;
        let mut request = vec![INTERN_ATOM, 0];
        request.extend_from_slice(&units.to_le_bytes());
        request.extend_from_slice(&len.to_le_bytes());
        request.extend_from_slice(&[0, 0]);
        request.extend_from_slice(name.as_bytes());
        request.extend(std::iter::repeat_n(0u8, pad));
        let reply = self.round_trip(&request).with_context(|| format!("InternAtom {name}"))?;
        Ok(u32::from_le_bytes([reply[8], reply[9], reply[10], reply[11]]))
    }

    /// Sends a request that has a reply and reads that reply (32 bytes;
    /// these requests have no more), failing on an X error.
    fn round_trip(&mut self, request: &[u8]) -> Result<[u8; 32]> {
        self.stream.write_all(request)?;
        let mut reply = [0u8; 32];
        self.stream.read_exact(&mut reply)?;
        match reply[0] {
            1 => Ok(reply),
            0 => bail!(
                "X error {} (request {}, value {:#x})",
                reply[1],
                reply[10],
                u32::from_le_bytes([reply[4], reply[5], reply[6], reply[7]])
            ),
            other => bail!("unexpected X message {other} while waiting for a reply"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_xwininfo_children() {
        let w = parse_child(r#"     0x40000e "Halley": ("halley-desktop" "Halley-desktop")  420x1080+1500+0  +1500+0"#);
        assert_eq!(
            w,
            Some(Window {
                id: "0x40000e".into(),
                name: Some("Halley".into()),
                class: vec!["halley-desktop".into(), "Halley-desktop".into()],
                rect: Rect { x: 1500, y: 0, width: 420, height: 1080 },
            })
        );
        let w = parse_child("     0x400014 (has no name): ()  1x1+-1+-1  +-1+-1");
        assert_eq!(
            w.map(|w| (w.name, w.class, w.rect)),
            Some((None, vec![], Rect { x: -1, y: -1, width: 1, height: 1 }))
        );
        let w = parse_child(r#"  0x600001 "a "quoted": title": ("chromium" "Chromium")  1500x1080+0+0  +0+0"#);
        assert_eq!(w.map(|w| w.name), Some(Some(r#"a "quoted": title"#.into())));
        assert_eq!(parse_child("  Root window id: 0x50d (the root window) (has no name)"), None);
    }

    #[test]
    fn rectangles_overlap_only_when_they_share_pixels() {
        let panel = Rect { x: 1500, y: 0, width: 420, height: 1080 };
        assert!(!Rect { x: 0, y: 0, width: 1500, height: 1080 }.overlaps(&panel));
        assert!(Rect { x: 0, y: 0, width: 1501, height: 1080 }.overlaps(&panel));
    }
}
