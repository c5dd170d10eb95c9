//! MCP servers Halley attaches as a client (`halley mcp add`) and the tools
//! each one listed (tables `mcp_servers`, `mcp_tools`). A server and its
//! tools are written in one transaction.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::types::Json;
use sqlx::{FromRow, Row};

use crate::error::{Error, ErrorCode, Result};
use crate::store::{Store, new_id, now};

/// How Halley talks to a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "lowercase")]
pub enum McpTransport {
    /// A program Halley starts, speaking on its standard input and output.
    Stdio { command: String, args: Vec<String> },
    /// A streamable HTTP endpoint, with headers sent on every request (as
    /// stored: their names only; the values are in the OS keyring,
    /// `mcp::client::keep_secrets`).
    Http { url: String, headers: std::collections::BTreeMap<String, String> },
}

/// One tool as the server listed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpToolRow {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// The server's own annotations, as given (never trusted).
    pub annotations: Value,
}

/// A server with its tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerRow {
    pub id: String,
    pub name: String,
    #[serde(flatten)]
    pub transport: McpTransport,
    pub tools: Vec<McpToolRow>,
    pub created_at: String,
}

struct ServerOnly {
    id: String,
    name: String,
    transport: McpTransport,
    created_at: String,
}

impl FromRow<'_, SqliteRow> for ServerOnly {
    fn from_row(row: &SqliteRow) -> std::result::Result<Self, sqlx::Error> {
        let kind: String = row.try_get("transport")?;
        let transport = if kind == "stdio" {
            McpTransport::Stdio {
                command: row.try_get::<Option<String>, _>("command")?.unwrap_or_default(),
                args: row.try_get::<Json<Vec<String>>, _>("args")?.0,
            }
        } else {
            McpTransport::Http {
                url: row.try_get::<Option<String>, _>("url")?.unwrap_or_default(),
                headers: row.try_get::<Json<std::collections::BTreeMap<String, String>>, _>("headers")?.0,
            }
        };
        Ok(ServerOnly {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            transport,
            created_at: row.try_get("created_at")?,
        })
    }
}

impl FromRow<'_, SqliteRow> for McpToolRow {
    fn from_row(row: &SqliteRow) -> std::result::Result<Self, sqlx::Error> {
        Ok(McpToolRow {
            name: row.try_get("name")?,
            description: row.try_get("description")?,
            input_schema: row.try_get::<Json<Value>, _>("input_schema")?.0,
            annotations: row.try_get::<Json<Value>, _>("annotations")?.0,
        })
    }
}

/// Accessor for the `mcp_servers` and `mcp_tools` tables.
pub struct McpServers<'a> {
    store: &'a Store,
}

impl Store {
    pub fn mcp_servers(&self) -> McpServers<'_> {
        McpServers { store: self }
    }
}

