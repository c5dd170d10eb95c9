//! tauri-driver, started per test on free ports with Debian's
//! WebKitWebDriver behind it, and a WebDriver session on the app.
//!
//! The app it launches inherits this environment: give it temp dirs
//! (`AppEnv`) so tests never touch real data, and `HALLEY_HEADLESS=1` so the
//! managed Chromium stays invisible.

use std::fs::File;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::KillOnDrop;
use super::proc;
use super::webdriver::{Client, Session};

/// Debian's WebKitGTK WebDriver (package webkit2gtk-driver).
pub const NATIVE_DRIVER: &str = "/usr/bin/WebKitWebDriver";
const START_TIMEOUT: Duration = Duration::from_secs(20);
const STOP_TIMEOUT: Duration = Duration::from_secs(15);

/// A free TCP port on loopback (free when asked; good enough for tests).
pub fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The tauri-driver binary: `$TAURI_DRIVER`, else on PATH, else in
/// `$CARGO_HOME/bin` (where `make deps` installs it).
pub fn tauri_driver_path() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("TAURI_DRIVER") {
        return Ok(PathBuf::from(p));
    }
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        dirs.push(PathBuf::from(home).join("bin"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    dirs.into_iter()
        .map(|d| d.join("tauri-driver"))
        .find(|p| p.is_file())
        .context("tauri-driver not found (PATH, $CARGO_HOME/bin); run `make deps`")
}

/// Private dirs for the app under test: HOME, XDG dirs and HALLEY_DATA_DIR
/// in a temp dir removed on drop.
pub struct AppEnv {
    pub dir: tempfile::TempDir,
}

impl AppEnv {
    pub fn new() -> Result<Self> {
        Ok(Self { dir: tempfile::Builder::new().prefix("halley-e2e-").tempdir()? })
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The variables to set on the driver (and so on the app).
    pub fn vars(&self) -> Result<Vec<(String, PathBuf)>> {
        let home = self.dir.path().join("home");
        let vars = vec![
            ("HALLEY_DATA_DIR".to_owned(), self.data_dir()),
            ("XDG_CONFIG_HOME".to_owned(), home.join(".config")),
            ("XDG_DATA_HOME".to_owned(), home.join(".local/share")),
            ("XDG_CACHE_HOME".to_owned(), home.join(".cache")),
            ("XDG_STATE_HOME".to_owned(), home.join(".local/state")),
        ];
        for (_, dir) in &vars {
            std::fs::create_dir_all(dir)?;
        }
        Ok(vars)
    }
}

/// A running tauri-driver (in its own process group; the whole group is
/// stopped on drop).
pub struct TauriDriver {
    process: KillOnDrop,
    pub port: u16,
    pub client: Client,
    /// Where its output (and so WebKitWebDriver's and the app's) goes.
    pub log: PathBuf,
}

impl TauriDriver {
    /// Starts tauri-driver with `env` added to its environment, logging to
    /// `log`, and waits until it answers.
    pub fn start(env: &[(String, PathBuf)], log: &Path) -> Result<Self> {
        if !Path::new(NATIVE_DRIVER).is_file() {
            bail!("{NATIVE_DRIVER} is missing; run `make deps` (package webkit2gtk-driver)");
        }
        let port = free_port()?;
        let native_port = loop {
            let p = free_port()?;
            if p != port {
                break p;
            }
        };
        let out = File::create(log).with_context(|| format!("creating {}", log.display()))?;
        let mut cmd = Command::new(tauri_driver_path()?);
        cmd.args(["--port", &port.to_string(), "--native-port", &native_port.to_string()])
            .args(["--native-driver", NATIVE_DRIVER])
            .env("HALLEY_HEADLESS", "1")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .process_group(0);
        let child = cmd.spawn().context("starting tauri-driver")?;
        let mut process = KillOnDrop(Some(child));
        let client = Client::new(port);
        let deadline = Instant::now() + START_TIMEOUT;
        while !client.is_up() {
            if let Some(status) = process.try_wait()? {
                bail!("tauri-driver exited at start ({status}); see {}", log.display());
            }
            if Instant::now() >= deadline {
                bail!("tauri-driver did not answer on port {port} within {START_TIMEOUT:?}");
            }
            sleep(Duration::from_millis(50));
        }
        Ok(Self { process, port, client, log: log.to_owned() })
    }

    pub fn pid(&mut self) -> Result<u32> {
        self.process.pid()
    }

    /// Opens the app (`application` = the halley-desktop binary) in a new
    /// WebDriver session.
    ///
    /// tauri-driver answers before the WebKitWebDriver behind it listens, and
    /// then drops the first request: a session that fails that way (no HTTP
    /// answer at all) is asked for again, a few times.
    pub fn launch(&self, application: &Path, args: &[&str]) -> Result<Session> {
        let caps = json!({ "tauri:options": { "application": application, "args": args } });
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.client.new_session(caps.clone()) {
                Ok(session) => return Ok(session),
                Err(e) if attempt < 5 && format!("{e:#}").contains("truncated HTTP response") => {
                    std::thread::sleep(std::time::Duration::from_millis(500 * attempt));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The running app process started by this driver, if any.
    pub fn app_pid(&mut self, app_name: &str) -> Result<Option<u32>> {
        Ok(proc::find_descendant(self.pid()?, app_name))
    }

    /// Stops the driver and everything in its process group.
    pub fn stop(mut self) -> Result<()> {
        self.stop_group()
    }

    fn stop_group(&mut self) -> Result<()> {
        let Some(child) = self.process.0.as_mut() else { return Ok(()) };
        let pgid = child.id();
        let _ = Command::new("kill").args(["-TERM", "--", &format!("-{pgid}")]).stderr(Stdio::null()).status();
        match self.process.wait_timeout(STOP_TIMEOUT) {
            Ok(_) => Ok(()),
            Err(e) => {
                let _ = Command::new("kill").args(["-KILL", "--", &format!("-{pgid}")]).stderr(Stdio::null()).status();
                Err(e.context("tauri-driver did not stop on SIGTERM"))
            }
        }
    }
}

impl Drop for TauriDriver {
    fn drop(&mut self) {
        let _ = self.stop_group();
    }
}
