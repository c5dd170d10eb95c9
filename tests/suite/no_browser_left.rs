//! However a long-lived command ends, no browser is left behind: for each
//! of `mcp serve`, `serve`, `watch run`, `chat`, `run` and `tools script`,
//! and each ending (its input closing, SIGTERM, SIGINT, SIGHUP, SIGKILL),
//! once its browser runs: the command ends with the right status and, one
//! second later, no process uses its profile. SIGKILL leaves Halley no
//! chance to clean up: the browser dies with it (its parent-death signal).
//!
//! "Input closing" is how a command that reads standard input is ended by
//! the program feeding it (`mcp serve`, `chat`, `tools script -`), and the
//! natural end for the others that end by themselves (`run`, `watch run
//! --passes 1`); `serve` runs until it is signalled (the desktop app's own
//! signals are tested in `src-tauri/tests/suite/signals.rs`). A signal
//! comes while a browser call is in flight (a page the fixture server holds
//! for 30 s), an end of input once a quick page has been read.

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;

use super::cli_signals::{Proc, Running, assert_gone_by, below, profile_of, spawn, spawn_with, using_profile};
use crate::common::Halley;
use crate::common::browser::{have_browser, step};
use crate::common::fixtures::{FixtureServer, PageKind, WatchedPage};
use crate::common::gemini::GeminiServer;
use crate::common::mcp;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

/// From the start to the browser running.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// What the issue promises: nothing of the browser one second later.
const GONE_WITHIN: Duration = Duration::from_secs(1);

const SLOW: &str = "slow?ms=30000";
const QUICK: &str = "shop-vn.html";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// Standard input closed (or the command's natural end).
    Eof,
    /// `kill -s NAME`.
    Signal(&'static str),
}

impl End {
    fn page(self) -> &'static str {
        if self == End::Eof { QUICK } else { SLOW }
    }
}

/// A command started on `h`, its browser running; what ends it.
struct Started {
    halley: Running,
    /// Its standard input, when the test feeds it.
    stdin: Option<std::process::ChildStdin>,
    /// Kept alive for the command's life.
    _site: FixtureServer,
    _model: Option<ModelServer>,
}

#[derive(Debug, Clone, Copy)]
enum Cmd {
    McpServe,
    Serve,
    WatchRun,
    Chat,
    Run,
    Script,
}

fn start(h: &Halley, cmd: Cmd, end: End) -> Started {
    let site = FixtureServer::start();
    let page = site.url(end.page());
    let agent = || {
        ModelServer::start(vec![
            Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": page}))]),
            Turn::text("Xong: trang đã mở."),
        ])
    };
    let mut model = None;
    let mut stdin = None;
    let halley = match cmd {
        Cmd::McpServe => {
            let mut halley = spawn_with(h, &["--headless", "mcp", "serve"], Stdio::piped());
            let mut input = halley.child.as_mut().and_then(|c| c.stdin.take()).expect("stdin");
            let messages = [
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "no-browser-left", "version": "1"}}}),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "browser_navigate", "arguments": {"url": page}}}),
            ];
            for m in messages {
                writeln!(input, "{m}").expect("write to mcp serve");
            }
            stdin = Some(input);
            halley
        }
        Cmd::Serve => {
            let token = h.run(&["api", "token"]);
            assert_eq!(token.code, 0, "{}", token.stderr);
            let token = token.stdout.trim().to_owned();
            let port = std::net::TcpListener::bind("127.0.0.1:0").expect("port").local_addr().expect("addr").port();
            let halley = spawn(h, &["--headless", "serve", "--port", &port.to_string()]);
            let body = json!({"args": {"url": page}}).to_string();
            let request = format!(
                "POST /api/v1/tools/browser_navigate/call HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \
                 {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            let deadline = Instant::now() + START_TIMEOUT;
            let mut conn = loop {
                match std::net::TcpStream::connect(("127.0.0.1", port)) {
                    Ok(c) => break c,
                    Err(e) => assert!(Instant::now() < deadline, "the API never listened: {e}"),
                }
                std::thread::sleep(Duration::from_millis(50));
            };
            conn.write_all(request.as_bytes()).expect("send the call");
            // The connection stays open (the call is in flight) until the
            // process ends.
            std::mem::forget(conn);
            halley
        }
        Cmd::WatchRun => {
            site.set_page(
                "js",
                WatchedPage {
                    kind: PageKind::Script,
                    name: "Tai nghe chống ồn".into(),
                    price: 990_000,
                    ..WatchedPage::default()
                },
            );
            let watches = json!([{"target": {"url": site.url("watched/js")},
                "trigger_rules": [{"op": "all_time_low"}], "frequency": "1d"}]);
            let file = h.write_file("watches.json", watches.to_string().as_bytes());
            let imported = h.run(&["watch", "import", file.to_str().expect("utf-8 path")]);
            assert_eq!(imported.code, 0, "{}", imported.stderr);
            let passes: &[&str] = if end == End::Eof { &["--passes", "1"] } else { &[] };
            spawn(h, &[&["--headless", "watch", "run", "--tick", "1"][..], passes].concat())
        }
        Cmd::Chat => {
            let m = agent();
            let base = m.base_url();
            model = Some(m);
            let args = ["--headless", "chat", "--json", "--base-url", &base, "--model", "m"];
            let mut halley = spawn_with(h, &args, Stdio::piped());
            let mut input = halley.child.as_mut().and_then(|c| c.stdin.take()).expect("stdin");
            writeln!(input, "mở trang sản phẩm").expect("write the task");
            stdin = Some(input);
            halley
        }
        Cmd::Run => {
            let m = agent();
            let base = m.base_url();
            model = Some(m);
            spawn(h, &["--headless", "run", "mở trang sản phẩm", "--json", "--base-url", &base, "--model", "m"])
        }
        Cmd::Script => {
            let line = format!("{}\n", step("browser_navigate", json!({"url": page})));
            if end == End::Eof {
                let mut halley = spawn_with(h, &["--headless", "tools", "script", "-"], Stdio::piped());
                let mut input = halley.child.as_mut().and_then(|c| c.stdin.take()).expect("stdin");
                input.write_all(line.as_bytes()).expect("write the script");
                stdin = Some(input);
                halley
            } else {
                let file = h.write_file("slow.jsonl", line.as_bytes());
                spawn(h, &["--headless", "tools", "script", file.to_str().expect("utf-8 path")])
            }
        }
    };
    let mut started = Started { halley, stdin, _site: site, _model: model };
    // For `tools script -` the script is read to its end first.
    if matches!(cmd, Cmd::Script) {
        started.stdin = None;
    }
    wait_for_browser(h, &mut started);
    started
}