impl McpServers<'_> {
    /// Add a server with its tools. A name already taken is refused
    /// (`halley mcp remove` it first).
    pub async fn add(&self, name: &str, transport: &McpTransport, tools: &[McpToolRow]) -> Result<McpServerRow> {
        let mut tx = self.store.begin_write().await?;
        let taken: Option<(String,)> =
            sqlx::query_as("SELECT id FROM mcp_servers WHERE name = ?1").bind(name).fetch_optional(&mut *tx).await?;
        if taken.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidArguments,
                format!("an MCP server named `{name}` is already added; `halley mcp remove {name}` first"),
            ));
        }
        let id = new_id("mcp");
        let at = now();
        let (kind, command, args, url, headers) = match transport {
            McpTransport::Stdio { command, args } => {
                ("stdio", Some(command.clone()), Value::from(args.clone()), None, Value::Object(Default::default()))
            }
            McpTransport::Http { url, headers } => {
                let headers = headers.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
                ("http", None, Value::Array(Vec::new()), Some(url.clone()), Value::Object(headers))
            }
        };
        sqlx::query(
            "INSERT INTO mcp_servers (id, name, transport, command, args, url, headers, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
        )
        .bind(&id)
        .bind(name)
        .bind(kind)
        .bind(command)
        .bind(Json(&args))
        .bind(url)
        .bind(Json(&headers))
        .bind(&at)
        .execute(&mut *tx)
        .await?;
        for tool in tools {
            sqlx::query(
                "INSERT INTO mcp_tools (id, server_id, name, description, input_schema, annotations)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .bind(new_id("mcptool"))
            .bind(&id)
            .bind(&tool.name)
            .bind(&tool.description)
            .bind(Json(&tool.input_schema))
            .bind(Json(&tool.annotations))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(McpServerRow {
            id,
            name: name.to_owned(),
            transport: transport.clone(),
            tools: tools.to_vec(),
            created_at: at,
        })
    }

    /// Every server with its tools, by name.
    pub async fn list(&self) -> Result<Vec<McpServerRow>> {
        let servers: Vec<ServerOnly> =
            sqlx::query_as("SELECT * FROM mcp_servers ORDER BY name").fetch_all(self.store.pool()).await?;
        let mut out = Vec::with_capacity(servers.len());
        for s in servers {
            let tools: Vec<McpToolRow> = sqlx::query_as("SELECT * FROM mcp_tools WHERE server_id = ?1 ORDER BY name")
                .bind(&s.id)
                .fetch_all(self.store.pool())
                .await?;
            out.push(McpServerRow { id: s.id, name: s.name, transport: s.transport, tools, created_at: s.created_at });
        }
        Ok(out)
    }

    pub async fn get(&self, name: &str) -> Result<Option<McpServerRow>> {
        Ok(self.list().await?.into_iter().find(|s| s.name == name))
    }

    /// Remove a server and its tools. `false` if there was none by that name.
    pub async fn delete(&self, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM mcp_servers WHERE name = ?1").bind(name).execute(self.store.pool()).await?;
        Ok(done.rows_affected() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_support::open_temp;

    #[tokio::test]
    async fn a_server_and_its_tools_round_trip_and_go_together() {
        let (_dir, store) = open_temp().await;
        let stdio = McpTransport::Stdio { command: "npx".into(), args: vec!["-y".into(), "srv".into()] };
        let tool = McpToolRow {
            name: "read_file".into(),
            description: "Read a file".into(),
            input_schema: serde_json::json!({"type": "object"}),
            annotations: serde_json::json!({"readOnlyHint": true}),
        };
        store.mcp_servers().add("fs", &stdio, std::slice::from_ref(&tool)).await.unwrap();
        let http =
            McpTransport::Http { url: "http://127.0.0.1:1/mcp".into(), headers: [("X-K".into(), "v".into())].into() };
        store.mcp_servers().add("web", &http, &[]).await.unwrap();
        let again = store.mcp_servers().add("fs", &http, &[]).await.unwrap_err();
        assert!(again.message().contains("already added"), "{}", again.message());

        let all = store.mcp_servers().list().await.unwrap();
        assert_eq!(all.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["fs", "web"]);
        assert_eq!(all[0].transport, stdio);
        assert_eq!(all[0].tools, vec![tool]);
        assert_eq!(all[1].transport, http);

        assert!(store.mcp_servers().delete("fs").await.unwrap());
        assert!(!store.mcp_servers().delete("fs").await.unwrap());
        let left: (i64,) = sqlx::query_as("SELECT count(*) FROM mcp_tools").fetch_one(store.pool()).await.unwrap();
        assert_eq!(left.0, 0, "the server's tools went with it");
    }

    #[tokio::test]
    async fn names_with_the_separator_are_refused_by_the_schema() {
        let (_dir, store) = open_temp().await;
        let stdio = McpTransport::Stdio { command: "x".into(), args: vec![] };
        assert!(store.mcp_servers().add("a__b", &stdio, &[]).await.is_err());
    }
}
