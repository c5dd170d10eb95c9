//! Secrets kept out of SQLite, logs and the model's context: API keys and
//! OAuth refresh tokens in the OS keyring, with no plain-text fallback;
//! sensitive profile values sealed at rest; the values of client-tool
//! results marked sensitive in memory only (`results`). Which values are
//! sensitive (by their key's words, `keys`, or by their shape, `shapes`)
//! and how they are found however they are written (`matching`).

mod keyring;
pub mod keys;
pub mod matching;
pub mod message;
pub mod results;
pub mod sealed;
pub mod shapes;
pub mod token;

pub use self::keyring::{KEYRING_PEEK, KEYRING_TIMEOUT, SERVICE, Secret, SecretStore, api_key_account};

/// `a == b` in time that depends on the lengths only (bearer tokens, OAuth
/// `state`).
pub fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An API key as given (surrounding whitespace dropped), checked: one
/// non-empty line.
pub fn check_key(key: &str) -> crate::error::Result<Secret> {
    let key = key.trim();
    if key.is_empty() {
        return Err(crate::error::Error::invalid_arguments("the API key is empty"));
    }
    if key.chars().any(char::is_control) {
        return Err(crate::error::Error::invalid_arguments(
            "the API key has a line break or another control character inside; give one key on one line",
        ));
    }
    Ok(Secret::new(key))
}
