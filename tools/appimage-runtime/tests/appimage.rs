//! A tiny AppImage built with `scripts/make-appimage.sh` (the script `make
//! dist` uses) from a test AppDir whose AppRun is a shell script printing its
//! arguments and environment: offset, extraction, running with arguments,
//! exit codes and the reuse of the extracted copy. Then Halley's own AppRun
//! (`scripts/appimage/AppRun`): arguments through, missing libraries named.
//!
//! Needs mksquashfs (squashfs-tools): without it the test is skipped with a
//! note, except inside the test session (`HALLEY_TEST_SESSION=1`, as `make
//! test` runs) where that is a failure.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

fn runtime() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_appimage-runtime"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether the test can run here; panics inside the test session when a
/// tool it needs is missing.
fn have(tool: &str, args: &[&str], package: &str) -> bool {
    let found = Command::new(tool).args(args).output().is_ok_and(|o| o.status.success());
    if !found {
        let why = format!("{tool} not found (Debian package {package})");
        if std::env::var_os("HALLEY_TEST_SESSION").is_some() {
            panic!("{why}; `make deps` installs it");
        }
        eprintln!("skipped: {why}");
    }
    found
}

fn write_exec(path: &Path, text: &str) -> Result {
    fs::write(path, text)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

fn write_exec_bytes(path: &Path, bytes: &[u8]) -> Result {
    fs::write(path, bytes)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

/// A minimal valid AppDir whose AppRun reports what it got.
fn test_appdir(dir: &Path) -> Result<PathBuf> {
    let appdir = dir.join("Test.AppDir");
    fs::create_dir_all(appdir.join("usr/share/doc/test"))?;
    fs::create_dir_all(appdir.join("usr/bin"))?;
    write_exec(
        &appdir.join("AppRun"),
        r#"#!/bin/sh
echo "APPDIR=$APPDIR"
echo "APPIMAGE=$APPIMAGE"
echo "ARGV0=$ARGV0"
echo "OWD=$OWD"
for a in "$@"; do echo "arg=$a"; done
if [ -e "$APPDIR/.started" ]; then echo "cache=reused"; else : >"$APPDIR/.started"; echo "cache=new"; fi
"$APPDIR/usr/bin/hello"
exit "${EXIT_WITH:-0}"
"#,
    )?;
    write_exec(&appdir.join("usr/bin/hello"), "#!/bin/sh\necho hello from usr/bin\n")?;
    fs::write(appdir.join("usr/share/doc/test/README"), "a file in a nested directory\n")?;
    fs::write(
        appdir.join("test.desktop"),
        "[Desktop Entry]\nType=Application\nName=Test\nExec=hello\nIcon=test\nCategories=Utility;\n",
    )?;
    fs::write(appdir.join("test.png"), b"\x89PNG not really")?;
    symlink("test.png", appdir.join(".DirIcon"))?;
    Ok(appdir)
}

fn make_appimage(appdir: &Path, out: &Path) -> Result {
    let done = output(Command::new(repo().join("scripts/make-appimage.sh")).arg(runtime()).arg(appdir).arg(out))?;
    assert!(done.status.success(), "make-appimage.sh failed: {}", text(&done.stderr));
    Ok(())
}

fn run(image: &Path, args: &[&str], cwd: &Path, cache: &Path, envs: &[(&str, &str)]) -> Result<Output> {
    Ok(output(Command::new(image).args(args).current_dir(cwd).env("XDG_CACHE_HOME", cache).envs(envs.iter().copied()))?)
}

/// `cmd.output()`, retried while the program is "busy": a file this test
/// process just wrote can still be open for writing in a child another test
/// thread forked before that child reached exec (ETXTBSY).
fn output(cmd: &mut Command) -> std::io::Result<Output> {
    let mut tries = 0;
    loop {
        match cmd.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn line<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_else(|| panic!("no {key} line in:\n{out}"))
}

#[test]
fn a_tiny_appimage_extracts_runs_and_reuses_its_cache() -> Result {
    if !have("mksquashfs", &["-version"], "squashfs-tools") {
        return Ok(());
    }
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path();
    let appdir = test_appdir(dir)?;
    let image = dir.join("out/Test_1.0_amd64.AppImage");
    make_appimage(&appdir, &image)?;

    // The format: the magic in the ELF padding, the image where the ELF ends.
    let bytes = fs::read(&image)?;
    assert_eq!(&bytes[..4], b"\x7fELF");
    assert_eq!(&bytes[8..11], b"AI\x02");
    let cache = dir.join("cache");
    let out = run(&image, &["--appimage-offset"], dir, &cache, &[])?;
    assert!(out.status.success());
    let offset: usize = text(&out.stdout).trim().parse()?;
    assert_eq!(offset as u64, fs::metadata(runtime())?.len());
    assert_eq!(&bytes[offset..offset + 4], b"hsqs");

    for option in ["--appimage-help", "--appimage-version"] {
        let out = run(&image, &[option], dir, &cache, &[])?;
        assert!(out.status.success(), "{option}");
        assert!(text(&out.stdout).contains("AppImage"), "{option}: {}", text(&out.stdout));
    }

    // Everything out into ./squashfs-root, modes and links kept.
    let work = dir.join("extract-all");
    fs::create_dir(&work)?;
    let out = run(&image, &["--appimage-extract"], &work, &cache, &[])?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).lines().any(|l| l == "squashfs-root/usr/share/doc/test/README"));
    let root = work.join("squashfs-root");
    assert_eq!(fs::read(root.join("AppRun"))?, fs::read(appdir.join("AppRun"))?);
    assert_eq!(fs::metadata(root.join("usr/bin/hello"))?.permissions().mode() & 0o777, 0o755);
    assert_eq!(fs::metadata(root.join("test.desktop"))?.permissions().mode() & 0o777, 0o644);
    assert_eq!(fs::read_link(root.join(".DirIcon"))?, PathBuf::from("test.png"));
    assert_eq!(fs::read_to_string(root.join("usr/share/doc/test/README"))?, "a file in a nested directory\n");
    // Again over the previous extraction: replaced, not an error.
    assert!(run(&image, &["--appimage-extract"], &work, &cache, &[])?.status.success());

    // Only what matches a pattern (with the directories leading to it).
    let work = dir.join("extract-some");
    fs::create_dir(&work)?;
    let out = run(&image, &["--appimage-extract", "usr/share/*"], &work, &cache, &[])?;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(work.join("squashfs-root/usr/share/doc/test/README").is_file());
    assert!(!work.join("squashfs-root/AppRun").exists());
    assert!(!work.join("squashfs-root/usr/bin/hello").exists());
    let out = run(&image, &["--appimage-extract", "nothing*here"], &work, &cache, &[])?;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("nothing in the image matches"), "{}", text(&out.stderr));

    // Running: arguments through, the AppImage variables set, the exit
    // code of AppRun ours.
    let owd = dir.join("somewhere");
    fs::create_dir(&owd)?;
    let out = run(&image, &["one", "two words", ""], &owd, &cache, &[("EXIT_WITH", "7")])?;
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(7), "{stdout}{}", text(&out.stderr));
    let args: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("arg=")).collect();
    assert_eq!(args, ["one", "two words", ""]);
    assert_eq!(Path::new(line(&stdout, "APPIMAGE=")), fs::canonicalize(&image)?);
    assert_eq!(line(&stdout, "ARGV0="), image.to_str().unwrap_or_default());
    assert_eq!(Path::new(line(&stdout, "OWD=")), fs::canonicalize(&owd)?);
    assert_eq!(line(&stdout, "cache="), "new");
    assert!(stdout.contains("hello from usr/bin"));
    let appdir_run = PathBuf::from(line(&stdout, "APPDIR="));
    assert!(appdir_run.starts_with(cache.join("appimage-runtime")), "{}", appdir_run.display());
    assert_eq!(fs::metadata(cache.join("appimage-runtime"))?.permissions().mode() & 0o777, 0o700);

    // A second start reuses the extracted copy, and removes what a start
    // that died while extracting left (its process is gone).
    let name = appdir_run.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let stale = cache.join("appimage-runtime").join(format!(".{name}.999999999.tmp"));
    fs::create_dir_all(stale.join("usr"))?;
    let out = run(&image, &["again"], &owd, &cache, &[])?;
    assert!(!stale.exists(), "{} was left", stale.display());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert_eq!(line(&stdout, "cache="), "reused");
    assert_eq!(PathBuf::from(line(&stdout, "APPDIR=")), appdir_run);
    // Only that one copy is there (no temporary directories left behind).
    assert_eq!(fs::read_dir(cache.join("appimage-runtime"))?.count(), 1);

    // A rebuilt image (other contents) is extracted afresh.
    fs::write(appdir.join("usr/share/doc/test/README"), "changed\n")?;
    make_appimage(&appdir, &image)?;
    let out = run(&image, &[], &owd, &cache, &[])?;
    let stdout = text(&out.stdout);
    assert_eq!(line(&stdout, "cache="), "new");
    assert_ne!(PathBuf::from(line(&stdout, "APPDIR=")), appdir_run);

    // Without XDG_CACHE_HOME: ~/.cache.
    let home = dir.join("home");
    fs::create_dir(&home)?;
    let out = output(Command::new(&image).env_remove("XDG_CACHE_HOME").env("HOME", &home))?;
    let stdout = text(&out.stdout);
    assert!(Path::new(line(&stdout, "APPDIR=")).starts_with(home.join(".cache/appimage-runtime")), "{stdout}");
    Ok(())
}

