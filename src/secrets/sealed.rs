//! Sensitive profile values sealed at rest: AES-256-GCM with a key kept in
//! the OS keyring (one per database), so `halley.db`, its WAL and copies of
//! them hold no passport or card number in plain text. A sealed value is
//! stored as `{"$sealed": 1, "nonce": b64, "data": b64}` in place of the
//! JSON value; the key's account names the database it belongs to.

use aes_gcm::aead::{Aead, AeadCore, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{Secret, SecretStore};
use crate::error::{Error, ErrorCode, Result};

/// The marker field of a sealed value.
const MARK: &str = "$sealed";

/// The key's keyring account for the database at `db_path`.
pub fn key_account(db_path: &std::path::Path) -> String {
    let digest = Sha256::digest(db_path.to_string_lossy().as_bytes());
    let hex: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    format!("profile-key:{hex}")
}

/// Seals and opens values with one database's key.
#[derive(Clone)]
pub struct Sealer {
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(<key>)")
    }
}

/// Why a value could not be sealed or opened: the keyring is missing.
fn no_keyring(e: &Error) -> Error {
    tracing::debug!("the keyring did not answer: {}", e.message());
    Error::new(
        ErrorCode::Keyring,
        "sensitive profile values (passport, card, bank, address, phone...) are kept encrypted with a key in the OS \
         keyring, and no keyring answers: the value was not stored. Start a Secret Service in your desktop session \
         (GNOME Keyring: `gnome-keyring-daemon --start --components=secrets`, KWallet, or KeePassXC with its Secret \
         Service integration) and try again",
    )
}

impl Sealer {
    /// The database's key from the keyring, made and saved the first time.
    pub async fn for_database(db_path: &std::path::Path) -> Result<Sealer> {
        let secrets = SecretStore::os().map_err(|e| no_keyring(&e))?;
        let account = key_account(db_path);
        let key = match secrets.get(&account).await.map_err(|e| no_keyring(&e))? {
            Some(k) => B64.decode(k.expose()).unwrap_or_default(),
            None => {
                let key = Aes256Gcm::generate_key(&mut aes_gcm::aead::OsRng).to_vec();
                secrets.set(&account, &Secret::new(B64.encode(&key))).await.map_err(|e| no_keyring(&e))?;
                key
            }
        };
        Sealer::with_key(&key).ok_or_else(|| {
            Error::new(ErrorCode::Keyring, format!("the profile key `{account}` in the keyring is damaged"))
        })
    }

    /// A sealer with a 32-byte key (`None` for any other length).
    fn with_key(key: &[u8]) -> Option<Sealer> {
        Aes256Gcm::new_from_slice(key).ok().map(|cipher| Sealer { cipher })
    }

    /// `value` sealed (the JSON text encrypted under a fresh nonce).
    pub fn seal(&self, value: &Value) -> Result<Value> {
        let nonce = Aes256Gcm::generate_nonce(&mut aes_gcm::aead::OsRng);
        let plain =
            serde_json::to_vec(value).map_err(|e| Error::internal("cannot encode a profile value").with_source(e))?;
        let data = self
            .cipher
            .encrypt(&nonce, plain.as_slice())
            .map_err(|_| Error::internal("cannot seal a profile value"))?;
        Ok(json!({MARK: 1, "nonce": B64.encode(nonce), "data": B64.encode(data)}))
    }

    /// The value `stored` holds: opened when sealed, as it is otherwise.
    pub fn open(&self, stored: Value) -> Result<Value> {
        if !is_sealed(&stored) {
            return Ok(stored);
        }
        let field = |k: &str| stored.get(k).and_then(Value::as_str).and_then(|s| B64.decode(s).ok());
        let damaged =
            || Error::new(ErrorCode::Storage, "a sealed profile value is damaged or was sealed with another key");
        let nonce: [u8; 12] = field("nonce").and_then(|n| n.try_into().ok()).ok_or_else(damaged)?;
        let data = field("data").ok_or_else(damaged)?;
        let plain = self.cipher.decrypt(&Nonce::from(nonce), data.as_slice()).map_err(|_| damaged())?;
        serde_json::from_slice(&plain).map_err(|_| damaged())
    }
}

/// Whether a stored value is sealed.
pub fn is_sealed(value: &Value) -> bool {
    value.get(MARK).is_some() && value.get("data").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_to_what_went_in_and_show_nothing_of_it() {
        let sealer = Sealer::with_key(&[7; 32]).unwrap();
        let value = json!({"number": "C1234567", "expires": "2031-01-01"});
        let sealed = sealer.seal(&value).unwrap();
        assert!(is_sealed(&sealed) && !sealed.to_string().contains("C1234567"), "{sealed}");
        assert_ne!(sealed, sealer.seal(&value).unwrap(), "a fresh nonce each time");
        assert_eq!(sealer.open(sealed.clone()).unwrap(), value);
        assert_eq!(sealer.open(json!("plain")).unwrap(), json!("plain"));
        let other = Sealer::with_key(&[8; 32]).unwrap();
        assert!(Sealer::with_key(&[1; 16]).is_none());
        assert_eq!(other.open(sealed).unwrap_err().code(), ErrorCode::Storage);
        assert_ne!(key_account("/a/halley.db".as_ref()), key_account("/b/halley.db".as_ref()));
    }
}
