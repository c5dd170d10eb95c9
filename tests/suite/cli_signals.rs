//! Signals end the CLI cleanly: SIGTERM, SIGINT or SIGHUP to a `halley`
//! process in the middle of a browser call (a navigation the fixture server
//! holds for 30 s) closes the managed Chromium and all its processes, and
//! the process exits promptly with 128 + the signal's number. `halley run`
//! ends its run `cancelled` first.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::Halley;
use crate::common::browser::{have_browser, step};
use crate::common::fixtures::FixtureServer;
use crate::common::model_server::{ModelServer, ToolCall, Turn};

/// Long enough that the call is certainly in flight when the signal comes.
const SLOW: &str = "slow?ms=30000";
/// From the browser's launch to the slow request.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// "Promptly": well under the 30 s the call would have taken.
const EXIT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long the browser's processes may take to disappear from /proc
/// (a zombie included) once `halley` has exited.
const GONE_TIMEOUT: Duration = Duration::from_secs(10);

#[test]
fn sigterm_to_a_script_mid_call_closes_the_browser() {
    signal_a_script("TERM", 143);
}

#[test]
fn sighup_to_a_script_mid_call_closes_the_browser() {
    signal_a_script("HUP", 129);
}

#[test]
fn sigint_to_a_tool_call_mid_call_closes_the_browser() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let args = json!({"url": site.url(SLOW)}).to_string();
    let mut halley = spawn(&h, &["--headless", "tools", "call", "browser_navigate", "--args", &args]);
    let seen = in_flight(&h, &site, &mut halley);
    let (status, _, stderr) = halley.signal("INT");
    assert_eq!(status.code(), Some(130), "{status}\n{stderr}");
    assert_all_gone(&h, &seen);
}

#[test]
fn sigterm_to_a_run_mid_call_cancels_it_and_closes_the_browser() {
    signal_a_run("TERM", 143);
}

#[test]
fn ctrl_c_to_a_run_mid_call_cancels_it_and_closes_the_browser() {
    signal_a_run("INT", 130);
}

#[test]
fn sigterm_leaves_an_attached_browser_running() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let exe = halley::browser::find_chromium(None).unwrap();
    let own_profile = h.work_dir().join("own-chrome");
    let chrome = Command::new(exe)
        .args(["--headless", "--no-sandbox", "--no-first-run", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"])
        .arg(format!("--remote-debugging-port={port}"))
        .arg(format!("--user-data-dir={}", own_profile.display()))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The user's browser: killed with everything using its profile at the end.
    let mut chrome = Running { child: Some(chrome), profile: own_profile };
    let deadline = Instant::now() + START_TIMEOUT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chrome did not open its DevTools port");
        std::thread::sleep(Duration::from_millis(100));
    }
    let endpoint = format!("http://127.0.0.1:{port}");
    let args = json!({"url": site.url(SLOW)}).to_string();
    let mut halley = spawn(&h, &["--cdp-url", &endpoint, "tools", "call", "browser_navigate", "--args", &args]);
    assert!(site.wait_for("slow", START_TIMEOUT).is_some(), "the attached browser never asked for the slow page");
    let (status, _, stderr) = halley.signal("TERM");
    assert_eq!(status.code(), Some(143), "{status}\n{stderr}");
    let own = chrome.child.as_mut().unwrap();
    assert_eq!(own.try_wait().unwrap(), None, "Halley closed a browser it did not start");
    assert!(
        using_profile(&chrome.profile).iter().any(|p| p.cmdline.contains("--type=renderer")),
        "the attached browser lost its renderers"
    );
}

#[test]
fn ctrl_c_in_a_chat_cancels_the_task_and_the_chat_goes_on() {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url(SLOW)}))]),
        Turn::text("never reached"),
    ]);
    let h = Halley::new();
    let base = model.base_url();
    let args = ["--headless", "chat", "--json", "--base-url", &base, "--model", "m"];
    let mut halley = spawn_with(&h, &args, Stdio::piped());
    let mut stdin = halley.child.as_mut().unwrap().stdin.take().unwrap();
    stdin.write_all(b"open the slow page\n").unwrap();
    let seen = in_flight(&h, &site, &mut halley);
    halley.send("INT");
    // The chat asks for the next task once the cancelled one has ended: an
    // empty line ends the chat, which closes the browser.
    stdin.write_all(b"\n").unwrap();
    let (status, _, stderr) = halley.wait("SIGINT and an empty line");
    assert_eq!(status.code(), Some(1), "the task did not complete: {status}\n{stderr}");
    assert!(stderr.contains("cancelling the run"), "{stderr}");
    assert!(stderr.contains("go on later with `halley chat --conversation"), "{stderr}");
    assert_all_gone(&h, &seen);
    assert_eq!(model.request_count(), 1);
    let runs = h.run(&["runs", "list", "--json"]).json();
    assert_eq!(runs[0]["status"], "cancelled", "{runs}");
}

