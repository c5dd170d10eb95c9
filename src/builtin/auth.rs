//! `auth_oauth_connect`: the model asks to connect an account; the gate has
//! already had the user confirm (SUBMIT, high risk, always asked). The
//! sign-in opens in the managed Chromium with the client the user set up;
//! the model gets back the account, the scopes granted and the status,
//! never a token.

use crate::error::Result;
use crate::handler::Services;
use crate::oauth::flow::CALLBACK_TIMEOUT;
use crate::oauth::{ConnectRequest, open_in_browser};
use crate::tools::catalogue::data::{AuthOauthConnectArgs, AuthOauthConnectOutput};

pub async fn connect(ctx: &Services, args: AuthOauthConnectArgs) -> Result<AuthOauthConnectOutput> {
    let request = ConnectRequest::new(&args.provider, None, None, args.scopes, CALLBACK_TIMEOUT)?;
    let pending = ctx.oauth.begin(request).await?;
    open_in_browser(&ctx.browser, &pending.authorize_url).await?;
    let connected = ctx.oauth.finish(pending).await?;
    Ok(AuthOauthConnectOutput {
        provider: connected.provider,
        account: connected.account,
        scopes_granted: connected.scopes_granted,
        status: connected.status,
    })
}
