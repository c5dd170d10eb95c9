//! OAuth secrets in the OS keyring: an account's refresh token under
//! `oauth:<name>`, a provider's client secret under `oauth-client:<provider>`.
//! Windows' Credential Manager holds at most 2,560 bytes per entry, so a
//! value longer than [`PART`] characters is split: the entry then says
//! `halley-parts:N:G` and the parts are `<account>#G.1` .. `#G.N`, G a
//! generation new at each write. A write puts the new parts first, then the
//! entry (one keyring write: the switch), then deletes the old parts, so a
//! process killed at any instant leaves the old value or the new one, never
//! parts of both. (`halley-parts:N`, parts `#1` .. `#N`: the first layout,
//! still read.)

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

/// Where the parts of a split value are: their count and generation (none:
/// the first layout).
#[derive(Debug, Clone, PartialEq)]
struct Split {
    n: usize,
    generation: Option<String>,
}

impl Split {
    fn read(head: &Secret) -> Option<Split> {
        let rest = head.expose().strip_prefix(PARTS)?;
        let (n, generation) = match rest.split_once(':') {
            Some((n, g)) => (n, Some(g.to_owned())),
            None => (rest, None),
        };
        Some(Split { n: n.parse().ok()?, generation })
    }

    fn head(&self) -> Secret {
        match &self.generation {
            Some(g) => Secret::new(format!("{PARTS}{}:{g}", self.n)),
            None => Secret::new(format!("{PARTS}{}", self.n)),
        }
    }

    fn part(&self, account: &str, i: usize) -> String {
        match &self.generation {
            Some(g) => format!("{account}#{g}.{i}"),
            None => format!("{account}#{i}"),
        }
    }
}

/// One keyring write, a crash point once written.
async fn set(secrets: &SecretStore, entry: &str, value: &Secret) -> Result<()> {
    secrets.set(entry, value).await?;
    crate::crashpoint::point_with(|| format!("keyring: {entry} written"));
    Ok(())
}

/// Save `value` at `account`, split when long, replacing what was there
/// (the old value stays whole until the one write that switches to the new).
pub async fn put(secrets: &SecretStore, account: &str, value: &Secret) -> Result<()> {
    let chars: Vec<char> = value.expose().chars().collect();
    let old = split_of(secrets, account).await?;
    if chars.len() <= PART {
        set(secrets, account, value).await?;
    } else {
        let parts: Vec<String> = chars.chunks(PART).map(|c| c.iter().collect()).collect();
        let new = Split { n: parts.len(), generation: Some(uuid::Uuid::new_v4().simple().to_string()[..8].to_owned()) };
        for (i, part) in parts.iter().enumerate() {
            set(secrets, &new.part(account, i + 1), &Secret::new(part.as_str())).await?;
        }
        set(secrets, account, &new.head()).await?;
    }
    if let Some(old) = old {
        for i in 1..=old.n {
            secrets.delete(&old.part(account, i)).await?;
        }
    }
    Ok(())
}

/// The value at `account`, joined from its parts when split.
pub async fn get(secrets: &SecretStore, account: &str) -> Result<Option<Secret>> {
    let Some(head) = secrets.get(account).await? else { return Ok(None) };
    let Some(split) = Split::read(&head) else {
        return Ok(Some(head));
    };
    let mut value = String::new();
    for i in 1..=split.n {
        match secrets.get(&split.part(account, i)).await? {
            Some(part) => value.push_str(part.expose()),
            None => return Ok(None),
        }
    }
    Ok(Some(Secret::new(value)))
}

/// Delete `account` and its parts; `false` when nothing was there.
pub async fn delete(secrets: &SecretStore, account: &str) -> Result<bool> {
    if let Some(split) = split_of(secrets, account).await? {
        for i in 1..=split.n {
            secrets.delete(&split.part(account, i)).await?;
        }
    }
    secrets.delete(account).await
}

/// How the value at `account` is split (none: not split, or nothing there).
async fn split_of(secrets: &SecretStore, account: &str) -> Result<Option<Split>> {
    Ok(secrets.get(account).await?.as_ref().and_then(Split::read))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inside the test session: a long token set is split, read back whole,
    /// replaced by another long one under a new generation (the old parts
    /// gone once the entry switched), shrunk and deleted without leaving
    /// parts behind; the first layout (`halley-parts:N`, `#i`) still reads.
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
        let first = Split::read(&secrets.get(&account).await.unwrap().unwrap()).unwrap();
        assert_eq!(first.n, 3);
        assert_eq!(get(&secrets, &account).await.unwrap(), Some(long));
        let longer = Secret::new("rt-Trần-".repeat(300));
        put(&secrets, &account, &longer).await.unwrap();
        let second = Split::read(&secrets.get(&account).await.unwrap().unwrap()).unwrap();
        assert_ne!(second.generation, first.generation);
        assert_eq!(get(&secrets, &account).await.unwrap(), Some(longer));
        assert_eq!(secrets.get(&first.part(&account, 1)).await.unwrap(), None, "the old parts are deleted");
        let short = Secret::new("rt-short");
        put(&secrets, &account, &short).await.unwrap();
        assert_eq!(get(&secrets, &account).await.unwrap(), Some(short));
        assert_eq!(secrets.get(&second.part(&account, 1)).await.unwrap(), None);
        assert!(delete(&secrets, &account).await.unwrap());
        assert_eq!(get(&secrets, &account).await.unwrap(), None);

        let legacy = Split { n: 2, generation: None };
        secrets.set(&legacy.part(&account, 1), &Secret::new("rt-a")).await.unwrap();
        secrets.set(&legacy.part(&account, 2), &Secret::new("rt-b")).await.unwrap();
        secrets.set(&account, &Secret::new("halley-parts:2")).await.unwrap();
        assert_eq!(get(&secrets, &account).await.unwrap(), Some(Secret::new("rt-art-b")));
        assert!(delete(&secrets, &account).await.unwrap());
        assert_eq!(secrets.get(&legacy.part(&account, 2)).await.unwrap(), None);
    }
}
