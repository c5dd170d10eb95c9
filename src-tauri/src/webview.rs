//! How Halley's own webviews render. The panel and the dialogs are plain
//! documents (no video, no WebGL, little animation), but WebKitGTK renders
//! them with accelerated compositing through the GPU driver, and its UI
//! process opens an EGL display (on Mesa, a driver linked with LLVM) only to
//! learn which GPU to hand the web process. Together that is about 90 MB of
//! the app's memory for nothing visible (docs/benchmarks.md). Halley renders
//! its pages in software instead:
//!
//! - `WEBKIT_DISABLE_COMPOSITING_MODE=1`: no accelerated compositing (the web
//!   process drops from ~167 to ~92 MB PSS);
//! - `WEBKIT_DISABLE_DMABUF_RENDERER=1`: no DMA-BUF renderer (nothing to
//!   share with a compositor that is off; the web process takes a surfaceless
//!   display, as on machines without DMA-BUF support, e.g. NVIDIA's driver);
//! - `WEBKIT_WEB_RENDER_DEVICE_FILE`: the GPU's render node, named here from
//!   `/dev/dri` (or `/dev/null` when there is none) so that the UI process
//!   does not open an EGL display to ask;
//! - `GDK_GL=disable`: GTK itself does not probe GLX (the app draws no GL);
//! - `JSC_useJIT=0`: the panel's script runs in JavaScriptCore's
//!   interpreter, without its JIT compilers and their code (the web
//!   process: about 7 MB PSS less, `make bench-desktop`; the panel is a
//!   small page, events and a few DOM updates, no hot loops);
//! - `MALLOC_ARENA_MAX=2`: glibc's allocator keeps two arenas, not one per
//!   thread that allocated (the app's runtime workers, WebKit's and GTK's
//!   threads: about 2 MB).
//!
//! WebKitGTK reads these once, when it starts (turning
//! `hardware-acceleration-policy` off on a live webview breaks its web
//! process in WebKitGTK 2.50). Setting an environment variable from Rust is
//! `unsafe` (another thread may read the environment), and the workspace
//! forbids unsafe code, so the app re-executes itself once, first thing,
//! with the variables set: same PID, same arguments, a few milliseconds.
//!
//! `HALLEY_WEBVIEW_GPU=1` keeps WebKit's defaults (to compare, or where
//! software rendering misbehaves); a variable already in the environment is
//! left as the user set it.

#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set by the restart; its presence means the restart has happened (or
/// that the user chose compositing themselves).
pub const SOFTWARE_RENDERING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
const DMABUF_RENDERER_OFF: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";
const RENDER_DEVICE: &str = "WEBKIT_WEB_RENDER_DEVICE_FILE";
const GDK_GL: &str = "GDK_GL";
const JSC_JIT: &str = "JSC_useJIT";
const MALLOC_ARENAS: &str = "MALLOC_ARENA_MAX";
pub const KEEP_GPU: &str = "HALLEY_WEBVIEW_GPU";

/// Call first in `main`. Returns only when nothing is to be done, or when the
/// re-execution failed (then WebKit's defaults apply, which only cost memory).
/// WebKitGTK only: elsewhere the system webview decides by itself.
#[cfg(target_os = "linux")]
pub fn ensure_software_rendering() {
    use std::os::unix::process::CommandExt;
    let var = |name: &str| std::env::var_os(name);
    let device = || render_node(Path::new("/dev/dri"));
    let Some(mut command) = restart_command(var, std::env::current_exe().ok(), device) else {
        return;
    };
    let err = command.exec();
    eprintln!("halley-desktop: cannot restart with software rendering ({err}); WebKit's defaults apply");
}

#[cfg(not(target_os = "linux"))]
pub fn ensure_software_rendering() {}

/// The first DRM render node in `dri` (`renderD128`, ...), if any.
fn render_node(dri: &Path) -> Option<PathBuf> {
    let mut nodes: Vec<PathBuf> = std::fs::read_dir(dri)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        .map(|e| e.path())
        .collect();
    nodes.sort();
    nodes.into_iter().next()
}

