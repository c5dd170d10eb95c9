-- Watches as the engine runs them (src/watch): what to extract, an optional
-- time window, health, how a check works (http or browser), the prices the
-- rules compare with, each rule's armed state and a cooldown; each check's
-- typed reading; and the alerts, once each (UNIQUE (watch, rule, value)),
-- with their sent and read state (the panel's inbox, the tray's count).
-- The label is the existing `title` column.

ALTER TABLE watches ADD COLUMN schema TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(schema));
ALTER TABLE watches ADD COLUMN window_start TEXT;
ALTER TABLE watches ADD COLUMN window_end TEXT;
ALTER TABLE watches ADD COLUMN health TEXT NOT NULL DEFAULT 'ok' CHECK (health IN ('ok', 'degraded', 'broken'));
ALTER TABLE watches ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0);
ALTER TABLE watches ADD COLUMN last_error TEXT;
ALTER TABLE watches ADD COLUMN check_method TEXT CHECK (check_method IS NULL OR check_method IN ('http', 'browser'));
ALTER TABLE watches ADD COLUMN currency TEXT;
ALTER TABLE watches ADD COLUMN baseline_price REAL;
ALTER TABLE watches ADD COLUMN last_alerted_price REAL;
ALTER TABLE watches ADD COLUMN all_time_low REAL;
ALTER TABLE watches ADD COLUMN rule_state TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(rule_state));
ALTER TABLE watches ADD COLUMN cooldown_secs INTEGER NOT NULL DEFAULT 3600 CHECK (cooldown_secs >= 0);
ALTER TABLE watches ADD COLUMN last_alert_at TEXT;
-- How many times the watch broke: each break (and its recovery) is its own alert.
ALTER TABLE watches ADD COLUMN breaks INTEGER NOT NULL DEFAULT 0 CHECK (breaks >= 0);

ALTER TABLE watch_observations ADD COLUMN price REAL;
ALTER TABLE watch_observations ADD COLUMN currency TEXT;
ALTER TABLE watch_observations ADD COLUMN in_stock INTEGER CHECK (in_stock IS NULL OR in_stock IN (0, 1));
ALTER TABLE watch_observations ADD COLUMN health TEXT NOT NULL DEFAULT 'ok' CHECK (health IN ('ok', 'degraded', 'broken'));
ALTER TABLE watch_observations ADD COLUMN method TEXT CHECK (method IS NULL OR method IN ('http', 'browser'));
ALTER TABLE watch_observations ADD COLUMN fired_rules TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(fired_rules));

CREATE TABLE watch_alerts (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    -- NULL: sent by notify_send, not by a watch.
    watch_id       TEXT REFERENCES watches(id) ON DELETE CASCADE,
    observation_id INTEGER REFERENCES watch_observations(id) ON DELETE SET NULL,
    -- The rule's key (`price<=19990000`, `health:broken`, `notify`).
    rule           TEXT NOT NULL,
    -- The value it fired on, with the rule's firing count (`19990000#1`).
    value          TEXT NOT NULL,
    title          TEXT NOT NULL,
    body           TEXT NOT NULL,
    url            TEXT,
    channel        TEXT NOT NULL DEFAULT 'push' CHECK (channel IN ('push', 'in-app')),
    created_at     TEXT NOT NULL,
    -- Set once the native notification was handed to the desktop (or the
    -- channel needs none); NULL: still to send.
    sent_at        TEXT,
    delivered      INTEGER CHECK (delivered IS NULL OR delivered IN (0, 1)),
    read_at        TEXT,
    UNIQUE (watch_id, rule, value)
);
CREATE INDEX watch_alerts_unsent ON watch_alerts (sent_at) WHERE sent_at IS NULL;
CREATE INDEX watch_alerts_unread ON watch_alerts (read_at) WHERE read_at IS NULL;
CREATE INDEX watch_alerts_watch ON watch_alerts (watch_id, id);
