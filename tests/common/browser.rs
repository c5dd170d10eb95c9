//! Helpers for tests that drive the real browser through the `halley` CLI:
//! a JSONL macro run with `halley --headless tools script`.

use serde_json::{Value, json};

use super::{Halley, Run};

/// Whether a browser is installed. Inside the test session
/// (`HALLEY_TEST_SESSION=1`, as `make test` runs) a missing browser is a
/// failure; elsewhere the test is skipped with a note.
pub fn have_browser() -> bool {
    match halley::browser::find_chromium(None) {
        Ok(_) => true,
        Err(e) if std::env::var_os("HALLEY_TEST_SESSION").is_some() => {
            panic!("the test session has no browser: {}", e.message())
        }
        Err(e) => {
            eprintln!("skipped: {}", e.message());
            false
        }
    }
}

/// `{"tool": NAME, "args": ARGS}`.
pub fn step(tool: &str, args: Value) -> Value {
    json!({"tool": tool, "args": args})
}

/// What a browser script printed: one ToolResultV2 per line.
pub struct Script {
    pub run: Run,
    pub results: Vec<Value>,
}

impl Script {
    /// The `data` of result `i`, which must be ok.
    pub fn ok(&self, i: usize) -> &Value {
        let r = self.result(i);
        assert_eq!(r["status"], "ok", "step {i} failed: {r}\nstderr:\n{}", self.run.stderr);
        &r["data"]
    }

    /// Result `i`, which must be an error; returns its code.
    pub fn err(&self, i: usize) -> String {
        let r = self.result(i);
        assert_eq!(r["status"], "error", "step {i} should have failed: {r}");
        r["error"]["code"].as_str().unwrap_or_default().to_owned()
    }

    pub fn result(&self, i: usize) -> &Value {
        self.results.get(i).unwrap_or_else(|| {
            panic!(
                "no result {i} ({} results)\nstdout:\n{}\nstderr:\n{}",
                self.results.len(),
                self.run.stdout,
                self.run.stderr
            )
        })
    }
}

impl Halley {
    /// Run the steps in one browser session, headless, going on after
    /// errors, with confirmations answered as `consent` says (`--yes`,
    /// `--confirm deny`).
    pub fn browse(&self, steps: &[Value], consent: &[&str]) -> Script {
        let text: String = steps.iter().map(|s| format!("{s}\n")).collect();
        let file = self.write_file(&format!("macro-{}.jsonl", uuid::Uuid::new_v4()), text.as_bytes());
        let mut args = vec!["--headless", "tools", "script", "--keep-going"];
        args.extend_from_slice(consent);
        let path = file.to_string_lossy().into_owned();
        args.push(&path);
        let run = self.run(&args);
        let results = run
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}\nstderr:\n{}", run.stderr)))
            .collect();
        Script { run, results }
    }
}

/// A headless Chrome the test starts itself, with its DevTools port open
/// (for `--cdp-url`); killed on drop.
pub struct OwnChrome {
    pub child: std::process::Child,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
}

impl OwnChrome {
    /// Start it with its profile in `profile`; returns once the port answers.
    pub fn start(profile: &std::path::Path) -> OwnChrome {
        OwnChrome::start_at(profile, "about:blank")
    }

    /// Like [`OwnChrome::start`], its one tab showing `url`.
    pub fn start_at(profile: &std::path::Path, url: &str) -> OwnChrome {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let exe = halley::browser::find_chromium(None).unwrap();
        let child = std::process::Command::new(exe)
            .args([
                "--headless",
                "--no-sandbox",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                &format!("--remote-debugging-port={port}"),
                &format!("--user-data-dir={}", profile.display()),
                url,
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(std::time::Instant::now() < deadline, "chrome did not open its DevTools port");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        OwnChrome { child, endpoint: format!("http://127.0.0.1:{port}") }
    }
}

impl Drop for OwnChrome {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
