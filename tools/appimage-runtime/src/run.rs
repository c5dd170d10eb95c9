//! Extract-and-run: the image is extracted once into a per-image cache
//! directory, then `AppRun` replaces this process.

use std::env;
use std::ffi::OsString;
use std::fs::{self, DirBuilder};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::image::{self, AppImage};

/// Name of the cache directory under `$XDG_CACHE_HOME` (or `~/.cache`).
const CACHE_NAME: &str = "appimage-runtime";

/// Where extracted images may live, best first: `$XDG_CACHE_HOME`, else
/// `~/.cache`, then a per-user directory in `$TMPDIR` (else `/tmp`).
pub fn cache_roots(vars: &dyn Fn(&str) -> Option<OsString>, uid: u32) -> Vec<PathBuf> {
    let absolute = |name: &str| vars(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let mut roots = Vec::new();
    if let Some(xdg) = absolute("XDG_CACHE_HOME") {
        roots.push(xdg.join(CACHE_NAME));
    } else if let Some(home) = absolute("HOME") {
        roots.push(home.join(".cache").join(CACHE_NAME));
    }
    let tmp = absolute("TMPDIR").unwrap_or_else(|| PathBuf::from("/tmp"));
    roots.push(tmp.join(format!("{CACHE_NAME}-{uid}")));
    roots
}

/// The uid this process runs as (the owner of `/proc/self`).
pub fn current_uid() -> Result<u32> {
    Ok(fs::metadata("/proc/self").context("cannot read /proc/self")?.uid())
}

/// Creates `root` (mode 0700) when missing and checks it is a directory of
/// ours that nobody else can write to: a shared `/tmp` must not let another
/// user plant an `AppRun` for us to run.
pub fn ensure_private_root(root: &Path, uid: u32) -> Result<()> {
    if let Some(parent) = root.parent() {
        fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    match DirBuilder::new().mode(0o700).create(root) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e).with_context(|| format!("cannot create {}", root.display())),
    }
    let meta = fs::symlink_metadata(root).with_context(|| format!("cannot inspect {}", root.display()))?;
    if !meta.is_dir() {
        bail!("{} is not a directory", root.display());
    }
    if meta.uid() != uid {
        bail!("{} belongs to uid {}, not to this user (uid {uid})", root.display(), meta.uid());
    }
    if meta.mode() & 0o022 != 0 {
        bail!("{} is writable by other users (mode {:o})", root.display(), meta.mode() & 0o777);
    }
    Ok(())
}

/// The directory name of an image in the cache: its file name (made safe)
/// and a hash of its size, modification time, offset and squashfs
/// superblock, so a rebuilt or updated image never reuses a stale copy.
pub fn cache_name(image: &AppImage, meta: &fs::Metadata) -> String {
    let stem: String = image
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' })
        .take(64)
        .collect();
    let mut h = Fnv64::new();
    h.write(&meta.len().to_le_bytes());
    h.write(&meta.mtime().to_le_bytes());
    h.write(&meta.mtime_nsec().to_le_bytes());
    h.write(&image.offset.to_le_bytes());
    h.write(&image.superblock);
    format!("{}_{:016x}", if stem.is_empty() { "appimage" } else { &stem }, h.finish())
}

/// FNV-1a, 64-bit: small, stable across builds and platforms.
struct Fnv64(u64);
impl Fnv64 {
    fn new() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Whether the image was extracted now or found in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prepared {
    Extracted,
    Reused,
}

/// The extracted AppDir of `image` in the first usable cache root,
/// extracting it when it is not there yet.
pub fn prepare(image: &AppImage, roots: &[PathBuf], uid: u32) -> Result<(PathBuf, Prepared)> {
    let mut refused = Vec::new();
    let root = roots.iter().find(|root| match ensure_private_root(root, uid) {
        Ok(()) => true,
        Err(e) => {
            refused.push(format!("{e:#}"));
            false
        }
    });
    let Some(root) = root else {
        bail!("no usable cache directory to extract the AppImage into: {}", refused.join("; "));
    };
    let meta = fs::metadata(&image.path).with_context(|| format!("cannot read {}", image.path.display()))?;
    let name = cache_name(image, &meta);
    let dir = root.join(&name);
    remove_stale_tmp(root, &name);
    if is_complete(&dir) {
        return Ok((dir, Prepared::Reused));
    }
    // Extract beside it, then rename: the directory only ever appears
    // complete, and a concurrent start either wins or reuses the winner's.
    let tmp = root.join(format!(".{name}.{}.tmp", std::process::id()));
    if fs::symlink_metadata(&tmp).is_ok() {
        fs::remove_dir_all(&tmp).with_context(|| format!("cannot remove {}", tmp.display()))?;
    }
    let extracted = image.filesystem().and_then(|fs| image::extract(&fs, &tmp, None, &mut image::Quiet));
    if let Err(e) = extracted {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e.context(format!("cannot extract the AppImage into {}", tmp.display())));
    }
    if !is_complete(&tmp) {
        let _ = fs::remove_dir_all(&tmp);
        bail!("the AppImage has no AppRun at the top of its filesystem");
    }
    if let Err(e) = fs::rename(&tmp, &dir) {
        let _ = fs::remove_dir_all(&tmp);
        if is_complete(&dir) {
            return Ok((dir, Prepared::Reused));
        }
        return Err(e).with_context(|| format!("cannot move the extracted AppImage to {}", dir.display()));
    }
    Ok((dir, Prepared::Extracted))
}

