//! Finding and starting Chromium (or attaching to a running Chrome), and
//! the event loop that keeps the CDP connection alive.
//!
//! The DevTools endpoint is only ever local: a launched browser listens on
//! 127.0.0.1 on a random port, and `--remote-allow-origins` is never set.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chromiumoxide::browser::Browser;
use chromiumoxide::cdp::browser_protocol::browser::CloseParams;
use chromiumoxide::handler::viewport::Viewport;
use chromiumoxide::handler::{Handler, HandlerConfig};
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::intercept::{Hub, Relay};
use super::process::{NoAddress, Process};
use crate::error::{Error, ErrorCode, Result};

/// Environment variable naming the browser executable.
pub const CHROMIUM_ENV: &str = "HALLEY_CHROMIUM";

/// How to get a browser.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrowserOptions {
    /// The executable (`--chromium`); else `HALLEY_CHROMIUM`, else found on
    /// PATH and in the standard install locations.
    pub chromium: Option<PathBuf>,
    /// Run without a window (`--headless`). Without a display on Linux the
    /// browser runs headless anyway, and says so.
    pub headless: bool,
    /// Attach to a running Chrome's DevTools endpoint (`--cdp-url`,
    /// `http://127.0.0.1:9222` or a `ws://` URL) instead of launching one.
    pub cdp_url: Option<String>,
    /// The persistent profile (logins survive restarts).
    pub profile_dir: PathBuf,
    /// Where downloads land before they are moved into the files store.
    pub downloads_dir: PathBuf,
    /// Benchmarks only: no interception and no relay
    /// (`BrowserSettings::bench_wire_off`).
    #[cfg(feature = "bench-knobs")]
    pub bench_wire_off: bool,
}

/// A connected browser plus the task that pumps its CDP connection.
pub(crate) struct Connected {
    /// Shared only with [`Hub`] (weakly): closing the browser takes it
    /// back.
    pub browser: Arc<Browser>,
    /// The browser-wide interception the tabs' watches share.
    pub hub: Arc<Hub>,
    pub pump: JoinHandle<()>,
    /// Set when the CDP connection ended (the browser exited or crashed).
    pub gone: Arc<AtomicBool>,
    /// True when Halley started the process (and so must stop it).
    pub owned: bool,
    /// The process, when Halley started it.
    process: Option<Process>,
    /// Its way out, when Halley started it (`relay`): stopped with it.
    relay: Option<Relay>,
}

impl Connected {
    /// Whether the browser is still there.
    pub fn alive(&mut self) -> bool {
        if self.gone.load(Ordering::SeqCst) || self.pump.is_finished() {
            return false;
        }
        match &mut self.process {
            Some(process) => process.try_wait().is_none(),
            None => true,
        }
    }

    /// The process id of the browser Halley started.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(Process::pid)
    }

    /// Close the browser (or just disconnect from one we did not start) and
    /// reap the process so no zombie is left.
    pub async fn shutdown(mut self) {
        if let Some(mut process) = self.process.take() {
            // Seen before the browser closes: once it is gone, its children
            // are no longer below it.
            let tree = super::reap::Tree::of(process.pid());
            let close = async {
                match Arc::get_mut(&mut self.browser) {
                    Some(browser) => browser.close().await.map(|_| ()),
                    // A watch is using it this instant: the same command.
                    None => self.browser.execute(CloseParams::default()).await.map(|_| ()),
                }
            };
            let closed = tokio::time::timeout(Duration::from_secs(3), close).await;
            if !matches!(closed, Ok(Ok(_))) || process.wait(Duration::from_secs(5)).await.is_none() {
                process.kill().await;
            }
            tree.reap(super::reap::LINGER).await;
        }
        // Nothing is left to go through it.
        drop(self.relay.take());
        self.pump.abort();
        let _ = self.pump.await;
    }
}

