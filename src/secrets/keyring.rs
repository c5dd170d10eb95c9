//! [`SecretStore`]: named secrets in the OS keyring (Secret Service on Linux,
//! Keychain on macOS, Credential Manager on Windows) under the service `halley`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ::keyring::Entry;
use ::keyring::credential::{CredentialBuilder, CredentialPersistence};

use crate::error::{Error, ErrorCode, Result};

/// The keyring service every Halley secret is filed under.
pub const SERVICE: &str = "halley";

/// How long one keyring call may take: an unlock prompt waits for the user.
pub const KEYRING_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a look-up of an optional key (a model's, a search provider's)
/// may take before "no key saved" is assumed: an answer must not wait on
/// an unlock prompt.
pub const KEYRING_PEEK: Duration = Duration::from_secs(5);

/// The account name of an endpoint's API key: `api-key:openai`,
/// `api-key:gpu-box:8000`.
pub fn api_key_account(endpoint: &str) -> String {
    format!("api-key:{endpoint}")
}

/// A secret value. Its `Debug` never shows it and it has no `Display`:
/// reading it takes an explicit [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn into_exposed(self) -> String {
        self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The OS keyring, one service's entries. Cheap to clone. Every call runs
/// on its own thread (the platform APIs block) and gives up after
/// [`KEYRING_TIMEOUT`].
#[derive(Clone)]
pub struct SecretStore {
    service: String,
    builder: Arc<CredentialBuilder>,
    timeout: Duration,
}

impl fmt::Debug for SecretStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretStore").field("service", &self.service).finish_non_exhaustive()
    }
}

impl SecretStore {
    /// The platform's keyring, service [`SERVICE`]. Fails when this build has
    /// none for the platform (keyring's in-memory mock is refused: a key
    /// saved there would vanish silently). Whether the keyring answers is
    /// only known at the first call.
    pub fn os() -> Result<SecretStore> {
        Self::with_builder(SERVICE, ::keyring::default::default_credential_builder())
    }

    fn with_builder(service: &str, builder: Box<CredentialBuilder>) -> Result<SecretStore> {
        if !matches!(builder.persistence(), CredentialPersistence::UntilDelete) {
            return Err(Error::new(
                ErrorCode::Keyring,
                format!("no OS keyring is supported on this system ({}); {NO_PLAIN_TEXT}", std::env::consts::OS),
            ));
        }
        Ok(SecretStore { service: service.to_owned(), builder: Arc::from(builder), timeout: KEYRING_TIMEOUT })
    }

    /// Save (or replace) the secret of `account`.
    pub async fn set(&self, account: &str, secret: &Secret) -> Result<()> {
        if secret.expose().trim().is_empty() {
            return Err(Error::invalid_arguments("refusing to save an empty secret"));
        }
        let (store, account, secret) = (self.clone(), account.to_owned(), secret.clone());
        self.off_thread(move || {
            let entry = store.entry(&account)?;
            entry.set_password(secret.expose()).map_err(|e| scrub(keyring_error(e, &account), &secret))
        })
        .await
    }

    /// The secret of `account`; `None` when none is saved.
    pub async fn get(&self, account: &str) -> Result<Option<Secret>> {
        let (store, account) = (self.clone(), account.to_owned());
        self.off_thread(move || match store.entry(&account)?.get_password() {
            Ok(value) => Ok(Some(Secret(value))),
            Err(::keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(keyring_error(e, &account)),
        })
        .await
    }

    /// Delete the secret of `account`; `false` when there was none.
    pub async fn delete(&self, account: &str) -> Result<bool> {
        let (store, account) = (self.clone(), account.to_owned());
        self.off_thread(move || match store.entry(&account)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(::keyring::Error::NoEntry) => Ok(false),
            Err(e) => Err(keyring_error(e, &account)),
        })
        .await
    }

    fn entry(&self, account: &str) -> Result<Entry> {
        if account.trim().is_empty() {
            return Err(Error::invalid_arguments("a keyring account name cannot be empty"));
        }
        let credential = self.builder.build(None, &self.service, account).map_err(|e| keyring_error(e, account))?;
        Ok(Entry::new_with_credential(credential))
    }

    /// Run a blocking keyring call on a thread of its own. A plain thread, not
    /// tokio's blocking pool: a call stuck on an unlock prompt must not keep
    /// the runtime from shutting down.
    async fn off_thread<T: Send + 'static>(&self, call: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("halley-keyring".into())
            .spawn(move || {
                let _ = tx.send(call());
            })
            .map_err(|e| Error::new(ErrorCode::Internal, "cannot start a thread for the OS keyring").with_source(e))?;
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(Error::internal("the OS keyring call ended without an answer")),
            Err(_) => Err(Error::new(
                ErrorCode::Keyring,
                format!(
                    "the OS keyring did not answer within {} s (is it waiting for an unlock prompt?)",
                    self.timeout.as_secs()
                ),
            )),
        }
    }
}

/// Said with every "no keyring" error.
const NO_PLAIN_TEXT: &str = "Halley never stores keys in plain text; until a keyring is available, give the key \
     in an environment variable for this shell instead (OPENAI_API_KEY, or the provider's own such as OPENROUTER_API_KEY)";

/// How to get a keyring running, per platform.
#[cfg(target_os = "macos")]
const START_HINT: &str = "check that your login Keychain exists and is unlocked (Keychain Access)";
#[cfg(target_os = "windows")]
const START_HINT: &str = "check that Windows Credential Manager is available to this user";
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
const START_HINT: &str = "start a Secret Service in your desktop session: GNOME Keyring \
     (`gnome-keyring-daemon --start --components=secrets`), KWallet, or KeePassXC with its Secret Service \
     integration turned on";

