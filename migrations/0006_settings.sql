-- The desktop app's settings (model endpoint, model, browser, language,
-- autostart): one row per key, the value as JSON text. Never a secret: API
-- keys live in the OS keyring only.

CREATE TABLE settings (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL CHECK (json_valid(value)),
    updated_at TEXT NOT NULL
);