/// `halley tools script`: the first call is done and printed, the second
/// is in flight when `signal` comes.
fn signal_a_script(signal: &str, code: i32) {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let h = Halley::new();
    let steps = [
        step("browser_navigate", json!({"url": site.url("shop-vn.html")})),
        step("browser_navigate", json!({"url": site.url(SLOW)})),
        step("browser_list_tabs", json!({})),
    ];
    let text: String = steps.iter().map(|s| format!("{s}\n")).collect();
    let file = h.write_file("slow.jsonl", text.as_bytes());
    let file = file.to_string_lossy().into_owned();
    let mut halley = spawn(&h, &["--headless", "tools", "script", &file]);
    let seen = in_flight(&h, &site, &mut halley);
    let (status, stdout, stderr) = halley.signal(signal);
    assert_eq!(status.code(), Some(code), "{status}\n{stderr}");
    assert!(stderr.contains(&format!("SIG{signal}: closing the browser")), "{stderr}");
    // The finished call was printed; the interrupted one and the rest were not.
    let printed: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(printed.len(), 1, "{stdout}");
    assert_eq!(printed[0]["status"], "ok");
    assert_all_gone(&h, &seen);
}

/// `halley run`: the model's first call is in flight when `signal` comes;
/// the run ends `cancelled` and the browser is closed.
fn signal_a_run(signal: &str, code: i32) {
    if !have_browser() {
        return;
    }
    let site = FixtureServer::start();
    let model = ModelServer::start(vec![
        Turn::tool_calls(vec![ToolCall::new("browser_navigate", json!({"url": site.url(SLOW)}))]),
        Turn::text("never reached"),
    ]);
    let h = Halley::new();
    let base = model.base_url();
    let mut halley =
        spawn(&h, &["--headless", "run", "open the slow page", "--json", "--base-url", &base, "--model", "m"]);
    let seen = in_flight(&h, &site, &mut halley);
    let (status, stdout, stderr) = halley.signal(signal);
    assert_eq!(status.code(), Some(code), "{status}\n{stdout}\n{stderr}");
    assert_all_gone(&h, &seen);
    assert_eq!(model.request_count(), 1, "the run went on after the signal");
    let runs = h.run(&["runs", "list", "--json"]);
    assert_eq!(runs.code, 0, "{}", runs.stderr);
    let runs = runs.json();
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "{runs}");
    assert_eq!(runs[0]["status"], "cancelled", "{runs}");
}

/// A running `halley` whose output is collected. Dropped half-way (a
/// failed test), it is killed with its browser.
pub(crate) struct Running {
    pub(crate) child: Option<Child>,
    profile: std::path::PathBuf,
}

pub(crate) fn spawn(h: &Halley, args: &[&str]) -> Running {
    spawn_with(h, args, Stdio::null())
}

pub(crate) fn spawn_with(h: &Halley, args: &[&str], stdin: Stdio) -> Running {
    let child = Command::new(env!("CARGO_BIN_EXE_halley"))
        .arg("--data-dir")
        .arg(h.data_dir())
        .args(args)
        .current_dir(h.work_dir())
        .env_remove("HALLEY_DATA_DIR")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run halley");
    Running { child: Some(child), profile: profile_of(h) }
}

impl Running {
    pub(crate) fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// Send `signal` (a name for kill(1)), wait for the exit; the status,
    /// stdout and stderr.
    pub(crate) fn signal(&mut self, signal: &str) -> (ExitStatus, String, String) {
        self.send(signal);
        self.wait(&format!("SIG{signal}"))
    }

    pub(crate) fn send(&self, signal: &str) {
        let sent = Command::new("kill").args(["-s", signal, &self.pid().to_string()]).status().expect("kill");
        assert!(sent.success(), "kill -s {signal} failed");
    }