/// A keyring failure as Halley's error. The platform error is put in the
/// message as text and never attached as a source: some variants hold the
/// secret's bytes, which `Debug` would print.
fn keyring_error(err: ::keyring::Error, account: &str) -> Error {
    use ::keyring::Error as K;
    match err {
        K::PlatformFailure(e) => {
            Error::new(ErrorCode::Keyring, format!("no OS keyring is available ({e}): {START_HINT}. {NO_PLAIN_TEXT}"))
        }
        K::NoStorageAccess(e) => Error::new(
            ErrorCode::Keyring,
            format!(
                "the OS keyring is locked or refused access ({e}): unlock it (log in to the desktop session, or unlock \
                 the default collection in Seahorse or KeePassXC) and try again. {NO_PLAIN_TEXT}"
            ),
        ),
        K::NoEntry => Error::not_found(format!("nothing is saved in the OS keyring for `{account}`")),
        K::BadEncoding(_) => Error::new(
            ErrorCode::Keyring,
            format!("the OS keyring holds `{account}`, but not as text: delete it and save it again"),
        ),
        K::TooLong(what, max) => {
            Error::invalid_arguments(format!("the {what} is too long for the OS keyring (at most {max} characters)"))
        }
        K::Invalid(what, why) => Error::invalid_arguments(format!("the OS keyring refused the {what}: {why}")),
        K::Ambiguous(items) => Error::new(
            ErrorCode::Keyring,
            format!(
                "{} entries of the OS keyring match `{account}` (service {SERVICE}); remove the extras, e.g. with \
                 `secret-tool clear service {SERVICE} username {account}`, and save the key again",
                items.len()
            ),
        ),
        other => Error::new(ErrorCode::Keyring, format!("the OS keyring failed: {other}")),
    }
}

/// `err` with the secret cut out of its message, should a platform echo it.
fn scrub(err: Error, secret: &Secret) -> Error {
    let value = secret.expose();
    if value.len() < 4 || !err.message().contains(value) {
        return err;
    }
    Error::new(err.code(), err.message().replace(value, "<redacted>"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn secrets_never_show_in_debug() {
        let s = Secret::new("sk-very-secret-1234");
        assert_eq!(format!("{s:?} {:?}", Some(&s)), "Secret(<redacted>) Some(Secret(<redacted>))");
        assert_eq!(s.expose(), "sk-very-secret-1234");
        assert_eq!(api_key_account("openai"), "api-key:openai");
    }

    #[test]
    fn the_in_memory_mock_is_refused() {
        let err = SecretStore::with_builder(SERVICE, ::keyring::mock::default_credential_builder()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Keyring);
        assert!(err.message().contains("never stores keys in plain text"), "{}", err.message());
    }

    #[test]
    fn the_build_has_a_persistent_keyring() {
        // Linux, macOS and Windows builds must never fall back to the mock.
        if cfg!(any(target_os = "linux", target_os = "macos", target_os = "windows")) {
            SecretStore::os().unwrap();
        }
    }

    #[test]
    fn keyring_failures_are_typed_and_clear() {
        let e =
            keyring_error(::keyring::Error::PlatformFailure("org.freedesktop.DBus.Error.ServiceUnknown".into()), "a");
        assert_eq!(e.code(), ErrorCode::Keyring);
        assert!(e.message().starts_with("no OS keyring is available (org.freedesktop.DBus.Error.ServiceUnknown)"));
        assert!(e.message().contains("plain text"), "{}", e.message());
        let e = keyring_error(::keyring::Error::NoStorageAccess("locked".into()), "a");
        assert_eq!(e.code(), ErrorCode::Keyring);
        assert!(e.message().contains("locked or refused"), "{}", e.message());
        let e = keyring_error(::keyring::Error::BadEncoding(b"\xffsk-leak".to_vec()), "api-key:x");
        assert!(!format!("{e:?} {}", e.to_wire().message).contains("sk-leak"));
        let e = scrub(Error::new(ErrorCode::Keyring, "echoed sk-abcdef back"), &Secret::new("sk-abcdef"));
        assert_eq!(e.message(), "echoed <redacted> back");
    }

    /// Inside the test session (`scripts/with-session.sh`, an unlocked GNOME
    /// keyring): the secret really lands in the Secret Service.
    #[tokio::test]
    async fn secret_service_round_trip_in_the_test_session() {
        if std::env::var_os("HALLEY_TEST_SESSION").is_none() {
            eprintln!("skipped: needs the test session's keyring (scripts/with-session.sh)");
            return;
        }
        let store = SecretStore::os().unwrap();
        let account = format!("api-key:unit-{}", uuid::Uuid::new_v4().simple());
        let value = Secret::new("sk-unit-Nguyễn-🔑-42");
        assert_eq!(store.get(&account).await.unwrap(), None);
        store.set(&account, &value).await.unwrap();
        let found = std::process::Command::new("secret-tool")
            .args(["lookup", "service", SERVICE, "username", &account])
            .output()
            .unwrap();
        assert!(found.status.success(), "{found:?}");
        assert_eq!(String::from_utf8(found.stdout).unwrap().trim_end(), value.expose());
        assert_eq!(store.get(&account).await.unwrap(), Some(value));
        assert!(store.delete(&account).await.unwrap());
        assert!(!store.delete(&account).await.unwrap());
        assert_eq!(store.get(&account).await.unwrap(), None);
        let gone = std::process::Command::new("secret-tool")
            .args(["lookup", "service", SERVICE, "username", &account])
            .output()
            .unwrap();
        assert!(gone.stdout.is_empty(), "{gone:?}");
    }
}