/// Launch or attach, per the options.
pub(crate) async fn connect(options: &BrowserOptions) -> Result<Connected> {
    let (browser, mut handler, process, relay) = match &options.cdp_url {
        Some(url) => {
            check_local(url)?;
            let attached = tokio::time::timeout(LAUNCH_BOUND, Browser::connect(url.clone())).await.map_err(|_| {
                Error::new(
                    ErrorCode::BrowserUnavailable,
                    format!("the browser at {url} did not answer within {} s", LAUNCH_BOUND.as_secs()),
                )
            })?;
            let (b, h) = attached.map_err(|e| {
                Error::new(ErrorCode::BrowserUnavailable, format!("cannot attach to the browser at {url}"))
                    .with_source(e)
            })?;
            (b, h, None, None)
        }
        None => {
            let (b, h, p, r) = launch(options).await?;
            (b, h, Some(p), Some(r))
        }
    };
    let pid = process.as_ref().map(Process::pid);
    let gone = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&gone);
    let pump = tokio::spawn(async move {
        // Keep polling until the connection ends: every CDP response and
        // event flows through here. A single bad message is not the end;
        // the socket failing or closing, or the process exiting, is.
        let exited = async move {
            match pid {
                Some(pid) => super::reap::exited(pid).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(exited);
        loop {
            tokio::select! {
                event = handler.next() => match event {
                    None => break,
                    Some(Err(e)) if connection_lost(&e) => {
                        tracing::debug!("cdp connection lost: {e}");
                        break;
                    }
                    Some(Err(e)) => tracing::debug!("cdp: {e}"),
                    Some(Ok(())) => {}
                },
                () = &mut exited => {
                    tracing::debug!("the browser process exited");
                    break;
                }
            }
        }
        flag.store(true, Ordering::SeqCst);
        // Dropping the handler here fails every request, navigation and
        // page creation still waiting on it at once (chromiumoxide's own
        // request timeout would take 30 s; a closed socket alone never
        // ends its handler).
        drop(handler);
    });
    let browser = Arc::new(browser);
    // The hub learns of each service worker before it runs (it is made
    // once the browser is connected; a worker before that just runs).
    let hub_of_workers: Arc<std::sync::OnceLock<std::sync::Weak<Hub>>> = Arc::default();
    let of_workers = Arc::clone(&hub_of_workers);
    super::cdp::release_service_workers(&browser, move |target, url| {
        let hub = of_workers.get().and_then(std::sync::Weak::upgrade);
        async move {
            if let Some(hub) = hub {
                hub.worker_starts(target, url).await;
            }
        }
    })
    .await;
    #[cfg(feature = "bench-knobs")]
    if options.bench_wire_off {
        // No interception, and the actions run unwatched.
        let hub = Hub::ungated();
        return Ok(Connected { browser, hub, pump, gone, owned: process.is_some(), process, relay });
    }
    let hub = match Hub::start(&browser).await {
        Ok(hub) => hub,
        Err(e) => {
            // A browser whose requests the gate cannot see is not used.
            let hub = Hub::detached();
            Connected { browser, hub, pump, gone, owned: process.is_some(), process, relay }.shutdown().await;
            return Err(e);
        }
    };
    if let Some(relay) = &relay {
        relay.judged_by(&hub);
    }
    let _ = hub_of_workers.set(Arc::downgrade(&hub));
    Ok(Connected { browser, hub, pump, gone, owned: process.is_some(), process, relay })
}

/// Start Chromium on the profile (closing an orphan of this data directory
/// that holds it first), its connections through a relay of ours, and
/// connect to its DevTools socket.
async fn launch(options: &BrowserOptions) -> Result<(Browser, Handler, Process, Relay)> {
    let (exe, mut args, handler_config) = launch_command(options)?;
    let relay = Relay::start().await.map_err(|e| {
        Error::new(ErrorCode::BrowserUnavailable, "cannot open the browser's relay on 127.0.0.1").with_source(e)
    })?;
    // Benchmarks only: the browser without the gate goes straight out.
    #[cfg(feature = "bench-knobs")]
    let straight = options.bench_wire_off;
    #[cfg(not(feature = "bench-knobs"))]
    let straight = false;
    if !straight {
        args.extend(relay.flags());
    }
    super::profile_lock::recover(&options.profile_dir).await?;
    let mut process = Process::spawn(&exe, &args).await.map_err(|e| {
        Error::new(ErrorCode::BrowserUnavailable, format!("cannot start the browser {}", exe.display())).with_source(e)
    })?;
    let address = match process.devtools_address(ADDRESS_BOUND).await {
        Ok(address) => address,
        Err(no) => {
            let status = match &no {
                NoAddress::Ended(_) => process.wait(Duration::from_secs(2)).await,
                NoAddress::Timeout(_) => None,
            };
            process.kill().await;
            return Err(launch_error(no, status));
        }
    };
    // Chromium runs now (a wrapper script has become it): its own host
    // rules, for the names the relay resolves.
    relay.resolve_as(process.pid());
    let connected = tokio::time::timeout(CONNECT_BOUND, Browser::connect_with_config(address, handler_config)).await;
    match connected {
        Ok(Ok((browser, handler))) => Ok((browser, handler, process, relay)),
        Ok(Err(e)) => {
            process.kill().await;
            Err(Error::new(
                ErrorCode::BrowserCrashed,
                "the browser closed its DevTools connection while it started; it is started again on the next call. \
                 Nothing was done in it.",
            )
            .with_source(e))
        }
        Err(_) => {
            process.kill().await;
            Err(Error::new(
                ErrorCode::BrowserUnavailable,
                format!("the browser did not accept its DevTools connection within {} s", CONNECT_BOUND.as_secs()),
            ))
        }
    }
}

/// Whether a handler error means the connection to the browser is gone:
/// any WebSocket error (tungstenite reports nothing after one but "already
/// closed"), or a message saying so.
fn connection_lost(err: &chromiumoxide::error::CdpError) -> bool {
    matches!(err, chromiumoxide::error::CdpError::Ws(_)) || is_fatal(&err.to_string())
}

/// The longest an attach may take.
const LAUNCH_BOUND: Duration = Duration::from_secs(30);

/// How long a launched browser may take to print its DevTools address.
const ADDRESS_BOUND: Duration = Duration::from_secs(20);

/// How long the WebSocket handshake with a launched browser may take.
const CONNECT_BOUND: Duration = Duration::from_secs(10);

/// A launch that never gave its DevTools address, as a Halley error: a
/// browser that went away while it started (killed, or its output ending
/// first) is `browser_crashed`, and the next call starts it again; one that
/// handed its command line to another browser on the same profile, or said
/// nothing in time, is `browser_unavailable`.
fn launch_error(no: NoAddress, status: Option<std::process::ExitStatus>) -> Error {
    let printed = match &no {
        NoAddress::Ended(p) | NoAddress::Timeout(p) => p.clone(),
    };
    let last_words = printed.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default().trim().to_owned();
    if printed.contains("existing browser session") || printed.contains("SingletonLock") {
        return Error::new(
            ErrorCode::BrowserUnavailable,
            "cannot start the browser: another browser holds this data directory's profile (is another Halley \
             using this data directory? close it or use --cdp-url)",
        )
        .with_source(std::io::Error::other(last_words));
    }
    if matches!(no, NoAddress::Timeout(_)) {
        return Error::new(
            ErrorCode::BrowserUnavailable,
            format!("the browser did not start within {} s", ADDRESS_BOUND.as_secs()),
        );
    }
    #[cfg(unix)]
    let how = match status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)) {
        Some(signal) => format!("was killed (signal {signal})"),
        None => "exited".to_owned(),
    };
    #[cfg(not(unix))]
    let how = {
        let _ = status;
        "exited".to_owned()
    };
    let error = Error::new(
        ErrorCode::BrowserCrashed,
        format!("the browser {how} while it started; it is started again on the next call. Nothing was done in it."),
    );
    if last_words.is_empty() { error } else { error.with_source(std::io::Error::other(last_words)) }
}

