-- OAuth accounts (issue #16): what is connected, never a token. The refresh
-- token (and a Google desktop client's secret) live in the OS keyring only,
-- under `oauth:<name>`; access tokens live in memory only.

CREATE TABLE oauth_accounts (
    name                TEXT PRIMARY KEY NOT NULL,   -- `provider:account`
    provider            TEXT NOT NULL,               -- google | github | microsoft | oidc
    issuer              TEXT,                        -- the OpenID issuer, when there is one
    account             TEXT NOT NULL,               -- e-mail, login or subject
    client_id           TEXT NOT NULL,
    token_endpoint      TEXT NOT NULL,
    revocation_endpoint TEXT,
    userinfo_endpoint   TEXT,
    scopes_requested    TEXT NOT NULL CHECK (json_valid(scopes_requested)),
    scopes_granted      TEXT NOT NULL CHECK (json_valid(scopes_granted)),
    status              TEXT NOT NULL CHECK (status IN ('connected', 'partial', 'needs_reconnect')),
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);

-- The OAuth client the user brought per provider (client id and, for an
-- OpenID issuer, its URL); its secret, if any, is in the keyring
-- (`oauth-client:<provider>`). The tool `auth_oauth_connect` uses it.
CREATE TABLE oauth_clients (
    provider   TEXT PRIMARY KEY NOT NULL,
    issuer     TEXT,
    client_id  TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
