//! The runtime's own command line: `--appimage-*` as the first argument is
//! for the runtime, anything else goes to the application untouched.

use std::ffi::OsString;

/// What the runtime was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Extract into the cache (once) and run `AppRun` with these arguments.
    Run(Vec<OsString>),
    /// Print the offset of the squashfs image in the file.
    Offset,
    /// Extract into `./squashfs-root`, everything or what matches the pattern.
    Extract(Option<String>),
    Help,
    Version,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    #[error("unknown runtime option {0} (see --appimage-help)")]
    Unknown(String),
    #[error("{option} is not supported by this runtime: {why}")]
    Unsupported { option: String, why: &'static str },
    #[error("{0} takes no arguments")]
    NoArguments(String),
    #[error("--appimage-extract takes at most one PATTERN")]
    TooManyPatterns,
    #[error("the pattern is not valid UTF-8")]
    PatternNotUtf8,
}

const PREFIX: &str = "--appimage-";

/// Parses the arguments after argv[0].
pub fn parse(args: Vec<OsString>) -> Result<Action, ArgsError> {
    let Some(first) = args.first().and_then(|a| a.to_str()) else {
        return Ok(Action::Run(args));
    };
    if !first.starts_with(PREFIX) {
        return Ok(Action::Run(args));
    }
    let option = first.to_owned();
    let rest = &args[1..];
    let no_rest =
        |action: Action| if rest.is_empty() { Ok(action) } else { Err(ArgsError::NoArguments(option.clone())) };
    match option.as_str() {
        "--appimage-help" => no_rest(Action::Help),
        "--appimage-version" => no_rest(Action::Version),
        "--appimage-offset" => no_rest(Action::Offset),
        "--appimage-extract" => match rest {
            [] => Ok(Action::Extract(None)),
            [pattern] => pattern.to_str().map(|p| Action::Extract(Some(p.to_owned()))).ok_or(ArgsError::PatternNotUtf8),
            _ => Err(ArgsError::TooManyPatterns),
        },
        // This runtime always extracts and runs; the option is accepted so
        // scripts written for the official runtime keep working.
        "--appimage-extract-and-run" => Ok(Action::Run(rest.to_vec())),
        "--appimage-mount" => {
            Err(ArgsError::Unsupported { option, why: "it never mounts (no FUSE); use --appimage-extract" })
        }
        "--appimage-updateinformation" | "--appimage-signature" => {
            Err(ArgsError::Unsupported { option, why: "this AppImage carries no update information or signature" })
        }
        "--appimage-portable-home" | "--appimage-portable-config" => {
            Err(ArgsError::Unsupported { option, why: "portable home/config directories are not implemented" })
        }
        _ => Err(ArgsError::Unknown(option)),
    }
}

pub const HELP: &str = "\
This is an AppImage (type 2) with Halley's own runtime. It runs the app by
extracting it once into a cache directory and starting it from there, so it
needs no FUSE.

Usage: APPIMAGE [--appimage-OPTION | APP ARGUMENTS...]

Runtime options (only as the first argument):
  --appimage-help              Print this help
  --appimage-version           Print the runtime's version
  --appimage-offset            Print the byte offset of the squashfs image
  --appimage-extract [PATTERN] Extract the contents into ./squashfs-root
                               (only paths matching PATTERN, a glob where *
                               and ? match any characters, / included)
  --appimage-extract-and-run   Run the app (what happens anyway)

Any other arguments are passed to the app.

The app is extracted into $XDG_CACHE_HOME/appimage-runtime (else
~/.cache/appimage-runtime, else $TMPDIR/appimage-runtime-UID) in a directory
named after the image's name, size, modification time and filesystem, and
reused on later starts. It can be deleted whenever the app is not running.
";

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn app_arguments_pass_through_untouched() {
        assert_eq!(parse(vec![]), Ok(Action::Run(vec![])));
        assert_eq!(parse(os(&["--tray", "x y"])), Ok(Action::Run(os(&["--tray", "x y"]))));
        // Runtime options only count as the first argument.
        assert_eq!(
            parse(os(&["--verbose", "--appimage-offset"])),
            Ok(Action::Run(os(&["--verbose", "--appimage-offset"])))
        );
        assert_eq!(parse(os(&["--appimage-extract-and-run", "--tray"])), Ok(Action::Run(os(&["--tray"]))));
    }

    #[test]
    fn runtime_options() {
        assert_eq!(parse(os(&["--appimage-help"])), Ok(Action::Help));
        assert_eq!(parse(os(&["--appimage-version"])), Ok(Action::Version));
        assert_eq!(parse(os(&["--appimage-offset"])), Ok(Action::Offset));
        assert_eq!(parse(os(&["--appimage-extract"])), Ok(Action::Extract(None)));
        assert_eq!(parse(os(&["--appimage-extract", "usr/*"])), Ok(Action::Extract(Some("usr/*".into()))));
    }

    #[test]
    fn bad_options_are_errors() {
        assert_eq!(parse(os(&["--appimage-bogus"])), Err(ArgsError::Unknown("--appimage-bogus".into())));
        assert_eq!(parse(os(&["--appimage-offset", "x"])), Err(ArgsError::NoArguments("--appimage-offset".into())));
        assert_eq!(parse(os(&["--appimage-extract", "a", "b"])), Err(ArgsError::TooManyPatterns));
        assert!(matches!(parse(os(&["--appimage-mount"])), Err(ArgsError::Unsupported { .. })));
        let msg = parse(os(&["--appimage-mount"])).unwrap_err().to_string();
        assert!(msg.contains("--appimage-extract"), "{msg}");
    }

    #[test]
    fn a_non_utf8_pattern_is_an_error() {
        use std::os::unix::ffi::OsStringExt;
        let args = vec![OsString::from("--appimage-extract"), OsString::from_vec(vec![0xff, b'*'])];
        assert_eq!(parse(args), Err(ArgsError::PatternNotUtf8));
        // Non-UTF-8 app arguments are fine.
        let args = vec![OsString::from_vec(vec![0xff])];
        assert_eq!(parse(args.clone()), Ok(Action::Run(args)));
    }
}
