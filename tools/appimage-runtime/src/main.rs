//! Halley's AppImage type 2 runtime.
//!
//! The AppImage is this ELF program with a squashfs image appended right
//! after it and `AI\x02` in its ELF identification padding (both done by
//! `scripts/make-appimage.sh`). Started without a runtime option it
//! extracts the image once into a per-image cache directory and replaces
//! itself with the image's `AppRun` (extract-and-run: no FUSE, no mount).
//! See `--appimage-help` and `src/args.rs` for the options.

mod args;
mod elf;
mod image;
mod run;

use std::env;
use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use args::Action;

fn main() -> ExitCode {
    let mut argv = env::args_os();
    let argv0 = argv.next().unwrap_or_else(|| OsString::from("appimage-runtime"));
    let name = Path::new(&argv0).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match start(&argv0, argv.collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn start(argv0: &OsString, args: Vec<OsString>) -> Result<()> {
    let action = args::parse(args)?;
    let mut out = std::io::stdout().lock();
    match action {
        Action::Help => {
            write!(out, "{}", args::HELP)?;
            Ok(())
        }
        Action::Version => {
            writeln!(out, "appimage-runtime {} (Halley; AppImage type 2, extract-and-run)", env!("CARGO_PKG_VERSION"))?;
            Ok(())
        }
        Action::Offset => {
            let exe = own_path()?;
            let mut file = File::open(&exe).with_context(|| format!("cannot open {}", exe.display()))?;
            let offset = elf::elf_end(&mut file).with_context(|| format!("cannot read {}", exe.display()))?;
            writeln!(out, "{offset}")?;
            Ok(())
        }
        Action::Extract(pattern) => {
            drop(out);
            let image = image::open(&own_path()?)?;
            let fs = image.filesystem()?;
            let dest = env::current_dir().context("no current directory")?.join("squashfs-root");
            let count = image::extract(&fs, &dest, pattern.as_deref(), &mut image::List(Path::new("squashfs-root")))
                .with_context(|| format!("cannot extract into {}", dest.display()))?;
            if let (0, Some(pattern)) = (count, pattern) {
                bail!("nothing in the image matches {pattern:?}");
            }
            Ok(())
        }
        Action::Run(args) => {
            drop(out);
            let image = image::open(&own_path()?)?;
            let uid = run::current_uid()?;
            let roots = run::cache_roots(&|name| env::var_os(name), uid);
            let (appdir, _) = run::prepare(&image, &roots, uid)?;
            Err(run::exec_apprun(&image, &appdir, argv0, &args))
        }
    }
}

/// The AppImage file itself (the kernel's view, symlinks resolved).
fn own_path() -> Result<std::path::PathBuf> {
    env::current_exe().context("cannot find the path of this program (/proc/self/exe)")
}
