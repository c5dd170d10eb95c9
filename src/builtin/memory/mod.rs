//! `core_memory_append` / `core_memory_replace` (the model edits its core
//! memory blocks) and `archival_memory_insert` / `archival_memory_search`
//! (its long-term passages), for the default agent. Content carrying one of
//! the user's sensitive profile values is refused (see
//! [`crate::builtin::memory::blocks::refuse_secrets`]).

pub use crate::tools::catalogue::memory::*;

pub mod blocks;
pub mod embedder;
pub mod sources;

use self::blocks::{self as memory, ACTOR_AGENT};
use crate::error::{Error, Result};
use crate::gate::secrets;
use crate::store::Store;
use crate::store::archival::PassageRow;
use crate::store::blocks::{BlockRow, char_count};

/// `core_memory_append`.
pub async fn append(store: &Store, args: CoreMemoryAppendArgs) -> Result<CoreMemoryOutput> {
    let agent = memory::default_agent(store).await?;
    memory::refuse_secrets(store, &args.content).await?;
    let block = memory::append(store, &agent, &args.label, &args.content, ACTOR_AGENT).await?;
    Ok(block_output(block))
}

/// `core_memory_replace`.
pub async fn replace(store: &Store, args: CoreMemoryReplaceArgs) -> Result<CoreMemoryOutput> {
    let agent = memory::default_agent(store).await?;
    memory::refuse_secrets(store, &args.new_content).await?;
    let block = memory::replace(store, &agent, &args.label, &args.old_content, &args.new_content, ACTOR_AGENT).await?;
    Ok(block_output(block))
}

/// `archival_memory_insert`.
pub async fn insert(store: &Store, args: ArchivalMemoryInsertArgs) -> Result<Passage> {
    if args.content.chars().count() > MAX_PASSAGE_CHARS {
        return Err(Error::invalid_arguments(format!(
            "a passage holds at most {MAX_PASSAGE_CHARS} characters; split it into several"
        )));
    }
    check_tags(&args.tags)?;
    let agent = memory::default_agent(store).await?;
    memory::refuse_secrets(store, &args.content).await?;
    let row = store.archival().insert(&agent, &args.content, &args.tags).await?;
    Ok(passage(row, &[]))
}

/// `archival_memory_search`. Sensitive profile values a passage holds (the
/// user may add passages themselves) come back as placeholders.
pub async fn search(store: &Store, args: ArchivalMemorySearchArgs) -> Result<ArchivalMemorySearchOutput> {
    check_tags(&args.tags)?;
    let agent = memory::default_agent(store).await?;
    let limit = args.limit.clamp(1, 50);
    let filter = embedder::Filter { tags: args.tags, since: args.since, until: args.until, source: args.source };
    let found = embedder::search(store, &agent, &args.query, &filter, embedder::Mode::Both, limit as usize).await?;
    let secrets = secrets::secret_values(store).await?;
    let passages = found
        .hits
        .into_iter()
        .map(|h| {
            let origin = h.origin;
            Passage {
                score: Some(h.score),
                source: origin.as_ref().map(|o| o.source.clone()),
                file: origin.as_ref().map(|o| o.file.clone()),
                file_id: origin.as_ref().map(|o| o.file_id.clone()),
                page: origin.and_then(|o| o.page),
                ..passage(h.passage, &secrets)
            }
        })
        .collect();
    Ok(ArchivalMemorySearchOutput { passages, note: found.note })
}

fn check_tags(tags: &[String]) -> Result<()> {
    match tags.iter().find(|t| t.trim().is_empty() || t.chars().count() > MAX_TAG_CHARS) {
        Some(bad) => {
            Err(Error::invalid_arguments(format!("invalid tag {bad:?}: tags are 1 to {MAX_TAG_CHARS} characters")))
        }
        None => Ok(()),
    }
}

fn block_output(block: BlockRow) -> CoreMemoryOutput {
    CoreMemoryOutput {
        chars: char_count(&block.value),
        label: block.label,
        value: block.value,
        char_limit: block.char_limit,
    }
}

