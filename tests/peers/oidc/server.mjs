// The OpenID Connect server of the OAuth tests: oidc-provider as published,
// configured for a native public client (PKCE S256 required, loopback
// redirect on any port, refresh tokens rotated on use, a short access-token
// lifetime). Its own development login and consent pages are used; the tests
// fill them in. Prints `listening <issuer>` once it accepts connections.
//
// With REMEMBERED_LOGIN the server plays a provider that remembers its
// returning user and the consent given: every interaction (login and
// consent) is finished at once as that account with everything asked for
// granted, so the browser is sent straight back to the client's callback
// (a chain of redirects, no page shown), as Google, GitHub or Microsoft do
// for a user signed in who consented before.
//
// node server.mjs PORT [ACCESS_TOKEN_TTL_SECONDS] [REMEMBERED_LOGIN]
import Provider from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';

const port = Number(process.argv[2] || 0);
const accessTtl = Number(process.argv[3] || 60);
const remembered = process.argv[4] || '';

const configuration = {
  clients: [
    {
      client_id: 'halley-test',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  ],
  pkce: { required: () => true },
  scopes: ['openid', 'email', 'offline_access'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  ttl: { AccessToken: accessTtl, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600, RefreshToken: 3600, IdToken: 3600 },
  rotateRefreshToken: () => true,
  features: { revocation: { enabled: true }, devInteractions: { enabled: !remembered } },
  cookies: { keys: ['halley-test-cookie-key'] },
  async findAccount(_ctx, id) {
    return {
      accountId: id,
      async claims() {
        return { sub: id, email: `${id}@example.test`, email_verified: true };
      },
    };
  },
};

// oidc-provider's own in-memory store, larger: by default it keeps 1,000
// entries and forgets the least recently used, and the crash-point sweep
// (tests/suite/crashpoints.rs) makes tens of thousands of tokens while some
// accounts' refresh tokens wait unused.
const store = new LRU({ maxSize: 10_000_000 });
configuration.adapter = (model) => new MemoryAdapter(model, store);

// The remembered user's interaction: signed in and consented already.
async function finishAtOnce(req, res) {
  try {
    const { params, grantId } = await provider.interactionDetails(req, res);
    const grant = grantId
      ? await provider.Grant.find(grantId)
      : new provider.Grant({ accountId: remembered, clientId: params.client_id });
    grant.addOIDCScope(String(params.scope || 'openid'));
    const id = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: remembered }, consent: { grantId: id } }, {
      mergeWithLastSubmission: false,
    });
  } catch (e) {
    res.statusCode = 500;
    res.end(String(e));
  }
}

let provider;
const server = (await import('node:http')).createServer((req, res) => {
  if (remembered && req.url.startsWith('/interaction/')) {
    finishAtOnce(req, res);
    return;
  }
  provider.callback()(req, res);
});
server.listen(port, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  provider = new Provider(issuer, configuration);
  process.stdout.write(`listening ${issuer}\n`);
});