/// Wait until a browser of `h`'s profile runs (a renderer included).
fn wait_for_browser(h: &Halley, started: &mut Started) {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if using_profile(&profile_of(h)).iter().any(|p| p.cmdline.contains("--type=renderer")) {
            return;
        }
        if let Some(child) = started.halley.child.as_mut()
            && let Ok(Some(status)) = child.try_wait()
        {
            let (_, out, err) = started.halley.wait("its early exit");
            panic!("halley exited ({status}) before its browser ran:\n{out}\n{err}");
        }
        if Instant::now() >= deadline {
            let (status, out, err) = started.halley.signal("KILL");
            panic!("no browser of the profile within {START_TIMEOUT:?}: {status}\n{out}\n{err}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn end_and_check(cmd: Cmd, end: End) {
    if !have_browser() {
        return;
    }
    let h = Halley::new();
    let mut started = start(&h, cmd, end);
    let mut seen: Vec<Proc> = below(started.halley.pid());
    for p in using_profile(&profile_of(&h)) {
        if !seen.iter().any(|s| s.same(&p)) {
            seen.push(p);
        }
    }
    let (status, stdout, stderr) = match end {
        End::Eof => {
            if matches!(cmd, Cmd::McpServe) {
                // The navigation's answer first, as a client would.
                std::thread::sleep(Duration::from_millis(500));
            }
            drop(started.stdin.take());
            started.halley.wait("the end of its input")
        }
        End::Signal("INT") if matches!(cmd, Cmd::Chat) => {
            // Ctrl-C cancels the chat's task; a second one ends the chat.
            started.halley.send("INT");
            std::thread::sleep(Duration::from_millis(300));
            started.halley.signal("INT")
        }
        End::Signal(name) => started.halley.signal(name),
    };
    let ended_at = Instant::now();
    let why = format!("{cmd:?} ended by {end:?}: {status}\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    match end {
        End::Eof => assert_eq!(status.code(), Some(0), "{why}"),
        End::Signal("KILL") => {
            assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(9), "{why}")
        }
        End::Signal(name) => {
            let number = match name {
                "HUP" => 1,
                "INT" => 2,
                _ => 15,
            };
            assert_eq!(status.code(), Some(128 + number), "{why}");
        }
    }
    assert_gone_by(&h, &seen, ended_at + GONE_WITHIN, &format!("{GONE_WITHIN:?} after the end\n{why}"));
}

macro_rules! endings {
    ($($name:ident: $cmd:expr, $end:expr;)*) => {
        $(
            #[test]
            fn $name() {
                end_and_check($cmd, $end);
            }
        )*
    };
}

endings! {
    mcp_serve_stdin_closed: Cmd::McpServe, End::Eof;
    mcp_serve_sigterm: Cmd::McpServe, End::Signal("TERM");
    mcp_serve_sigint: Cmd::McpServe, End::Signal("INT");
    mcp_serve_sighup: Cmd::McpServe, End::Signal("HUP");
    mcp_serve_sigkill: Cmd::McpServe, End::Signal("KILL");
    serve_sigterm: Cmd::Serve, End::Signal("TERM");
    serve_sigint: Cmd::Serve, End::Signal("INT");
    serve_sighup: Cmd::Serve, End::Signal("HUP");
    serve_sigkill: Cmd::Serve, End::Signal("KILL");
    watch_run_its_last_pass: Cmd::WatchRun, End::Eof;
    watch_run_sigterm: Cmd::WatchRun, End::Signal("TERM");
    watch_run_sigint: Cmd::WatchRun, End::Signal("INT");
    watch_run_sighup: Cmd::WatchRun, End::Signal("HUP");
    watch_run_sigkill: Cmd::WatchRun, End::Signal("KILL");
    chat_stdin_closed: Cmd::Chat, End::Eof;
    chat_sigterm: Cmd::Chat, End::Signal("TERM");
    chat_sigint_twice: Cmd::Chat, End::Signal("INT");
    chat_sighup: Cmd::Chat, End::Signal("HUP");
    chat_sigkill: Cmd::Chat, End::Signal("KILL");
    run_to_its_end: Cmd::Run, End::Eof;
    run_sigterm: Cmd::Run, End::Signal("TERM");
    run_sigint: Cmd::Run, End::Signal("INT");
    run_sighup: Cmd::Run, End::Signal("HUP");
    run_sigkill: Cmd::Run, End::Signal("KILL");
    script_from_stdin_to_its_end: Cmd::Script, End::Eof;
    script_sigterm: Cmd::Script, End::Signal("TERM");
    script_sigint: Cmd::Script, End::Signal("INT");
    script_sighup: Cmd::Script, End::Signal("HUP");
    script_sigkill: Cmd::Script, End::Signal("KILL");
}

/// The next start recovers: a browser left running on this data
/// directory's profile by a Halley that is gone (here: one that names a
/// Halley pid that does not run) is closed, with a note, and the call
/// browses.
#[test]
fn the_next_start_closes_an_orphan_that_holds_the_profile() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let profile = profile_of(&h);
    std::fs::create_dir_all(&profile).expect("profile dir");
    let exe = halley::browser::find_chromium(None).expect("chromium");
    let mut orphan = std::process::Command::new(exe)
        .args(["--headless", "--no-sandbox", "--no-first-run", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--remote-debugging-port=0"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--halley-owner=4194304", "about:blank"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the orphan");
    let deadline = Instant::now() + START_TIMEOUT;
    while std::fs::symlink_metadata(profile.join("SingletonLock")).is_err() {
        assert!(Instant::now() < deadline, "the orphan never locked the profile");
        std::thread::sleep(Duration::from_millis(50));
    }
    let args = json!({"url": site.url(QUICK)}).to_string();
    let call = h.run(&["--headless", "tools", "call", "browser_navigate", "--args", &args]);
    let killed = orphan.try_wait().expect("try_wait");
    let _ = orphan.kill();
    let _ = orphan.wait();
    assert_eq!(call.code, 0, "{}\n{}", call.stdout, call.stderr);
    assert_eq!(call.result()["status"], "ok", "{}", call.stdout);
    assert!(
        call.stderr.contains(&format!("closing the browser (pid {})", orphan.id()))
            && call.stderr.contains("Halley (pid 4194304) that is gone"),
        "no note of the orphan in the log: {}",
        call.stderr
    );
    assert!(killed.is_some(), "the orphan still runs");
}

/// A profile held by a live Halley is not taken: the second one's call
/// fails with `browser_unavailable`, naming the Halley that holds it.
#[test]
fn a_profile_held_by_a_live_halley_is_refused_naming_it() {
    if !have_browser() {
        return;
    }
    let h = Halley::new();
    let first = start(&h, Cmd::Script, End::Signal("TERM"));
    let site = FixtureServer::start();
    let args = json!({"url": site.url(QUICK)}).to_string();
    let second = h.run(&["--headless", "tools", "call", "browser_navigate", "--args", &args]);
    assert_ne!(second.code, 0, "{}", second.stdout);
    assert!(second.stderr.contains("browser_unavailable"), "{}", second.stderr);
    assert!(
        second.stderr.contains(&format!("in use by another Halley (pid {}", first.halley.pid()))
            && second.stderr.contains("tools script"),
        "the holder is not named: {}",
        second.stderr
    );
    // The first goes on undisturbed.
    assert!(using_profile(&profile_of(&h)).iter().any(|p| p.ppid == first.halley.pid()), "the first lost its browser");
}

/// Once a real client has ended its `halley mcp serve` (clients do not wait
/// for it): nothing of the browser is left within this.
const CLIENT_GONE_WITHIN: Duration = Duration::from_secs(10);

fn halley_bin() -> &'static str {
    env!("CARGO_BIN_EXE_halley")
}

/// No process uses `h`'s profile within `within` (zombies adopted by the
/// container's PID 1 aside).
fn no_browser_within(h: &Halley, within: Duration, what: &str) {
    let deadline = Instant::now() + within;
    loop {
        let left: Vec<Proc> =
            using_profile(&profile_of(h)).into_iter().filter(|p| !(p.state == "Z" && p.ppid == 1)).collect();
        if left.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            let left: Vec<String> = left.iter().map(|p| format!("{} [{}] {}", p.pid, p.state, p.cmdline)).collect();
            panic!("{what}: the browser outlived its server by {within:?}:\n{}", left.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The real Gemini CLI with Halley as its MCP server, as the user's flow
/// has it: asked twice in a row, both times its model's call runs in
/// Halley's browser and the answer carries the page's price.
#[test]
fn gemini_cli_browses_through_halley_twice_in_a_row() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let model = GeminiServer::start(&site.url(QUICK));
    let home = h.work_dir().join("gemini-home");
    std::fs::create_dir_all(home.join(".gemini")).expect("gemini home");
    let data = h.data_dir();
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
        "mcpServers": {"halley": {
            "command": halley_bin(),
            "args": ["--data-dir", data.to_str().expect("utf-8 path"), "--headless", "mcp", "serve"],
            "trust": true,
        }},
    });
    std::fs::write(home.join(".gemini/settings.json"), settings.to_string()).expect("gemini settings");
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/site").join(QUICK),
    )
    .expect("the fixture page");
    for session in 1..=2 {
        let out = std::process::Command::new(mcp::bin("gemini"))
            .args(["-m", "gemini-2.5-flash", "-p", "Mở trang sản phẩm và cho tôi biết giá", "--approval-mode", "yolo"])
            .current_dir(h.work_dir())
            .env("HOME", &home)
            .env("GEMINI_API_KEY", "test-key")
            .env("GOOGLE_GEMINI_BASE_URL", model.base_url())
            .env("NO_COLOR", "1")
            .env_remove("GOOGLE_API_KEY")
            .env_remove("GOOGLE_CLOUD_PROJECT")
            .stdin(Stdio::null())
            .output()
            .expect("run gemini");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let why = format!("session {session}: {}\n--- stdout\n{stdout}\n--- stderr\n{stderr}", out.status);
        assert!(out.status.success(), "{why}");
        let price = stdout.lines().find_map(|l| l.trim().strip_prefix("Giá: ")).unwrap_or_else(|| panic!("{why}"));
        assert!(page.contains(price), "{price} is not on the page: {why}");
        no_browser_within(&h, CLIENT_GONE_WITHIN, &format!("gemini session {session}"));
    }
    let calls = model.requests().iter().filter(|(_, body)| body.to_string().contains("functionResponse")).count();
    assert!(calls >= 2, "the model did not see both sessions' tool results");
}