fn passage(row: PassageRow, secrets: &[crate::gate::action::SecretValue]) -> Passage {
    Passage {
        id: row.id,
        text: secrets::mask(&row.text, secrets),
        tags: row.tags,
        created_at: row.created_at,
        score: None,
        source: None,
        file: None,
        file_id: None,
        page: None,
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::open_temp;

    fn parse<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
        serde_json::from_value(v).unwrap()
    }

    #[tokio::test]
    async fn append_and_replace_edit_the_default_agents_blocks() {
        let (_dir, store) = open_temp().await;
        let out = append(&store, parse(json!({"label": "human", "content": "Tên: An"}))).await.unwrap();
        assert_eq!(
            out,
            CoreMemoryOutput { label: "human".into(), value: "Tên: An".into(), chars: 7, char_limit: 2000 }
        );
        let out = replace(&store, parse(json!({"label": "human", "old_content": "An", "new_content": "Bình"})));
        assert_eq!(out.await.unwrap().value, "Tên: Bình");
        let agent = memory::default_agent(&store).await.unwrap();
        let history = store.block_history().recent_for_agent(&agent, 2).await.unwrap();
        let got: Vec<_> = history.iter().map(|h| (h.new_value.as_str(), h.actor.as_str())).collect();
        assert_eq!(got, vec![("Tên: Bình", "agent"), ("Tên: An", "agent")]);
    }

    #[tokio::test]
    async fn sensitive_values_never_get_into_memory() {
        let (_dir, store) = open_temp().await;
        store.profile().apply(&[("travel.passport_no".into(), json!("C7654321"))], &[]).await.unwrap();
        let err = append(&store, parse(json!({"label": "human", "content": "Hộ chiếu C7654321"}))).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        assert!(err.message().contains("{{profile.travel.passport_no}}"), "{}", err.message());
        let args = json!({"label": "human", "old_content": "x", "new_content": "C7654321"});
        assert_eq!(replace(&store, parse(args)).await.unwrap_err().code(), ErrorCode::InvalidArguments);
        let err = insert(&store, parse(json!({"content": "passport c7654321"}))).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        let agent = memory::default_agent(&store).await.unwrap();
        assert_eq!(store.blocks().get(&agent, "human").await.unwrap().map(|b| b.value), Some(String::new()));
        assert_eq!(store.archival().count(&agent).await.unwrap(), 0);

        // The placeholder is welcome.
        let out =
            append(&store, parse(json!({"label": "human", "content": "Hộ chiếu {{profile.travel.passport_no}}"})));
        assert_eq!(out.await.unwrap().value, "Hộ chiếu {{profile.travel.passport_no}}");
    }

    #[tokio::test]
    async fn insert_then_search_without_diacritics() {
        let (_dir, store) = open_temp().await;
        let p = insert(&store, parse(json!({"content": "Khách sạn Mường Thanh Đà Nẵng", "tags": ["Travel"]})));
        let p = p.await.unwrap();
        assert_eq!((p.text.as_str(), p.tags.clone()), ("Khách sạn Mường Thanh Đà Nẵng", vec!["travel".to_owned()]));
        insert(&store, parse(json!({"content": "Mua laptop ASUS"}))).await.unwrap();
        let found = search(&store, parse(json!({"query": "khach san da nang"}))).await.unwrap();
        let ids: Vec<&str> = found.passages.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids, vec![p.id.as_str()]);
        assert_eq!(found.passages[0].text, p.text);
        assert!(found.passages[0].score.is_some_and(|s| s > 0.0));
        assert_eq!(found.note.as_deref(), Some("no embedder is set: searched by words only"));
        let found = search(&store, parse(json!({"query": "khach san", "tags": ["shopping"]}))).await.unwrap();
        assert_eq!(found.passages, vec![]);
        let err = search(&store, parse(json!({"query": "?!"}))).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
        let err = insert(&store, parse(json!({"content": "x", "tags": [" "]}))).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArguments);
    }

    #[tokio::test]
    async fn search_masks_secrets_a_user_stored() {
        let (_dir, store) = open_temp().await;
        let agent = memory::default_agent(&store).await.unwrap();
        store.archival().insert(&agent, "Số hộ chiếu C7654321", &[]).await.unwrap();
        store.profile().apply(&[("travel.passport_no".into(), json!("C7654321"))], &[]).await.unwrap();
        let found = search(&store, parse(json!({"query": "ho chieu"}))).await.unwrap();
        assert_eq!(found.passages[0].text, "Số hộ chiếu {{profile.travel.passport_no}}");
    }
}
