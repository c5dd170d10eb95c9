// The settings' Accounts section: OAuth accounts connected with the user's
// own client (ListAccounts / ConnectAccount / DisconnectAccount). The core
// runs the sign-in (PKCE, loopback listener) and opens it in the managed
// browser; the panel shows the sign-in URL (AccountSignIn) and the accounts'
// status and granted scopes, never a token.

import { h } from "../dom";
import { field, orNull, statusLine } from "../view";
import type { MessageKey, Translate } from "../i18n";
import { onEvent, request } from "../ipc";
import type { AccountStatus, AccountView } from "../protocol";

const PROVIDERS = ["google", "github", "microsoft", "oidc"] as const;

export const accountStatusKey = (status: AccountStatus): MessageKey => `accountStatus.${status}`;

export function renderAccounts(t: Translate): HTMLElement {
  const list = h("ul", { class: "accounts", id: "accounts" });
  const { status, say, fail } = statusLine("accounts-status", t);

  const show = (accounts: AccountView[]): void => {
    if (accounts.length === 0) {
      list.replaceChildren(h("li", { class: "empty" }, t("accountsEmpty")));
      return;
    }
    list.replaceChildren(
      ...accounts.map((a) => {
        const label = t("accountDisconnect", { name: a.name });
        const remove = h("button", { type: "button", class: "icon disconnect-account", "aria-label": label, title: label }, "✕");
        remove.addEventListener("click", () => {
          request({ type: "disconnect_account", name: a.name }, "accounts").then((r) => {
            say("");
            show(r.accounts);
          }, fail);
        });
        return h(
          "li",
          { class: "account", "data-account": a.name },
          h("span", { class: "account-name" }, a.name),
          h("span", { class: `badge account-status status-${a.status}` }, t(accountStatusKey(a.status))),
          h("span", { class: "account-scopes" }, a.scopes_granted.join(" ")),
          remove,
        );
      }),
    );
  };

  const provider = h("select", { id: "account-provider" }, ...PROVIDERS.map((p) => h("option", { value: p }, p)));
  const issuer = h("input", { id: "account-issuer", type: "url", autocomplete: "off", spellcheck: "false", placeholder: "https://id.example" });
  const clientId = h("input", { id: "account-client-id", type: "text", autocomplete: "off", spellcheck: "false" });
  const clientSecret = h("input", { id: "account-client-secret", type: "password", autocomplete: "off", spellcheck: "false" });
  const scopes = h("input", { id: "account-scopes", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "openid email" });
  const connect = h("button", { id: "account-connect", type: "submit" }, t("accountConnect"));
  const form = h(
    "form",
    { class: "account-form" },
    field("account-provider", t("accountProvider"), provider),
    field("account-issuer", t("accountIssuer"), issuer, t("accountIssuerHint")),
    field("account-client-id", t("accountClientId"), clientId),
    field("account-client-secret", t("accountClientSecret"), clientSecret),
    field("account-scopes", t("accountScopes"), scopes),
    h("div", { class: "row" }, connect),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    connect.disabled = true;
    say("");
    const unlisten = onEvent((event) => {
      if (event.type === "account_sign_in") {
        say(t("accountSignIn", { url: event.url }), "pending");
        status.dataset.url = event.url;
      }
    });
    const op = {
      type: "connect_account" as const,
      provider: provider.value,
      issuer: orNull(issuer.value),
      client_id: orNull(clientId.value),
      client_secret: orNull(clientSecret.value),
      scopes: scopes.value.split(/\s+/).filter((s) => s !== ""),
    };
    clientSecret.value = "";
    request(op, "accounts")
      .then((r) => {
        say(t("accountConnected"), "ok");
        show(r.accounts);
      }, fail)
      .finally(() => {
        connect.disabled = false;
        delete status.dataset.url;
        void unlisten.then((stop) => stop());
      });
  });
  request({ type: "list_accounts" }, "accounts").then((r) => show(r.accounts), fail);

  return h(
    "section",
    { class: "accounts-section", "aria-labelledby": "accounts-title" },
    h("h2", { id: "accounts-title" }, t("accountsTitle")),
    h("p", { class: "hint" }, t("accountsHint")),
    list,
    form,
    status,
  );
}
