//! Where Halley keeps its data: `--data-dir`, else `HALLEY_DATA_DIR`, else
//! the OS app-data directory (`~/.local/share/halley` on Linux,
//! `~/Library/Application Support/halley` on macOS, `%APPDATA%\halley` on
//! Windows). Holds `halley.db` and `files/` (stored documents by SHA-256).

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorCode, Result};

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "halley.db";

/// The environment variable that names the data directory.
pub const DATA_DIR_ENV: &str = "HALLEY_DATA_DIR";

/// The resolved data directory and the paths inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    /// A short stable id of this install (a digest of its path), for the
    /// keyring accounts of what belongs to one data directory.
    pub fn install_id(&self) -> String {
        use sha2::{Digest, Sha256};
        let digest = hex::encode(Sha256::digest(self.root().to_string_lossy().as_bytes()));
        digest[..16].to_owned()
    }

    /// Resolve without touching the disk: the flag, else the environment,
    /// else the OS default. A relative path is taken from the current dir.
    pub fn resolve(flag: Option<&Path>) -> Result<DataDir> {
        let chosen = match flag {
            Some(p) => p.to_path_buf(),
            None => match std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
                Some(v) => PathBuf::from(v),
                None => dirs::data_dir().map(|d| d.join("halley")).ok_or_else(|| {
                    Error::new(
                        ErrorCode::DataDir,
                        format!("no OS data directory found; pass --data-dir or set {DATA_DIR_ENV}"),
                    )
                })?,
            },
        };
        let root = if chosen.is_absolute() {
            chosen
        } else {
            std::env::current_dir()
                .map_err(|e| Error::new(ErrorCode::DataDir, "cannot read the current directory").with_source(e))?
                .join(chosen)
        };
        Ok(DataDir { root })
    }

    /// The managed browser's persistent profile (logins survive restarts).
    pub fn profile_dir(&self) -> PathBuf {
        self.root.join("browser-profile")
    }

    /// A data directory at an explicit path (tests, embedding).
    pub fn at(root: impl Into<PathBuf>) -> DataDir {
        DataDir { root: root.into() }
    }

    /// Create the directory tree if needed and prove it is writable.
    pub fn ensure(&self) -> Result<()> {
        for dir in [self.root.clone(), self.files_dir()] {
            std::fs::create_dir_all(&dir).map_err(|e| {
                Error::new(ErrorCode::DataDir, format!("cannot create data directory {}", dir.display())).with_source(e)
            })?;
        }
        let probe = self.root.join(format!(".write-test-{}", std::process::id()));
        std::fs::write(&probe, b"").map_err(|e| {
            Error::new(ErrorCode::DataDir, format!("data directory {} is not writable", self.root.display()))
                .with_source(e)
        })?;
        let _ = std::fs::remove_file(&probe);
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn db_path(&self) -> PathBuf {
        self.root.join(DB_FILE)
    }

    /// Stored documents, content-addressed: `files/<sha[0..2]>/<sha>[.ext]`.
    pub fn files_dir(&self) -> PathBuf {
        self.root.join("files")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_wins_and_relative_paths_are_absolutised() {
        let d = DataDir::resolve(Some(Path::new("/tmp/h1"))).unwrap();
        assert_eq!(d.root(), Path::new("/tmp/h1"));
        assert_eq!(d.db_path(), Path::new("/tmp/h1/halley.db"));
        let rel = DataDir::resolve(Some(Path::new("rel/dir"))).unwrap();
        assert!(rel.root().is_absolute());
        assert!(rel.root().ends_with("rel/dir"));
    }

    #[test]
    fn ensure_reports_an_unusable_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("plain-file");
        std::fs::write(&file, b"x").unwrap();
        let err = DataDir::at(file.join("sub")).ensure().unwrap_err();
        assert_eq!(err.code(), ErrorCode::DataDir);
        assert!(err.to_wire().message.starts_with("cannot create data directory"), "{}", err.to_wire().message);

        let ok = DataDir::at(tmp.path().join("a/b"));
        ok.ensure().unwrap();
        assert!(ok.files_dir().is_dir());
    }
}
