-- The user's standing gate rules: per site, per tool, or per tool on a
-- site, "always allow", "always ask" or "never". The gate reads them before
-- the effective scope of the action (see gate::policy for the order).
--   * site: an origin (`https://shop.vn`) or a host pattern (`*.shop.vn`,
--     `https://*.shop.vn`), stored normalized by the code;
--   * min_scope: the rule applies to actions of at least this effective
--     scope; NULL = any scope;
--   * one rule per (site, tool, min_scope): adding another replaces it.

CREATE TABLE gate_rules (
    id          TEXT PRIMARY KEY NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('site', 'tool', 'site_tool')),
    site        TEXT CHECK (site IS NULL OR site <> ''),
    tool        TEXT CHECK (tool IS NULL OR tool <> ''),
    min_scope   TEXT CHECK (min_scope IS NULL OR min_scope IN
                    ('READ_ONLY', 'WRITE_NON_DESTRUCTIVE', 'SUBMIT', 'PUBLISH', 'PAYMENT', 'DESTRUCTIVE')),
    decision    TEXT NOT NULL CHECK (decision IN ('allow', 'ask', 'never')),
    note        TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    CHECK ((kind IN ('site', 'site_tool')) = (site IS NOT NULL)),
    CHECK ((kind IN ('tool', 'site_tool')) = (tool IS NOT NULL))
);
CREATE UNIQUE INDEX gate_rules_target ON gate_rules (coalesce(site, ''), coalesce(tool, ''), coalesce(min_scope, ''));
CREATE INDEX gate_rules_tool ON gate_rules (tool);
