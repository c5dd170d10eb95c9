//! Secrets kept out of SQLite, logs and the model's context: API keys and
//! OAuth refresh tokens in the OS keyring, with no plain-text fallback;
//! sensitive profile values sealed at rest; the values of client-tool
//! results marked sensitive in memory only (`results`).

mod keyring;
pub mod results;
pub mod sealed;

pub use self::keyring::{KEYRING_TIMEOUT, SERVICE, Secret, SecretStore, api_key_account};

/// `a == b` in time that depends on the lengths only (bearer tokens, OAuth
/// `state`).
pub fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