    /// Wait (up to [`EXIT_TIMEOUT`]) for the exit after `what`.
    pub(crate) fn wait(&mut self, what: &str) -> (ExitStatus, String, String) {
        let sent_at = Instant::now();
        let mut child = self.child.take().expect("running");
        let status = loop {
            if let Some(status) = child.try_wait().expect("try_wait") {
                break status;
            }
            if sent_at.elapsed() > EXIT_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                panic!("halley was still running {EXIT_TIMEOUT:?} after {what}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stdout = String::new();
        let mut stderr = String::new();
        child.stdout.take().expect("piped").read_to_string(&mut stdout).expect("stdout");
        child.stderr.take().expect("piped").read_to_string(&mut stderr).expect("stderr");
        (status, stdout, stderr)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        for p in using_profile(&self.profile) {
            let _ = Command::new("kill").args(["-s", "KILL", &p.pid.to_string()]).status();
        }
    }
}

/// Wait until the browser asked the fixture server for the slow page (the
/// call is in flight), and return every process of the browser and below
/// `halley` at that moment. The browser has its renderers by then.
fn in_flight(h: &Halley, site: &FixtureServer, halley: &mut Running) -> Vec<Proc> {
    if site.wait_for("slow", START_TIMEOUT).is_none() {
        let pid = halley.pid();
        let (status, stdout, stderr) = halley.signal("KILL");
        panic!("halley ({pid}) never asked for the slow page: {status}\n{stdout}\n{stderr}");
    }
    let browser = using_profile(&profile_of(h));
    assert!(
        browser.iter().any(|p| p.cmdline.contains("--type=renderer")),
        "no renderer among the browser's processes: {browser:#?}"
    );
    let mut seen = below(halley.pid());
    for p in browser {
        if !seen.iter().any(|s| s.same(&p)) {
            seen.push(p);
        }
    }
    seen
}

/// Nothing of the browser is left: none of `seen` runs any more or is a
/// zombie some live process holds without reaping it, and no process uses
/// the profile. A helper that exited after its parent is an orphan of init,
/// which reaps it on a desktop; the test container's PID 1 does not, so
/// such zombies are allowed.
fn assert_all_gone(h: &Halley, seen: &[Proc]) {
    assert_gone_by(h, seen, Instant::now() + GONE_TIMEOUT, &format!("{GONE_TIMEOUT:?} after halley exited"));
}

/// By `deadline`, none of `seen` runs and nothing uses `h`'s profile (a
/// zombie adopted by PID 1 aside, as above); else a panic naming what is
/// left, `when`.
pub(crate) fn assert_gone_by(h: &Halley, seen: &[Proc], deadline: Instant, when: &str) {
    let profile = profile_of(h);
    let adopted_zombie = |p: &Proc| p.state == "Z" && p.ppid == 1;
    loop {
        let mut left: Vec<Proc> = seen.iter().filter_map(|p| p.now()).filter(|p| !adopted_zombie(p)).collect();
        for p in using_profile(&profile).into_iter().filter(|p| !adopted_zombie(p)) {
            if !left.iter().any(|l| l.same(&p)) {
                left.push(p);
            }
        }
        if left.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            let left: Vec<String> =
                left.iter().map(|p| format!("{} [{}] parent {}: {}", p.pid, p.state, p.ppid, p.cmdline)).collect();
            panic!("left behind {when}:\n{}", left.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub(crate) fn profile_of(h: &Halley) -> std::path::PathBuf {
    h.data_dir().join("browser-profile")
}

/// A process seen in /proc: pid and start time name it (a pid can be
/// reused), state, parent and command line say what it is.
#[derive(Debug, Clone)]
pub(crate) struct Proc {
    pub(crate) pid: u32,
    started: u64,
    pub(crate) state: String,
    pub(crate) ppid: u32,
    pub(crate) cmdline: String,
}

impl Proc {
    fn read(pid: u32) -> Option<Proc> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let rest = &stat[stat.rfind(')')? + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        Some(Proc {
            pid,
            state: fields.first()?.to_string(),
            ppid: fields.get(1)?.parse().ok()?,
            started: fields.get(19)?.parse().ok()?,
            cmdline: String::from_utf8_lossy(&cmdline).replace('\0', " "),
        })
    }

    pub(crate) fn same(&self, other: &Proc) -> bool {
        self.pid == other.pid && self.started == other.started
    }

    /// The same process as it is now, if it is still there (zombie or not).
    pub(crate) fn now(&self) -> Option<Proc> {
        Proc::read(self.pid).filter(|p| p.same(self))
    }
}

fn all() -> Vec<Proc> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(Proc::read)
        .collect()
}

/// Every process below `root`.
pub(crate) fn below(root: u32) -> Vec<Proc> {
    let all = all();
    let mut found: Vec<Proc> = Vec::new();
    let mut parents = vec![root];
    while let Some(parent) = parents.pop() {
        for p in all.iter().filter(|p| p.ppid == parent) {
            parents.push(p.pid);
            found.push(p.clone());
        }
    }
    found
}

/// Every process started with `--user-data-dir=<profile>`.
pub(crate) fn using_profile(profile: &Path) -> Vec<Proc> {
    let flag = format!("--user-data-dir={}", profile.display());
    all().into_iter().filter(|p| p.cmdline.split(' ').any(|a| a == flag)).collect()
}
