//! The host's answers to the ops a front end sends for the user directly,
//! as the command line's `auth` and `mcp` commands do: an OAuth sign-in
//! asked through the caller's own confirmer, its page opened apart, an
//! account checked or signed out with what the provider said, and the
//! accounts and MCP servers as stored.

use serde_json::{Value, json};

use super::{Caller, Host};
use crate::error::{Error, Result};
use crate::oauth::{ClientConfig, ConnectRequest};
use crate::protocol::{Event, Reply};

/// What [`Op::SignInAccount`](crate::protocol::Op::SignInAccount) gathered.
pub(super) struct SignIn {
    pub provider: String,
    pub issuer: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub scopes: Vec<String>,
    pub timeout_secs: u32,
}

impl Host {
    /// [`Op::SignInAccount`](crate::protocol::Op::SignInAccount): the
    /// client and the provider are checked first, then the caller is asked
    /// (and the answer audited) as for the tool `auth_oauth_connect`, then
    /// the sign-in URL goes out as [`Event::AccountSignIn`] and the callback
    /// is awaited.
    pub(super) async fn sign_in_account(&self, caller: &Caller, sign_in: SignIn) -> Result<Reply> {
        let SignIn { provider, issuer, client_id, client_secret, scopes, timeout_secs } = sign_in;
        let client = ClientConfig::from_parts(client_id, client_secret)?;
        let timeout = std::time::Duration::from_secs(u64::from(timeout_secs));
        let request = ConnectRequest::new(&provider, issuer, client, scopes, timeout)?;
        let oauth = self.core.oauth();
        let pending = oauth.begin(request).await?;
        let args = json!({"provider": pending.provider.name(), "scopes": pending.scopes});
        self.core.approve(&caller.context(), "auth_oauth_connect", &args).await?;
        let url = pending.authorize_url.clone();
        let _ = self.events.send(Event::AccountSignIn { provider: pending.provider.name().to_owned(), url });
        let c = oauth.finish(pending).await?;
        Ok(Reply::AccountConnected {
            name: c.name,
            provider: c.provider,
            account: c.account,
            scopes_granted: c.scopes_granted,
            scopes_missing: c.scopes_missing,
            status: c.status,
        })
    }

    /// [`Op::OpenSignInPage`](crate::protocol::Op::OpenSignInPage) and
    /// [`Op::OpenPage`](crate::protocol::Op::OpenPage): an http(s) page in a
    /// new tab of the managed browser.
    pub(super) async fn open_page(&self, url: &str) -> Result<Reply> {
        let web = url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
        if !web {
            return Err(Error::invalid_arguments(format!("`{url}` is not an http(s) page")));
        }
        crate::oauth::open_in_browser(self.core.browser(), url).await?;
        Ok(Reply::Done)
    }

    /// [`Op::CheckAccount`](crate::protocol::Op::CheckAccount).
    pub(super) async fn check_account(&self, name: String) -> Result<Reply> {
        let userinfo = self.core.oauth().userinfo(&name).await?;
        Ok(Reply::AccountUserInfo { name, userinfo })
    }

    /// [`Op::SignOutAccount`](crate::protocol::Op::SignOutAccount).
    pub(super) async fn sign_out_account(&self, name: &str) -> Result<Reply> {
        let done = self.core.oauth().disconnect(name).await?;
        Ok(Reply::AccountDisconnected { name: done.name, revoked: done.revoked })
    }

    /// [`Op::ListAccountRecords`](crate::protocol::Op::ListAccountRecords).
    pub(super) async fn account_records(&self) -> Result<Reply> {
        let accounts = self.core.oauth().list().await?;
        Ok(Reply::AccountRecords { accounts: records(&accounts)? })
    }

    /// [`Op::AttachMcpServer`](crate::protocol::Op::AttachMcpServer).
    pub(super) async fn attach_mcp_server(
        &self,
        name: String,
        url: Option<String>,
        headers: &[String],
        command: Vec<String>,
    ) -> Result<Reply> {
        let transport = crate::mcp::client::transport(url, headers, command)?;
        let row = self.core.add_mcp_server(&name, &transport).await?;
        let tools = row.tools.iter().map(|t| format!("{name}__{}", t.name)).collect();
        let described = super::ops::described(&row);
        Ok(Reply::McpServerAttached { name, tools, described })
    }

    /// [`Op::ListMcpServerRecords`](crate::protocol::Op::ListMcpServerRecords).
    pub(super) async fn mcp_server_records(&self) -> Result<Reply> {
        let servers = self.core.store().mcp_servers().list().await?;
        Ok(Reply::McpServerRecords { servers: records(&servers)? })
    }
}

/// Rows as JSON objects, their fields in order.
fn records<T: serde::Serialize>(rows: &[T]) -> Result<Vec<Value>> {
    rows.iter()
        .map(|r| serde_json::to_value(r).map_err(|e| Error::internal("cannot serialise a row").with_source(e)))
        .collect()
}
