//! Messages of a conversation in OpenAI chat form (system, user, assistant
//! with tool calls, tool results), ordered by a per-conversation `seq`.

use serde_json::Value;

use crate::error::Result;
pub use crate::protocol::status::Role;
use crate::store::{Store, new_id, now};

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct MessageRow {
    pub id: String,
    pub conversation_id: String,
    /// 1, 2, 3, ... within the conversation.
    pub seq: i64,
    pub run_id: Option<String>,
    pub role: Role,
    /// `None` for an assistant message that only calls tools.
    pub content: Option<String>,
    /// The assistant's `tool_calls` array, as the model sent it.
    #[sqlx(json(nullable))]
    pub tool_calls: Option<Value>,
    /// For `tool` messages: the call this result answers (required).
    pub tool_call_id: Option<String>,
    pub tool_name: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    pub conversation_id: String,
    pub run_id: Option<String>,
    pub role: Role,
    pub content: Option<String>,
    pub tool_calls: Option<Value>,
    pub tool_call_id: Option<String>,
    pub tool_name: Option<String>,
}

impl NewMessage {
    /// A plain text message from `role`.
    pub fn text(conversation_id: &str, role: Role, content: &str) -> Self {
        Self {
            conversation_id: conversation_id.to_string(),
            run_id: None,
            role,
            content: Some(content.to_string()),
            tool_calls: None,
            tool_call_id: None,
            tool_name: None,
        }
    }

    /// The result of tool call `tool_call_id`.
    pub fn tool_result(conversation_id: &str, tool_call_id: &str, tool_name: &str, content: &str) -> Self {
        Self {
            tool_call_id: Some(tool_call_id.to_string()),
            tool_name: Some(tool_name.to_string()),
            ..Self::text(conversation_id, Role::Tool, content)
        }
    }
}

/// Accessor for the `messages` table.
pub struct Messages<'a> {
    store: &'a Store,
}

impl Store {
    pub fn messages(&self) -> Messages<'_> {
        Messages { store: self }
    }
}

impl Messages<'_> {
    /// Append a message with the next `seq` and touch the conversation's
    /// `updated_at`, in one transaction.
    pub async fn append(&self, new: &NewMessage) -> Result<MessageRow> {
        let mut tx = self.store.begin_write().await?;
        let row = append_in(&mut tx, new).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// [`Messages::append`] committed durably ([`Store::begin_durable`]):
    /// the placeholder result a call that may change something leaves
    /// before it runs.
    pub async fn append_durable(&self, new: &NewMessage) -> Result<MessageRow> {
        let mut tx = self.store.begin_durable().await?;
        let row = append_in(&mut tx, new).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// A tool call's result message and its row in the run's timeline
    /// (`tool_calls`), in one transaction: both or neither survive a crash.
    /// With `placeholder` (the id of the message written before a call that
    /// may change something ran), the result is written over it.
    pub async fn record_tool_result(
        &self,
        new: &NewMessage,
        placeholder: Option<&str>,
        call: &crate::store::tool_calls::NewToolCall<'_>,
    ) -> Result<()> {
        let mut tx = self.store.begin_write().await?;
        match placeholder {
            Some(id) => {
                sqlx::query("UPDATE messages SET content = ?2 WHERE id = ?1")
                    .bind(id)
                    .bind(new.content.as_deref())
                    .execute(&mut *tx)
                    .await?;
            }
            None => {
                append_in(&mut tx, new).await?;
            }
        }
        crate::store::tool_calls::insert_in(&mut tx, call).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Every message of a conversation, in order.
    pub async fn for_conversation(&self, conversation_id: &str) -> Result<Vec<MessageRow>> {
        Ok(sqlx::query_as("SELECT * FROM messages WHERE conversation_id = ?1 ORDER BY seq")
            .bind(conversation_id)
            .fetch_all(self.store.pool())
            .await?)
    }

    /// The last `limit` messages of a conversation, in order (oldest of them
    /// first): the tail that fits a context window.
    pub async fn last(&self, conversation_id: &str, limit: u32) -> Result<Vec<MessageRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM (SELECT * FROM messages WHERE conversation_id = ?1 ORDER BY seq DESC LIMIT ?2)
             ORDER BY seq",
        )
        .bind(conversation_id)
        .bind(limit)
        .fetch_all(self.store.pool())
        .await?)
    }
}

