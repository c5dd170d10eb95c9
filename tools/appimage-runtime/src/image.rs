//! The squashfs image inside an AppImage: found after the ELF runtime, read
//! with `backhand` and extracted to a directory.

use std::fs::{self, File};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result, anyhow, bail};
use backhand::{FilesystemReader, InnerNode, Node, SquashfsFileReader};

use crate::elf;

/// Little-endian squashfs 4 superblock magic.
const SQUASHFS_MAGIC: &[u8; 4] = b"hsqs";
/// Size of a squashfs 4 superblock.
pub const SUPERBLOCK_LEN: usize = 96;

/// An AppImage file: where its squashfs image starts and the image's
/// superblock (which identifies it: size, creation time, tables).
#[derive(Debug)]
pub struct AppImage {
    pub path: PathBuf,
    pub offset: u64,
    pub superblock: [u8; SUPERBLOCK_LEN],
}

/// Finds the squashfs image after the ELF runtime of `path` and checks its
/// superblock.
pub fn open(path: &Path) -> Result<AppImage> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let offset = elf::elf_end(&mut file).with_context(|| format!("{} is not a valid ELF runtime", path.display()))?;
    let superblock = read_superblock(&mut file, offset).with_context(|| {
        format!(
            "{} has no squashfs image at offset {offset} (is it an AppImage? \
             a runtime alone has nothing appended to run or extract)",
            path.display()
        )
    })?;
    let (major, minor) =
        (u16::from_le_bytes([superblock[28], superblock[29]]), u16::from_le_bytes([superblock[30], superblock[31]]));
    if major != 4 {
        bail!("{} holds a squashfs {major}.{minor} image; only squashfs 4 is supported", path.display());
    }
    let mut used = [0u8; 8];
    used.copy_from_slice(&superblock[40..48]);
    let bytes_used = u64::from_le_bytes(used);
    let len = file.metadata().with_context(|| format!("cannot read {}", path.display()))?.len();
    let available = len.saturating_sub(offset);
    if available < bytes_used {
        bail!(
            "{} is truncated: its squashfs image needs {bytes_used} bytes after offset {offset}, the file has {available}",
            path.display()
        );
    }
    Ok(AppImage { path: path.to_path_buf(), offset, superblock })
}

fn read_superblock(file: &mut File, offset: u64) -> Result<[u8; SUPERBLOCK_LEN]> {
    let mut superblock = [0u8; SUPERBLOCK_LEN];
    file.seek(SeekFrom::Start(offset))?;
    let mut filled = 0;
    while filled < SUPERBLOCK_LEN {
        let n = file.read(&mut superblock[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    if filled == 0 {
        bail!("the file ends there");
    }
    if filled < SUPERBLOCK_LEN || &superblock[..4] != SQUASHFS_MAGIC {
        bail!("no squashfs 4 superblock (magic \"hsqs\") there");
    }
    Ok(superblock)
}

impl AppImage {
    /// The filesystem, ready to read.
    pub fn filesystem(&self) -> Result<FilesystemReader<'static>> {
        let file = File::open(&self.path).with_context(|| format!("cannot open {}", self.path.display()))?;
        FilesystemReader::from_reader_with_offset(BufReader::new(file), self.offset)
            .map_err(|e| anyhow!("cannot read the squashfs image of {}: {e}", self.path.display()))
    }
}

/// What to do with each extracted path.
pub trait Progress {
    fn extracted(&mut self, relative: &Path);
}

/// Prints nothing.
pub struct Quiet;
impl Progress for Quiet {
    fn extracted(&mut self, _: &Path) {}
}

/// Prints `PREFIX/relative` on stdout, one line per path.
pub struct List<'a>(pub &'a Path);
impl Progress for List<'_> {
    fn extracted(&mut self, relative: &Path) {
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "{}", self.0.join(relative).display());
    }
}