/// Removes the `.NAME.PID.tmp` directories of starts that died while
/// extracting this image (no process PID any more).
fn remove_stale_tmp(root: &Path, name: &str) {
    let prefix = format!(".{name}.");
    let Ok(entries) = fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)).and_then(|r| r.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

fn is_complete(dir: &Path) -> bool {
    fs::symlink_metadata(dir.join("AppRun")).is_ok()
}

/// Replaces this process with `APPDIR/AppRun ARGS...`, with `APPIMAGE`,
/// `APPDIR`, `ARGV0` and `OWD` set as the AppImage specification says.
/// Returns only on failure.
pub fn exec_apprun(image: &AppImage, appdir: &Path, argv0: &OsString, args: &[OsString]) -> anyhow::Error {
    let apprun = appdir.join("AppRun");
    let mut cmd = Command::new(&apprun);
    cmd.args(args).env("APPIMAGE", &image.path).env("APPDIR", appdir).env("ARGV0", argv0);
    if let Ok(owd) = env::current_dir() {
        cmd.env("OWD", owd);
    }
    let err = cmd.exec();
    anyhow::Error::new(err).context(format!("cannot run {}", apprun.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn cache_roots_follow_xdg_then_home_then_tmp() {
        let v = vars(&[("XDG_CACHE_HOME", "/x/cache"), ("HOME", "/home/u"), ("TMPDIR", "/t")]);
        assert_eq!(
            cache_roots(&v, 7),
            vec![PathBuf::from("/x/cache/appimage-runtime"), PathBuf::from("/t/appimage-runtime-7")]
        );
        let v = vars(&[("XDG_CACHE_HOME", "relative"), ("HOME", "/home/u")]);
        assert_eq!(
            cache_roots(&v, 7),
            vec![PathBuf::from("/home/u/.cache/appimage-runtime"), PathBuf::from("/tmp/appimage-runtime-7")]
        );
        assert_eq!(cache_roots(&vars(&[]), 0), vec![PathBuf::from("/tmp/appimage-runtime-0")]);
    }

    #[test]
    fn a_root_others_can_write_to_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let uid = current_uid().unwrap();
        let root = dir.path().join("a/b/appimage-runtime");
        ensure_private_root(&root, uid).unwrap();
        assert_eq!(fs::metadata(&root).unwrap().mode() & 0o777, 0o700);
        ensure_private_root(&root, uid).unwrap(); // again: fine
        fs::set_permissions(&root, fs::Permissions::from_mode(0o777)).unwrap();
        let err = format!("{:#}", ensure_private_root(&root, uid).unwrap_err());
        assert!(err.contains("writable by other users"), "{err}");
        let err = format!("{:#}", ensure_private_root(&root, uid + 1).unwrap_err());
        assert!(err.contains("belongs to uid"), "{err}");
        let file = dir.path().join("file");
        fs::write(&file, "").unwrap();
        let err = format!("{:#}", ensure_private_root(&file, uid).unwrap_err());
        assert!(err.contains("not a directory"), "{err}");
    }

    #[test]
    fn the_cache_name_changes_with_the_image() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("My App 1.0.AppImage");
        fs::write(&path, "x").unwrap();
        let meta = fs::metadata(&path).unwrap();
        let mut image = AppImage { path: path.clone(), offset: 100, superblock: [1; image::SUPERBLOCK_LEN] };
        let a = cache_name(&image, &meta);
        assert!(a.starts_with("My_App_1.0.AppImage_"), "{a}");
        assert_eq!(a, cache_name(&image, &meta), "stable");
        image.superblock[40] = 2;
        assert_ne!(a, cache_name(&image, &meta));
        fs::write(&path, "xy").unwrap();
        let b = cache_name(&image, &fs::metadata(&path).unwrap());
        assert_ne!(cache_name(&image, &meta), b);
    }
}