/// Append a message with the next `seq` and touch the conversation's
/// `updated_at`, inside the caller's transaction.
async fn append_in(conn: &mut sqlx::SqliteConnection, new: &NewMessage) -> Result<MessageRow> {
    let at = now();
    let row: MessageRow = sqlx::query_as(
        "INSERT INTO messages (id, conversation_id, seq, run_id, role, content, tool_calls,
             tool_call_id, tool_name, created_at)
         VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ?2),
             ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         RETURNING *",
    )
    .bind(new_id("message"))
    .bind(&new.conversation_id)
    .bind(new.run_id.as_deref())
    .bind(new.role)
    .bind(new.content.as_deref())
    .bind(new.tool_calls.as_ref().map(sqlx::types::Json))
    .bind(new.tool_call_id.as_deref())
    .bind(new.tool_name.as_deref())
    .bind(&at)
    .fetch_one(&mut *conn)
    .await?;
    sqlx::query("UPDATE conversations SET updated_at = ?2 WHERE id = ?1")
        .bind(&new.conversation_id)
        .bind(&at)
        .execute(&mut *conn)
        .await?;
    Ok(row)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::error::ErrorCode;
    use crate::store::test_support::{agent, open_temp};

    #[tokio::test]
    async fn append_orders_by_seq_and_round_trips_tool_calls() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let conv = store.conversations().create(&agent, "").await.unwrap();
        let other = store.conversations().create(&agent, "").await.unwrap();
        let run = store.runs().create(&agent, Some(&conv.id)).await.unwrap();
        let calls = json!([{"id": "call_1", "type": "function",
            "function": {"name": "user_profile_get", "arguments": "{\"key\":\"name\"}"}}]);
        let m1 = store.messages().append(&NewMessage::text(&conv.id, Role::User, "what is my name?")).await.unwrap();
        store.messages().append(&NewMessage::text(&other.id, Role::User, "elsewhere")).await.unwrap();
        let m2 = store
            .messages()
            .append(&NewMessage {
                run_id: Some(run.id.clone()),
                content: None,
                tool_calls: Some(calls.clone()),
                ..NewMessage::text(&conv.id, Role::Assistant, "")
            })
            .await
            .unwrap();
        let m3 = store
            .messages()
            .append(&NewMessage::tool_result(&conv.id, "call_1", "user_profile_get", "{\"value\":\"An\"}"))
            .await
            .unwrap();
        assert_eq!((m1.seq, m2.seq, m3.seq), (1, 2, 3));
        assert_eq!((m2.content.as_deref(), m2.tool_calls.as_ref()), (None, Some(&calls)));
        assert_eq!(m3.tool_call_id.as_deref(), Some("call_1"));
        assert_eq!(store.messages().for_conversation(&conv.id).await.unwrap(), vec![m1, m2.clone(), m3.clone()]);
        assert_eq!(store.messages().last(&conv.id, 2).await.unwrap(), vec![m2, m3.clone()]);
        let conv = store.conversations().get(&conv.id).await.unwrap().unwrap();
        assert_eq!(conv.updated_at, m3.created_at);
    }

    #[tokio::test]
    async fn tool_message_needs_a_call_id_and_conversation_delete_cascades() {
        let (_dir, store) = open_temp().await;
        let agent = agent(&store).await;
        let conv = store.conversations().create(&agent, "").await.unwrap();
        let bad = NewMessage::text(&conv.id, Role::Tool, "orphan result");
        assert_eq!(store.messages().append(&bad).await.unwrap_err().code(), ErrorCode::Storage);
        store.messages().append(&NewMessage::text(&conv.id, Role::System, "sys")).await.unwrap();
        store.conversations().delete(&conv.id).await.unwrap();
        assert_eq!(store.messages().for_conversation(&conv.id).await.unwrap(), vec![]);
    }
}