#[test]
fn bad_invocations_fail_with_a_clear_message() -> Result {
    let tmp = tempfile::tempdir()?;
    // The runtime alone: no squashfs image after it.
    let out = output(Command::new(runtime()).current_dir(tmp.path()))?;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("error:") && stderr.contains("no squashfs image at offset"), "{stderr}");
    let out = output(Command::new(runtime()).arg("--appimage-extract").current_dir(tmp.path()))?;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no squashfs image"), "{}", text(&out.stderr));
    // Its offset is still known: its own size.
    let out = output(Command::new(runtime()).arg("--appimage-offset"))?;
    assert!(out.status.success());
    assert_eq!(text(&out.stdout).trim(), fs::metadata(runtime())?.len().to_string());

    for args in [&["--appimage-nonsense"][..], &["--appimage-offset", "extra"], &["--appimage-mount"]] {
        let out = output(Command::new(runtime()).args(args))?;
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(text(&out.stderr).contains("error:"), "{args:?}: {}", text(&out.stderr));
    }

    // A truncated image, and one whose tables are damaged.
    if have("mksquashfs", &["-version"], "squashfs-tools") {
        let appdir = test_appdir(tmp.path())?;
        let image = tmp.path().join("Test.AppImage");
        make_appimage(&appdir, &image)?;
        let bytes = fs::read(&image)?;
        let offset = fs::metadata(runtime())?.len() as usize;
        let used = u64::from_le_bytes(bytes[offset + 40..offset + 48].try_into()?) as usize;

        let cut = tmp.path().join("Cut.AppImage");
        write_exec_bytes(&cut, &bytes[..offset + used - 1])?;
        let out = output(Command::new(&cut).env("XDG_CACHE_HOME", tmp.path().join("cache")))?;
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
        assert!(text(&out.stderr).contains("is truncated"), "{}", text(&out.stderr));

        // Squashfs has no data checksums, but damaged tables (at its end)
        // are seen: an error, not a panic.
        let mut damaged = bytes.clone();
        damaged[offset + used - 64..offset + used - 16].fill(0xEE);
        let path = tmp.path().join("Damaged.AppImage");
        write_exec_bytes(&path, &damaged)?;
        let out = output(Command::new(&path).arg("--appimage-extract").current_dir(tmp.path()))?;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}{stderr}", text(&out.stdout));
        assert!(stderr.contains("error:") && !stderr.contains("panicked"), "{stderr}");
    }

    // The assembly script refuses an AppDir without AppRun.
    let empty = tmp.path().join("Empty.AppDir");
    fs::create_dir(&empty)?;
    let out = output(
        Command::new(repo().join("scripts/make-appimage.sh"))
            .arg(runtime())
            .arg(&empty)
            .arg(tmp.path().join("x.AppImage")),
    )?;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("AppRun is missing"), "{}", text(&out.stderr));
    Ok(())
}