/// The MCP Inspector's CLI starts `halley mcp serve`, calls
/// `browser_navigate` and ends it: twice in a row, both browse.
#[test]
fn the_inspector_browses_through_halley_twice_in_a_row() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let data = h.data_dir();
    let serve = ["--", halley_bin(), "--data-dir", data.to_str().expect("utf-8 path"), "--headless", "mcp", "serve"];
    let arg = format!("url={}", site.url(QUICK));
    for session in 1..=2 {
        let args = ["--method", "tools/call", "--tool-name", "browser_navigate", "--tool-arg", &arg];
        let done = mcp::inspect("tools/call", &[&args[..], &serve[..]].concat());
        assert_eq!(done["structuredContent"]["status"], "ok", "session {session}: {done}");
        no_browser_within(&h, CLIENT_GONE_WITHIN, &format!("inspector session {session}"));
    }
}

/// The Python `mcp` SDK's stdio client, twice in a row.
#[test]
fn the_python_sdk_browses_through_halley_twice_in_a_row() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let data = h.data_dir();
    let calls = json!([{"name": "browser_navigate", "arguments": {"url": site.url(QUICK)}}]).to_string();
    for session in 1..=2 {
        let args =
            ["--calls", &calls, "--", halley_bin(), "--data-dir", data.to_str().expect("utf-8 path"), "--headless"];
        let out = mcp::python_client(&[&args[..], &["mcp", "serve"][..]].concat());
        let done = mcp::json_out("python stdio", &out);
        assert_eq!(done["calls"][0]["structuredContent"]["status"], "ok", "session {session}: {done}");
        no_browser_within(&h, CLIENT_GONE_WITHIN, &format!("python session {session}"));
    }
}
