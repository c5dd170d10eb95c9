//! OAuth secrets in the OS keyring: an account's refresh token under
//! `oauth:<name>`, a provider's client secret under `oauth-client:<provider>`.
//! Windows' Credential Manager holds at most 2,560 bytes per entry, so a
//! value longer than [`PART`] characters is split: the entry then says
//! `halley-parts:N` and the parts are `<account>#1` .. `#N`.

use crate::error::Result;
use crate::secrets::{Secret, SecretStore};

/// The longest value kept in one entry (UTF-16 on Windows: 2 bytes a char).
pub const PART: usize = 1000;

const PARTS: &str = "halley-parts:";

/// The keyring account of an OAuth account's refresh token.
pub fn token_account(name: &str) -> String {
    format!("oauth:{name}")
}

/// The keyring account of a provider's client secret.
pub fn client_account(provider: &str) -> String {
    format!("oauth-client:{provider}")
}

fn part_account(account: &str, i: usize) -> String {
    format!("{account}#{i}")
}

/// Save `value` at `account`, split when long, replacing what was there.
pub async fn put(secrets: &SecretStore, account: &str, value: &Secret) -> Result<()> {
    let chars: Vec<char> = value.expose().chars().collect();
    let old = parts_of(secrets, account).await?;
    if chars.len() <= PART {
        secrets.set(account, value).await?;
    } else {
        let parts: Vec<String> = chars.chunks(PART).map(|c| c.iter().collect()).collect();
        for (i, part) in parts.iter().enumerate() {
            secrets.set(&part_account(account, i + 1), &Secret::new(part.as_str())).await?;
        }
        secrets.set(account, &Secret::new(format!("{PARTS}{}", parts.len()))).await?;
        for i in parts.len() + 1..=old {
            secrets.delete(&part_account(account, i)).await?;
        }
        return Ok(());
    }
    for i in 1..=old {
        secrets.delete(&part_account(account, i)).await?;
    }
    Ok(())
}

/// The value at `account`, joined from its parts when split.
pub async fn get(secrets: &SecretStore, account: &str) -> Result<Option<Secret>> {
    let Some(head) = secrets.get(account).await? else { return Ok(None) };
    let Some(n) = head.expose().strip_prefix(PARTS).and_then(|n| n.parse::<usize>().ok()) else {
        return Ok(Some(head));
    };
    let mut value = String::new();
    for i in 1..=n {
        match secrets.get(&part_account(account, i)).await? {
            Some(part) => value.push_str(part.expose()),
            None => return Ok(None),
        }
    }
    Ok(Some(Secret::new(value)))
}

/// Delete `account` and its parts; `false` when nothing was there.
pub async fn delete(secrets: &SecretStore, account: &str) -> Result<bool> {
    for i in 1..=parts_of(secrets, account).await? {
        secrets.delete(&part_account(account, i)).await?;
    }
    secrets.delete(account).await
}

/// How many parts the value at `account` is split into (0: not split).
async fn parts_of(secrets: &SecretStore, account: &str) -> Result<usize> {
    Ok(secrets
        .get(account)
        .await?
        .and_then(|head| head.expose().strip_prefix(PARTS).and_then(|n| n.parse().ok()))
        .unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inside the test session: a long token set is split, read back whole,
    /// shrunk and deleted without leaving parts behind.
    #[tokio::test]
    async fn long_values_are_split_for_windows() {
        if std::env::var_os("HALLEY_TEST_SESSION").is_none() {
            eprintln!("skipped: needs the test session's keyring (scripts/with-session.sh)");
            return;
        }
        let secrets = SecretStore::os().unwrap();
        let account = token_account(&format!("unit:{}", uuid::Uuid::new_v4().simple()));
        let long = Secret::new("rt-Nguyễn-".repeat(250));
        put(&secrets, &account, &long).await.unwrap();
        assert_eq!(secrets.get(&account).await.unwrap().unwrap().expose(), "halley-parts:3");
        assert_eq!(get(&secrets, &account).await.unwrap(), Some(long));
        let short = Secret::new("rt-short");
        put(&secrets, &account, &short).await.unwrap();
        assert_eq!(get(&secrets, &account).await.unwrap(), Some(short));
        assert_eq!(secrets.get(&part_account(&account, 1)).await.unwrap(), None);
        assert!(delete(&secrets, &account).await.unwrap());
        assert_eq!(get(&secrets, &account).await.unwrap(), None);
    }
}
