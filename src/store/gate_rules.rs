//! The user's standing gate rules: "always allow", "always ask" or "never"
//! for a site, a tool, or a tool on a site, optionally only from some
//! effective scope up. What they mean to a decision is `gate::policy`'s.

use sqlx::sqlite::SqliteRow;
use sqlx::{FromRow, Row};

use crate::error::{Error, ErrorCode, Result};
pub use crate::protocol::status::{GateRuleRow, RuleDecision, RuleKind};
use crate::store::{Store, decode_text, new_id, now};
use crate::tools::PermissionScope;
use crate::vocab::origin::{SitePattern, origin_of};

impl RuleDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Never => "never",
        }
    }
}

impl FromRow<'_, SqliteRow> for GateRuleRow {
    fn from_row(row: &SqliteRow) -> std::result::Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            kind: row.try_get("kind")?,
            site: row.try_get("site")?,
            tool: row.try_get("tool")?,
            min_scope: row.try_get::<Option<String>, _>("min_scope")?.map(decode_text).transpose()?,
            decision: row.try_get("decision")?,
            note: row.try_get("note")?,
            created_at: row.try_get("created_at")?,
        })
    }
}

impl GateRuleRow {
    /// Whether the rule's site and tool fit a call of `tool` on `origin`
    /// (a URL or an origin; `None` when the call has no page). A site rule
    /// never fits a call without an origin. The scope is not looked at.
    pub fn applies_to(&self, origin: Option<&str>, tool: &str) -> bool {
        let tool_fits = self.tool.as_deref().is_none_or(|t| t == tool);
        let site_fits = match &self.site {
            None => true,
            Some(site) => match (SitePattern::parse(site), origin.and_then(origin_of)) {
                (Ok(pattern), Some(origin)) => pattern.matches(&origin),
                _ => false,
            },
        };
        tool_fits && site_fits
    }

    /// Whether an action of `scope` is at or above the rule's `min_scope`.
    pub fn covers_scope(&self, scope: PermissionScope) -> bool {
        self.min_scope.is_none_or(|min| scope >= min)
    }

    /// A short description for messages: `browser_click on https://shop.vn (PAYMENT and above)`.
    pub fn describe(&self) -> String {
        let target = match (&self.tool, &self.site) {
            (Some(tool), Some(site)) => format!("{tool} on {site}"),
            (Some(tool), None) => tool.clone(),
            (None, Some(site)) => site.clone(),
            (None, None) => "everything".to_owned(),
        };
        match self.min_scope {
            Some(min) => format!("{target} ({min} and above)"),
            None => target,
        }
    }
}

/// A rule to add. At least one of `site` and `tool` is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGateRule {
    /// An origin or URL (`https://shop.vn`, normalized to its origin) or a
    /// host pattern (`*.shop.vn`).
    pub site: Option<String>,
    pub tool: Option<String>,
    pub min_scope: Option<PermissionScope>,
    pub decision: RuleDecision,
    pub note: String,
}

/// Accessor for the `gate_rules` table.
pub struct GateRules<'a> {
    store: &'a Store,
}

impl Store {
    pub fn gate_rules(&self) -> GateRules<'_> {
        GateRules { store: self }
    }
}

