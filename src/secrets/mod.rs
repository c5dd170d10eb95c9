//! Secrets kept out of SQLite, logs and the model's context: API keys (later
//! OAuth tokens) in the OS keyring, with no plain-text fallback.

mod keyring;

pub use self::keyring::{KEYRING_TIMEOUT, SERVICE, Secret, SecretStore, api_key_account};