/// The command that restarts this process with software rendering, or
/// `None` when it is not wanted or already in force.
fn restart_command(
    var: impl Fn(&str) -> Option<OsString>,
    exe: Option<PathBuf>,
    render_node: impl FnOnce() -> Option<PathBuf>,
) -> Option<Command> {
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
    let device: OsString = render_node().map_or_else(|| "/dev/null".into(), PathBuf::into_os_string);
    let defaults: [(&str, OsString); 5] = [
        (DMABUF_RENDERER_OFF, "1".into()),
        (RENDER_DEVICE, device),
        (GDK_GL, "disable".into()),
        (JSC_JIT, "0".into()),
        (MALLOC_ARENAS, "2".into()),
    ];
    for (name, value) in defaults {
        if var(name).is_none() {
            command.env(name, value);
        }
    }
    Some(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, OsString)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).into())).collect();
        move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    fn envs(command: &Command) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = command
            .get_envs()
            .map(|(k, v)| {
                (k.to_string_lossy().into_owned(), v.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default())
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn restarts_once_with_software_rendering() {
        let exe = Some(PathBuf::from("/opt/halley/halley-desktop"));
        let node = Some(PathBuf::from("/dev/dri/renderD128"));
        let command = restart_command(env(&[]), exe.clone(), || node.clone()).unwrap();
        assert_eq!(command.get_program(), "/opt/halley/halley-desktop");
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(
            envs(&command),
            vec![
                pair("GDK_GL", "disable"),
                pair("JSC_useJIT", "0"),
                pair("MALLOC_ARENA_MAX", "2"),
                pair("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
                pair("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
                pair("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/dri/renderD128"),
            ]
        );
        // The restarted process finds the marker: no second restart.
        assert!(restart_command(env(&[(SOFTWARE_RENDERING, "1")]), exe.clone(), || node.clone()).is_none());
        // The user's own choice stands, whatever its value.
        assert!(restart_command(env(&[(SOFTWARE_RENDERING, "0")]), exe.clone(), || node.clone()).is_none());
    }

    #[test]
    fn the_users_own_values_are_kept_and_no_gpu_means_dev_null() {
        let exe = Some(PathBuf::from("/usr/bin/halley-desktop"));
        let command =
            restart_command(env(&[(GDK_GL, "gles"), (RENDER_DEVICE, "/dev/dri/renderD129")]), exe, || None).unwrap();
        let got = envs(&command);
        assert!(!got.iter().any(|(k, _)| k == GDK_GL || k == RENDER_DEVICE), "{got:?}");
        let command = restart_command(env(&[]), Some(PathBuf::from("/usr/bin/halley-desktop")), || None).unwrap();
        assert!(envs(&command).contains(&(RENDER_DEVICE.to_owned(), "/dev/null".to_owned())));
    }

    #[test]
    fn the_gpu_can_be_kept() {
        let exe = Some(PathBuf::from("/usr/bin/halley-desktop"));
        // No restart: /dev/dri is not even looked at.
        let untouched = || unreachable!("the render node is read only for a restart");
        assert!(restart_command(env(&[(KEEP_GPU, "1")]), exe.clone(), untouched).is_none());
        assert!(restart_command(env(&[(SOFTWARE_RENDERING, "1")]), exe.clone(), untouched).is_none());
        assert!(restart_command(env(&[(KEEP_GPU, "0")]), exe.clone(), || None).is_some());
        // Without a path to this program, nothing is restarted.
        assert!(restart_command(env(&[]), None, || None).is_none());
    }

    #[test]
    fn the_first_render_node_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(render_node(dir.path()), None);
        for name in ["card0", "renderD129", "renderD128"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        assert_eq!(render_node(dir.path()), Some(dir.path().join("renderD128")));
        assert_eq!(render_node(&dir.path().join("missing")), None);
    }
}