fn is_fatal(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("connection closed")
        || t.contains("connectionclosed")
        || t.contains("connection reset")
        || t.contains("broken pipe")
        || t.contains("already closed")
}

/// `--cdp-url` must point at this machine: Halley never drives a remote
/// browser over the network.
fn check_local(url: &str) -> Result<()> {
    let parsed =
        url::Url::parse(url).map_err(|e| Error::invalid_arguments(format!("--cdp-url {url:?} is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "ws") {
        return Err(Error::invalid_arguments(format!(
            "--cdp-url must be http://127.0.0.1:PORT or ws://127.0.0.1:PORT/..., not {url:?}"
        )));
    }
    let local = match parsed.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if !local {
        return Err(Error::invalid_arguments(format!(
            "--cdp-url must be on this machine (127.0.0.1 or localhost), not {url:?}"
        )));
    }
    Ok(())
}

/// The executable, its arguments and the CDP handler's settings for a
/// launch.
fn launch_command(options: &BrowserOptions) -> Result<(PathBuf, Vec<String>, HandlerConfig)> {
    let exe = find_chromium(options.chromium.as_deref())?;
    std::fs::create_dir_all(&options.profile_dir).map_err(|e| {
        Error::new(ErrorCode::DataDir, format!("cannot create the browser profile {}", options.profile_dir.display()))
            .with_source(e)
    })?;
    prepare_preferences(&options.profile_dir);
    let headless = options.headless || !has_display();
    if headless && !options.headless {
        tracing::warn!("no display found: the browser runs headless (pass --headless to silence this)");
    }
    let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|a| format!("--{a}")).collect();
    args.extend([
        "--remote-debugging-port=0".to_owned(),
        "--disable-extensions".to_owned(),
        format!("--user-data-dir={}", options.profile_dir.display()),
        "--window-size=1280,900".to_owned(),
        // WebRTC only over the relay (the profile's `webrtc.ip_handling_policy`
        // says so too), where a call's relay is asked about: never straight
        // out over UDP, whatever the profile says.
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp".to_owned(),
    ]);
    if running_as_root() {
        // Chromium refuses to run as root with its sandbox on.
        args.extend(["--no-sandbox".to_owned(), "--disable-setuid-sandbox".to_owned()]);
    }
    let viewport = if headless {
        args.extend(["--headless".to_owned(), "--hide-scrollbars".to_owned(), "--mute-audio".to_owned()]);
        // A fixed viewport, so pages and screenshots look the same everywhere.
        Some(Viewport {
            width: 1280,
            height: 900,
            device_scale_factor: Some(1.0),
            emulating_mobile: false,
            is_landscape: true,
            has_touch: false,
        })
    } else {
        None
    };
    let handler = HandlerConfig { viewport, request_timeout: Duration::from_secs(30), ..HandlerConfig::default() };
    Ok((exe, args, handler))
}

/// The profile's preferences, set before each launch:
/// - after a crash Chromium offers to restore the last session and opens a
///   tab of its own for it; Halley restores the tabs itself, so the profile
///   is marked as cleanly closed;
/// - no offer to translate the page (issue 29: on every Vietnamese page);
/// - Chromium's password manager and autofill are off: what the agent types
///   into pages (a passport number through `{{profile...}}`, a login) is
///   never kept by Chromium in `Login Data` or `Web Data` (Halley's profile
///   seals sensitive values; the browser must not keep copies).
fn prepare_preferences(profile: &Path) {
    let dir = profile.join("Default");
    let prefs = dir.join("Preferences");
    let mut value = match std::fs::read_to_string(&prefs) {
        Ok(text) => match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(v) if v.is_object() => v,
            // Not ours to repair: Chromium rewrites it.
            _ => return,
        },
        Err(_) => serde_json::json!({}),
    };
    let before = value.clone();
    let set = |value: &mut serde_json::Value, path: &[&str], to: serde_json::Value| {
        let mut at = value;
        for key in &path[..path.len() - 1] {
            if !at.get(*key).is_some_and(serde_json::Value::is_object) {
                at[*key] = serde_json::json!({});
            }
            at = &mut at[*key];
        }
        at[path[path.len() - 1]] = to;
    };
    set(&mut value, &["profile", "exit_type"], "Normal".into());
    set(&mut value, &["profile", "exited_cleanly"], true.into());
    set(&mut value, &["credentials_enable_service"], false.into());
    set(&mut value, &["profile", "password_manager_enabled"], false.into());
    set(&mut value, &["autofill", "enabled"], false.into());
    set(&mut value, &["autofill", "profile_enabled"], false.into());
    set(&mut value, &["autofill", "credit_card_enabled"], false.into());
    // No "Translate this page?" offer on every Vietnamese page (the
    // `Translate` feature flag turns off the service; the prompt is the
    // profile's `translate.enabled`, which Chromium's TranslateEnabled
    // policy sets).
    set(&mut value, &["translate", "enabled"], false.into());
    set(&mut value, &["translate_blocked_languages"], serde_json::json!(["vi", "en"]));
    // WebRTC only over the relay (TCP), never straight out over UDP: a
    // call to a new site is seen there like any other connection.
    set(&mut value, &["webrtc", "ip_handling_policy"], "disable_non_proxied_udp".into());
    if value == before {
        return;
    }
    if let Ok(out) = serde_json::to_string(&value) {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(&prefs, out);
    }
}