/// Extracts `fs` into `dest` (created when missing): every entry, or only
/// those whose path (relative, without a leading `/`) matches `pattern`,
/// with the directories leading to them. Existing files are replaced.
/// Returns how many entries were extracted.
pub fn extract(
    squashfs: &FilesystemReader<'_>,
    dest: &Path,
    pattern: Option<&str>,
    progress: &mut dyn Progress,
) -> Result<usize> {
    ensure_dir(dest)?;
    let mut count = 0;
    // Directory modes are applied last so that read-only directories can
    // still be filled.
    let mut dir_modes: Vec<(PathBuf, u32)> = Vec::new();
    // Nodes come sorted by path: a directory always precedes its contents.
    for node in squashfs.files() {
        let relative = relative_path(&node.fullpath)?;
        if relative.as_os_str().is_empty() {
            continue; // the root, i.e. dest itself
        }
        if let Some(pattern) = pattern {
            let Some(text) = relative.to_str() else { continue };
            if !glob_match(pattern, text) {
                continue;
            }
            // The directories leading to it, which may not match.
            if let Some(parent) = relative.parent() {
                let mut at = dest.to_path_buf();
                for part in parent.components() {
                    at.push(part);
                    ensure_dir(&at)?;
                }
            }
        }
        let target = dest.join(&relative);
        extract_node(squashfs, node, &target, &mut dir_modes)
            .with_context(|| format!("cannot extract {}", relative.display()))?;
        progress.extracted(&relative);
        count += 1;
    }
    for (dir, mode) in dir_modes.into_iter().rev() {
        fs::set_permissions(&dir, fs::Permissions::from_mode(mode))
            .with_context(|| format!("cannot set the mode of {}", dir.display()))?;
    }
    Ok(count)
}

fn extract_node(
    squashfs: &FilesystemReader<'_>,
    node: &Node<SquashfsFileReader>,
    target: &Path,
    dir_modes: &mut Vec<(PathBuf, u32)>,
) -> Result<()> {
    // No setuid/setgid/sticky bits out of an image.
    let mode = u32::from(node.header.permissions) & 0o777;
    match &node.inner {
        InnerNode::Dir(_) => {
            ensure_dir(target)?;
            dir_modes.push((target.to_path_buf(), mode | 0o700));
        }
        InnerNode::File(file) => {
            remove_existing(target)?;
            let mut out = fs::OpenOptions::new().write(true).create_new(true).open(target)?;
            let mut reader = squashfs.file(file).reader_checked().map_err(|e| anyhow!("{e}"))?;
            io::copy(&mut reader, &mut out)?;
            out.set_permissions(fs::Permissions::from_mode(mode))?;
            let mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(u64::from(node.header.mtime));
            out.set_modified(mtime)?;
        }
        InnerNode::Symlink(link) => {
            remove_existing(target)?;
            symlink(&link.link, target)?;
        }
        InnerNode::CharacterDevice(_) | InnerNode::BlockDevice(_) | InnerNode::NamedPipe | InnerNode::Socket => {
            eprintln!("appimage-runtime: skipping special file {}", target.display());
        }
    }
    Ok(())
}

/// `fullpath` (`/usr/bin/x`) as a relative path, refusing anything that
/// could point outside the destination.
fn relative_path(fullpath: &Path) -> Result<PathBuf> {
    let mut out = PathBuf::new();
    for part in fullpath.components() {
        match part {
            Component::RootDir => {}
            Component::Normal(name) => out.push(name),
            Component::CurDir | Component::ParentDir | Component::Prefix(_) => {
                bail!("the image holds an unsafe path: {}", fullpath.display())
            }
        }
    }
    Ok(out)
}

/// Makes `path` a real directory: an existing directory is kept, anything
/// else there (a file, a symlink from an earlier extraction) is replaced.
fn ensure_dir(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => remove_existing(path)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot inspect {}", path.display())),
    }
    fs::create_dir(path).with_context(|| format!("cannot create {}", path.display()))
}

fn remove_existing(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path)?,
        Ok(_) => fs::remove_file(path)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