impl GateRules<'_> {
    /// Add a rule, replacing any rule with the same site, tool and
    /// min_scope (the user's latest word wins). Rejects a rule with neither
    /// site nor tool, an empty tool and a site that is not an origin or a
    /// host pattern, as `invalid_arguments`.
    pub async fn add(&self, new: &NewGateRule) -> Result<GateRuleRow> {
        let site = match new.site.as_deref() {
            Some(s) => Some(SitePattern::parse(s)?.to_string()),
            None => None,
        };
        let tool = match new.tool.as_deref().map(str::trim) {
            Some("") => return Err(Error::invalid_arguments("a rule's tool name cannot be empty")),
            other => other.map(str::to_owned),
        };
        let kind = match (&site, &tool) {
            (Some(_), Some(_)) => RuleKind::SiteTool,
            (Some(_), None) => RuleKind::Site,
            (None, Some(_)) => RuleKind::Tool,
            (None, None) => {
                return Err(Error::invalid_arguments("a rule needs a site, a tool or both"));
            }
        };
        let min_scope = new.min_scope.map(PermissionScope::as_str);
        let mut tx = self.store.begin_write().await?;
        sqlx::query("DELETE FROM gate_rules WHERE site IS ?1 AND tool IS ?2 AND min_scope IS ?3")
            .bind(site.as_deref())
            .bind(tool.as_deref())
            .bind(min_scope)
            .execute(&mut *tx)
            .await?;
        let row = sqlx::query_as(
            "INSERT INTO gate_rules (id, kind, site, tool, min_scope, decision, note, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING *",
        )
        .bind(new_id("rule"))
        .bind(kind)
        .bind(site.as_deref())
        .bind(tool.as_deref())
        .bind(min_scope)
        .bind(new.decision)
        .bind(&new.note)
        .bind(now())
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Every rule, oldest first.
    pub async fn list(&self) -> Result<Vec<GateRuleRow>> {
        Ok(sqlx::query_as("SELECT * FROM gate_rules ORDER BY created_at, rowid").fetch_all(self.store.pool()).await?)
    }

    /// Remove a rule; `not_found` when there is none with that id.
    pub async fn remove(&self, id: &str) -> Result<()> {
        let done = sqlx::query("DELETE FROM gate_rules WHERE id = ?1").bind(id).execute(self.store.pool()).await?;
        if done.rows_affected() == 0 {
            return Err(Error::new(ErrorCode::NotFound, format!("no gate rule with id {id}")));
        }
        Ok(())
    }

    /// The rules whose site and tool fit a call of `tool` on `origin` (see
    /// [`GateRuleRow::applies_to`]), oldest first, whatever their scope.
    pub async fn matching(&self, origin: Option<&str>, tool: &str) -> Result<Vec<GateRuleRow>> {
        let candidates: Vec<GateRuleRow> =
            sqlx::query_as("SELECT * FROM gate_rules WHERE tool IS NULL OR tool = ?1 ORDER BY created_at, rowid")
                .bind(tool)
                .fetch_all(self.store.pool())
                .await?;
        Ok(candidates.into_iter().filter(|r| r.applies_to(origin, tool)).collect())
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::store::test_support::open_temp;

    fn rule(site: Option<&str>, tool: Option<&str>, decision: RuleDecision) -> NewGateRule {
        NewGateRule {
            site: site.map(str::to_owned),
            tool: tool.map(str::to_owned),
            min_scope: None,
            decision,
            note: String::new(),
        }
    }

    #[tokio::test]
    async fn add_list_remove() {
        let (_dir, store) = open_temp().await;
        let rules = store.gate_rules();
        let a = rules.add(&rule(Some("HTTPS://Shop.vn/cart?x=1"), None, RuleDecision::Never)).await.unwrap();
        assert!(a.id.starts_with("rule-"));
        assert_eq!(
            (a.kind, a.site.as_deref(), a.tool.as_deref(), a.decision),
            (RuleKind::Site, Some("https://shop.vn"), None, RuleDecision::Never)
        );
        let b = rules
            .add(&NewGateRule {
                min_scope: Some(PermissionScope::Payment),
                note: "pay there without asking".into(),
                ..rule(Some("*.Vietjetair.com"), Some("browser_click"), RuleDecision::Allow)
            })
            .await
            .unwrap();
        assert_eq!(
            (b.kind, b.site.as_deref(), b.min_scope, b.note.as_str()),
            (RuleKind::SiteTool, Some("*.vietjetair.com"), Some(PermissionScope::Payment), "pay there without asking")
        );
        let c = rules.add(&rule(None, Some("browser_close_tab"), RuleDecision::Ask)).await.unwrap();
        assert_eq!(c.kind, RuleKind::Tool);
        assert_eq!(rules.list().await.unwrap(), vec![a.clone(), b.clone(), c.clone()]);

        rules.remove(&b.id).await.unwrap();
        assert_eq!(rules.list().await.unwrap(), vec![a, c]);
        assert_eq!(rules.remove(&b.id).await.unwrap_err().code(), ErrorCode::NotFound);
    }

    #[tokio::test]
    async fn the_same_target_is_replaced_not_duplicated() {
        let (_dir, store) = open_temp().await;
        let rules = store.gate_rules();
        rules.add(&rule(Some("https://shop.vn"), None, RuleDecision::Never)).await.unwrap();
        let scoped = rules
            .add(&NewGateRule {
                min_scope: Some(PermissionScope::Submit),
                ..rule(Some("https://shop.vn"), None, RuleDecision::Ask)
            })
            .await
            .unwrap();
        let latest = rules.add(&rule(Some("https://shop.vn/"), None, RuleDecision::Allow)).await.unwrap();
        assert_eq!(rules.list().await.unwrap(), vec![scoped, latest]);
    }

    #[tokio::test]
    async fn bad_rules_are_refused() {
        let (_dir, store) = open_temp().await;
        let rules = store.gate_rules();
        for bad in [
            rule(None, None, RuleDecision::Allow),
            rule(None, Some("  "), RuleDecision::Allow),
            rule(Some("shop.vn"), None, RuleDecision::Allow),
            rule(Some("ftp://shop.vn"), None, RuleDecision::Allow),
            rule(Some("*."), None, RuleDecision::Allow),
            rule(Some("*.shop.vn/path"), None, RuleDecision::Allow),
        ] {
            let err = rules.add(&bad).await.unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidArguments, "{bad:?}");
        }
        assert_eq!(rules.list().await.unwrap(), vec![]);
        // The schema holds even when the code is bypassed.
        let res = sqlx::query(
            "INSERT INTO gate_rules (id, kind, site, tool, decision, created_at) VALUES ('r', 'site', NULL, 'x', 'allow', 't')",
        )
        .execute(store.pool())
        .await;
        assert_eq!(Error::from(res.unwrap_err()).code(), ErrorCode::Storage);
    }

    #[tokio::test]
    async fn matching_by_origin_pattern_and_tool() {
        let (_dir, store) = open_temp().await;
        let rules = store.gate_rules();
        let site = rules.add(&rule(Some("https://shop.vn"), None, RuleDecision::Never)).await.unwrap();
        let pattern = rules.add(&rule(Some("*.vietjetair.com"), None, RuleDecision::Ask)).await.unwrap();
        let tool = rules.add(&rule(None, Some("browser_click"), RuleDecision::Ask)).await.unwrap();
        let both = rules.add(&rule(Some("https://shop.vn"), Some("browser_type"), RuleDecision::Allow)).await.unwrap();
        let ids = |rows: Vec<GateRuleRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();

        let m = |origin: Option<&'static str>, tool: &'static str| {
            let rules = store.gate_rules();
            async move { ids(rules.matching(origin, tool).await.unwrap()) }
        };
        assert_eq!(m(Some("https://shop.vn/p/1"), "browser_click").await, vec![site.id.clone(), tool.id.clone()]);
        assert_eq!(m(Some("https://shop.vn"), "browser_type").await, vec![site.id.clone(), both.id.clone()]);
        assert_eq!(m(Some("http://shop.vn"), "browser_type").await, Vec::<String>::new());
        assert_eq!(m(Some("https://book.vietjetair.com"), "browser_type").await, vec![pattern.id.clone()]);
        assert_eq!(m(Some("https://vietjetair.com:8443"), "browser_type").await, vec![pattern.id.clone()]);
        assert_eq!(m(Some("https://notvietjetair.com"), "browser_type").await, Vec::<String>::new());
        assert_eq!(m(None, "browser_click").await, vec![tool.id]);
        assert_eq!(m(None, "browser_type").await, Vec::<String>::new());
    }
}
