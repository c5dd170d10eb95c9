//! How Halley's own webviews render. The panel and the dialogs are plain
//! documents (no video, no WebGL, little animation), but WebKitGTK's
//! accelerated compositing renders them through the GPU driver: on Mesa a
//! driver linked with LLVM, plus compositing buffers, about 70 MB in the web
//! process for nothing visible (docs/benchmarks.md). Halley renders them in
//! software instead.
//!
//! WebKitGTK takes that choice from `WEBKIT_DISABLE_COMPOSITING_MODE` when it
//! starts (turning `hardware-acceleration-policy` off on a webview that
//! already loads breaks its web process in WebKitGTK 2.50). Setting an
//! environment variable from Rust is `unsafe` (another thread may read the
//! environment), and the workspace forbids unsafe code, so the app
//! re-executes itself once, first thing, with the variable set: same PID,
//! same arguments, a few milliseconds.
//!
//! `HALLEY_WEBVIEW_GPU=1` keeps WebKit's defaults (to compare, or where
//! software rendering misbehaves); a `WEBKIT_DISABLE_COMPOSITING_MODE`
//! already in the environment is left as it is.

#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

pub const SOFTWARE_RENDERING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
pub const KEEP_GPU: &str = "HALLEY_WEBVIEW_GPU";

/// Call first in `main`. Returns only when nothing is to be done, or when the
/// re-execution failed (then WebKit's defaults apply, which only cost memory).
/// WebKitGTK only: elsewhere the system webview decides by itself.
#[cfg(target_os = "linux")]
pub fn ensure_software_rendering() {
    use std::os::unix::process::CommandExt;
    let Some(mut command) = restart_command(|name| std::env::var_os(name), std::env::current_exe().ok()) else {
        return;
    };
    let err = command.exec();
    eprintln!("halley-desktop: cannot restart with software rendering ({err}); WebKit's defaults apply");
}

#[cfg(not(target_os = "linux"))]
pub fn ensure_software_rendering() {}

/// The command that restarts this process with software rendering, or
/// `None` when it is not wanted or already in force.
fn restart_command(var: impl Fn(&str) -> Option<OsString>, exe: Option<PathBuf>) -> Option<Command> {
    if var(SOFTWARE_RENDERING).is_some() || var(KEEP_GPU).is_some_and(|v| v == "1") {
        return None;
    }
    let exe = exe?;
    let mut args = std::env::args_os();
    let mut command = Command::new(exe);
    #[cfg(unix)]
    if let Some(arg0) = args.next() {
        std::os::unix::process::CommandExt::arg0(&mut command, arg0);
    }
    #[cfg(not(unix))]
    args.next();
    command.args(args).env(SOFTWARE_RENDERING, "1");
    Some(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, OsString)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).into())).collect();
        move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn restarts_once_with_the_variable_set() {
        let exe = Some(PathBuf::from("/opt/halley/halley-desktop"));
        let command = restart_command(env(&[]), exe.clone()).unwrap();
        assert_eq!(command.get_program(), "/opt/halley/halley-desktop");
        let envs: Vec<_> = command.get_envs().collect();
        assert_eq!(envs, vec![(SOFTWARE_RENDERING.as_ref(), Some("1".as_ref()))]);
        // The restarted process finds the variable: no second restart.
        assert!(restart_command(env(&[(SOFTWARE_RENDERING, "1")]), exe.clone()).is_none());
        // The user's own choice stands, whatever its value.
        assert!(restart_command(env(&[(SOFTWARE_RENDERING, "0")]), exe.clone()).is_none());
    }

    #[test]
    fn the_gpu_can_be_kept() {
        let exe = Some(PathBuf::from("/usr/bin/halley-desktop"));
        assert!(restart_command(env(&[(KEEP_GPU, "1")]), exe.clone()).is_none());
        assert!(restart_command(env(&[(KEEP_GPU, "0")]), exe.clone()).is_some());
        // Without a path to this program, nothing is restarted.
        assert!(restart_command(env(&[]), None).is_none());
    }
}