/// A glob as fnmatch(3) without flags: `*` matches any run of characters
/// (`/` included), `?` any one character, `[abc]`/`[a-z]`/`[!a]` a class,
/// `\x` the character x; everything else itself.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative matching with backtracking to the last `*`.
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => match class_match(&p, pi, t[ti]) {
                Some((true, next)) => Some(next),
                Some((false, _)) => None,
                // An unclosed `[` is a literal.
                None => (t[ti] == '[').then_some(pi + 1),
            },
            Some('\\') if pi + 1 < p.len() => (p[pi + 1] == t[ti]).then_some(pi + 2),
            Some(&c) => (c == t[ti]).then_some(pi + 1),
            None => None,
        };
        match step {
            Some(next) => {
                pi = next;
                ti += 1;
            }
            None => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether `c` is in the class starting at `p[start] == '['`, and the
/// index after the class; `None` when the class is not closed.
fn class_match(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &lo = p.get(i)?;
        if lo == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&hi| hi != ']') {
            let hi = p[i + 2];
            matched |= lo <= c && c <= hi;
            i += 3;
        } else {
            matched |= lo == c;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("*", ""));
        assert!(glob_match("*", "usr/bin/x"));
        assert!(glob_match("usr/*", "usr/bin/x"));
        assert!(glob_match("*.desktop", "usr/share/applications/Halley.desktop"));
        assert!(glob_match("AppRun", "AppRun"));
        assert!(!glob_match("AppRun", "AppRun2"));
        assert!(glob_match("App?un", "AppRun"));
        assert!(!glob_match("usr/*/y", "usr/bin/x"));
        assert!(glob_match("*a*b*c", "xxaxxbxxc"));
        assert!(!glob_match("*a*b*c", "xxaxxbxx"));
        assert!(glob_match("[A-Z]*", "Halley.png"));
        assert!(!glob_match("[!A-Z]*", "Halley.png"));
        assert!(glob_match("[]x]", "]"));
        assert!(glob_match("a[", "a["));
        assert!(glob_match("\\*", "*"));
        assert!(!glob_match("\\*", "x"));
        assert!(glob_match("ü*", "über"));
    }

    #[test]
    fn unsafe_paths_are_refused() {
        assert_eq!(relative_path(Path::new("/usr/bin/x")).unwrap(), PathBuf::from("usr/bin/x"));
        assert_eq!(relative_path(Path::new("/")).unwrap(), PathBuf::new());
        assert!(relative_path(Path::new("/usr/../../etc/passwd")).is_err());
    }

    #[test]
    fn a_file_without_a_squashfs_image_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        // A real ELF with nothing appended: the runtime alone.
        let bare = dir.path().join("runtime");
        fs::copy("/proc/self/exe", &bare).unwrap();
        let err = format!("{:#}", open(&bare).unwrap_err());
        assert!(err.contains("no squashfs image at offset") && err.contains("the file ends there"), "{err}");

        // Something that is not a squashfs image after it.
        let mut bytes = fs::read(&bare).unwrap();
        bytes.extend_from_slice(&[0x55; 200]);
        fs::write(&bare, &bytes).unwrap();
        let err = format!("{:#}", open(&bare).unwrap_err());
        assert!(err.contains("no squashfs 4 superblock"), "{err}");

        // Not an ELF at all.
        let script = dir.path().join("script");
        fs::write(&script, "#!/bin/sh\n").unwrap();
        let err = format!("{:#}", open(&script).unwrap_err());
        assert!(err.contains("is not a valid ELF runtime") && err.contains("not an ELF file"), "{err}");

        // Missing.
        let err = format!("{:#}", open(&dir.path().join("absent")).unwrap_err());
        assert!(err.contains("cannot open"), "{err}");
    }

    #[test]
    fn a_corrupt_squashfs_image_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("corrupt.AppImage");
        let mut bytes = fs::read("/proc/self/exe").unwrap();
        // A superblock with the right magic and nonsense after it.
        let mut sb = vec![0xA5u8; 4096];
        sb[..4].copy_from_slice(SQUASHFS_MAGIC);
        sb[28..32].copy_from_slice(&[4, 0, 0, 0]); // version 4.0
        sb[40..48].copy_from_slice(&4096u64.to_le_bytes()); // bytes_used
        bytes.extend_from_slice(&sb);
        fs::write(&path, &bytes).unwrap();
        let image = open(&path).unwrap();
        let Err(err) = image.filesystem() else { panic!("a corrupt image was read") };
        let err = format!("{err:#}");
        assert!(err.contains("cannot read the squashfs image"), "{err}");

        // Another version, and an image shorter than it says.
        let len = bytes.len();
        let sb_at = len - 4096;
        bytes[sb_at + 28] = 3;
        fs::write(&path, &bytes).unwrap();
        let err = format!("{:#}", open(&path).unwrap_err());
        assert!(err.contains("squashfs 3.0 image; only squashfs 4"), "{err}");
        bytes[sb_at + 28] = 4;
        bytes[sb_at + 40..sb_at + 48].copy_from_slice(&5000u64.to_le_bytes());
        fs::write(&path, &bytes).unwrap();
        let err = format!("{:#}", open(&path).unwrap_err());
        assert!(err.contains("is truncated: its squashfs image needs 5000 bytes"), "{err}");
    }
}