/// Flags for a quiet, user-like browser: no first-run UI, no background
/// traffic to Google, no crash reporter; the user's own language. Written
/// without their leading `--` ([`launch_command`] adds it).
const CHROMIUM_ARGS: &[&str] = &[
    "no-first-run",
    "no-default-browser-check",
    "disable-background-networking",
    "disable-component-update",
    "disable-sync",
    "disable-dev-shm-usage",
    "disable-breakpad",
    "disable-client-side-phishing-detection",
    "disable-default-apps",
    "disable-features=Translate,MediaRouter,OptimizationHints",
    "disable-hang-monitor",
    "metrics-recording-only",
    "remote-debugging-address=127.0.0.1",
    // Halley opens the tabs itself (and reopens them after a crash): a
    // visible browser must not open a start window of its own as well.
    "no-startup-window",
    "hide-crash-restore-bubble",
];

fn has_display() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}

#[cfg(unix)]
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
        || std::env::var("USER").is_ok_and(|u| u == "root")
}

#[cfg(not(unix))]
fn running_as_root() -> bool {
    false
}

/// Names tried on PATH, in order.
const PATH_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "msedge",
    "microsoft-edge",
    "microsoft-edge-stable",
];

/// Find the browser: the flag, `HALLEY_CHROMIUM`, PATH, then the standard
/// macOS and Windows install locations.
pub fn find_chromium(flag: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = flag {
        return existing(p, "--chromium");
    }
    if let Some(p) = std::env::var_os(CHROMIUM_ENV).filter(|v| !v.is_empty()) {
        return existing(Path::new(&p), CHROMIUM_ENV);
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    for name in PATH_NAMES {
        for dir in std::env::split_paths(&path_var) {
            for candidate in [dir.join(name), dir.join(format!("{name}.exe"))] {
                if candidate.is_file() {
                    return Ok(candidate);
                }
            }
        }
    }
    for candidate in standard_locations() {
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(Error::new(
        ErrorCode::BrowserUnavailable,
        "no Chromium, Chrome or Edge found: install one (Debian: `apt install chromium`), or pass --chromium PATH \
         or set HALLEY_CHROMIUM, or attach to a running Chrome with --cdp-url",
    ))
}

fn existing(p: &Path, from: &str) -> Result<PathBuf> {
    if p.is_file() {
        Ok(p.to_path_buf())
    } else {
        Err(Error::new(ErrorCode::BrowserUnavailable, format!("{from}: no browser executable at {}", p.display())))
    }
}

fn standard_locations() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if cfg!(target_os = "macos") {
        for app in [
            "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
            "/Applications/Chromium.app/Contents/MacOS/Chromium",
            "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
        ] {
            out.push(PathBuf::from(app));
            if let Some(home) = dirs::home_dir() {
                out.push(home.join(app.trim_start_matches('/')));
            }
        }
    }
    if cfg!(windows) {
        for var in ["PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA"] {
            if let Some(base) = std::env::var_os(var) {
                let base = PathBuf::from(base);
                out.push(base.join("Google/Chrome/Application/chrome.exe"));
                out.push(base.join("Chromium/Application/chrome.exe"));
                out.push(base.join("Microsoft/Edge/Application/msedge.exe"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preferences_mark_a_clean_exit_and_turn_off_passwords_and_autofill() {
        let dir = tempfile::tempdir().unwrap();
        prepare_preferences(dir.path());
        let prefs = dir.path().join("Default/Preferences");
        let read = || serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&prefs).unwrap()).unwrap();
        let v = read();
        assert_eq!(v["credentials_enable_service"], false);
        assert_eq!(v["profile"]["password_manager_enabled"], false);
        assert_eq!(v["autofill"]["profile_enabled"], false);
        assert_eq!(v["translate"]["enabled"], false, "no translate prompt");
        assert_eq!(v["translate_blocked_languages"], serde_json::json!(["vi", "en"]));
        // Chromium's own values are kept; a crash is marked clean again.
        std::fs::write(
            &prefs,
            r#"{"profile":{"exit_type":"Crashed","name":"Halley"},"intl":{"accept_languages":"vi"}}"#,
        )
        .unwrap();
        prepare_preferences(dir.path());
        let v = read();
        assert_eq!(
            (v["profile"]["exit_type"].as_str(), v["profile"]["name"].as_str()),
            (Some("Normal"), Some("Halley"))
        );
        assert_eq!(v["intl"]["accept_languages"], "vi");
        assert_eq!(v["autofill"]["credit_card_enabled"], false);
    }

    #[test]
    fn cdp_url_must_be_local() {
        assert!(check_local("http://127.0.0.1:9222").is_ok());
        assert!(check_local("ws://localhost:9222/devtools/browser/abc").is_ok());
        assert!(check_local("http://[::1]:9222").is_ok());
        for bad in ["http://10.0.0.5:9222", "http://example.com:9222", "ftp://127.0.0.1", "nonsense"] {
            let err = check_local(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidArguments, "{bad}");
        }
    }

    #[test]
    fn a_closed_or_reset_connection_ends_the_pump_and_a_bad_message_does_not() {
        for lost in
            ["WebSocket protocol error: Connection reset without closing handshake", "Connection closed normally"]
        {
            assert!(is_fatal(lost), "{lost}");
        }
        assert!(!is_fatal("expected value at line 1 column 1"));
    }

    #[test]
    fn flags_are_given_without_their_dashes() {
        for arg in CHROMIUM_ARGS {
            assert!(!arg.starts_with('-'), "{arg}: chromiumoxide adds the leading --");
        }
    }

    #[test]
    fn a_missing_executable_is_a_clear_error() {
        let err = find_chromium(Some(Path::new("/nonexistent/chrome"))).unwrap_err();
        assert_eq!(err.code(), ErrorCode::BrowserUnavailable);
        assert!(err.message().contains("/nonexistent/chrome"));
    }
}