/// Halley's AppRun passes the arguments to usr/bin/halley-desktop and,
/// when a library it needs is missing, says which and exits 127.
#[test]
fn halley_apprun_runs_the_app_or_names_missing_libraries() -> Result {
    if !have("cc", &["--version"], "build-essential") {
        return Ok(());
    }
    let tmp = tempfile::tempdir()?;
    let appdir = tmp.path().join("Halley.AppDir");
    fs::create_dir_all(appdir.join("usr/bin"))?;
    fs::copy(repo().join("scripts/appimage/AppRun"), appdir.join("AppRun"))?;
    let bin = appdir.join("usr/bin/halley-desktop");

    // A stand-in app (a script: nothing for ldd to find missing).
    write_exec(&bin, "#!/bin/sh\nfor a in \"$@\"; do echo \"arg=$a\"; done\nexit 4\n")?;
    let out = output(Command::new(appdir.join("AppRun")).args(["--tray", "a b"]))?;
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{stdout}{}", text(&out.stderr));
    assert_eq!(stdout.lines().collect::<Vec<_>>(), ["arg=--tray", "arg=a b"]);

    // A real ELF linked to a library that is then removed.
    let lib = tmp.path().join("lib");
    fs::create_dir(&lib)?;
    fs::write(lib.join("gone.c"), "int gone(void) { return 0; }\n")?;
    fs::write(lib.join("main.c"), "int gone(void);\nint main(void) { return gone(); }\n")?;
    let cc = |args: &[&str]| -> Result {
        let out = output(Command::new("cc").args(args).current_dir(&lib))?;
        assert!(out.status.success(), "cc {args:?}: {}", text(&out.stderr));
        Ok(())
    };
    cc(&["-shared", "-fPIC", "-o", "libhalleygone.so.1", "-Wl,-soname,libhalleygone.so.1", "gone.c"])?;
    fs::copy(lib.join("libhalleygone.so.1"), lib.join("libhalleygone.so"))?;
    cc(&["-o", "app", "main.c", "-L.", "-lhalleygone"])?;
    fs::remove_file(&bin)?;
    fs::copy(lib.join("app"), &bin)?;
    fs::remove_file(lib.join("libhalleygone.so.1"))?;
    let out = output(&mut Command::new(appdir.join("AppRun")))?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(127), "{stderr}");
    assert!(stderr.contains("Halley cannot start") && stderr.contains("libhalleygone.so.1"), "{stderr}");
    assert!(stderr.contains("libwebkit2gtk-4.1-0"), "{stderr}");
    Ok(())
}
