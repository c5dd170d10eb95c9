//! The real MCP peers the MCP tests talk to (the Inspector's CLI, the
//! Python `mcp` SDK, server-filesystem, mcp-server-fetch), installed once
//! by `scripts/mcp-peers.sh` into `tests/mcp-peers` (gitignored).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

/// `tests/mcp-peers`, the peers installed (once per test binary; the
/// script itself does nothing when they are up to date).
pub fn peers() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = Command::new(root.join("scripts/mcp-peers.sh")).output().expect("run scripts/mcp-peers.sh");
        assert!(out.status.success(), "scripts/mcp-peers.sh failed:\n{}", String::from_utf8_lossy(&out.stderr));
        root.join("tests/mcp-peers")
    })
}

pub fn python() -> PathBuf {
    peers().join(".venv/bin/python")
}

pub fn bin(name: &str) -> PathBuf {
    let node = peers().join("node_modules/.bin").join(name);
    if node.exists() { node } else { peers().join(".venv/bin").join(name) }
}

/// What a peer printed, its stdout parsed as JSON.
pub fn json_out(what: &str, out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{what}: stdout is not JSON ({e}), status {}:\n{stdout}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `mcp-inspector --cli --format json ARGS...` (the Inspector's own CLI).
pub fn inspector(args: &[&str]) -> Output {
    Command::new(bin("mcp-inspector"))
        .args(["--cli", "--format", "json"])
        .args(args)
        .output()
        .expect("run the MCP Inspector")
}

/// [`inspector`], its answer's `result` (the Inspector's JSON wraps it).
pub fn inspect(what: &str, args: &[&str]) -> Value {
    let out = json_out(what, &inspector(args));
    out.get("result").cloned().unwrap_or_else(|| panic!("{what}: no result in {out}"))
}

/// The Python SDK's client (`tests/mcp-peers/client.py`) with ARGS.
pub fn python_client(args: &[&str]) -> Output {
    Command::new(python()).arg(peers().join("client.py")).args(args).output().expect("run the Python MCP client")
}

/// A listed tool by name.
pub fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no tool `{name}` in {tools}"))
}
