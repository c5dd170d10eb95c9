-- Halley's schema, version 1. Shaped by Letta's data model (agents, core
-- memory blocks with history, tools, runs made of steps) and cut down for a
-- single local user: no organizations/users, no join tables where one owner
-- suffices. Conventions:
--   * ids are TEXT (`agent-<uuid>`, `run-<uuid>`, ... or caller-supplied),
--     except append-only logs, which use INTEGER AUTOINCREMENT for order;
--   * timestamps are TEXT RFC 3339 UTC with milliseconds (store::now()),
--     so string order is time order;
--   * JSON columns are TEXT checked with json_valid();
--   * booleans are INTEGER 0/1;
--   * enums are TEXT with a CHECK listing the allowed values.

-- Agents -------------------------------------------------------------------

CREATE TABLE agents (
    id          TEXT PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL,
    system      TEXT NOT NULL DEFAULT '',
    llm_config  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(llm_config)),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

-- Core memory: labelled text always in the agent's context window.
CREATE TABLE blocks (
    id          TEXT PRIMARY KEY NOT NULL,
    agent_id    TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    label       TEXT NOT NULL CHECK (label <> ''),
    value       TEXT NOT NULL,
    char_limit  INTEGER NOT NULL CHECK (char_limit > 0),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    UNIQUE (agent_id, label),
    CHECK (length(value) <= char_limit)
);

CREATE TABLE block_history (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    block_id    TEXT NOT NULL REFERENCES blocks(id) ON DELETE CASCADE,
    old_value   TEXT,                       -- NULL when the block was created
    new_value   TEXT NOT NULL,
    actor       TEXT NOT NULL,
    at          TEXT NOT NULL
);
CREATE INDEX block_history_block ON block_history (block_id, id);

-- Tools registered at run time (custom tools, client-executed tools).
-- Built-in tools live in the code catalogue, not here.
CREATE TABLE tools (
    id                    TEXT PRIMARY KEY NOT NULL,
    name                  TEXT NOT NULL UNIQUE CHECK (name <> ''),
    description           TEXT NOT NULL DEFAULT '',
    kind                  TEXT NOT NULL CHECK (kind IN ('primitive', 'skill', 'custom')),
    executor              TEXT NOT NULL CHECK (executor IN ('builtin', 'client', 'implicit')),
    json_schema           TEXT NOT NULL CHECK (json_valid(json_schema)),
    source_code           TEXT,
    permission_scope      TEXT NOT NULL CHECK (permission_scope IN
                              ('READ_ONLY', 'WRITE_NON_DESTRUCTIVE', 'SUBMIT', 'PUBLISH', 'PAYMENT', 'DESTRUCTIVE')),
    risk_level            TEXT NOT NULL CHECK (risk_level IN ('low', 'medium', 'high')),
    requires_confirmation INTEGER NOT NULL CHECK (requires_confirmation IN (0, 1)),
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL
);

-- Conversations and messages ----------------------------------------------

CREATE TABLE conversations (
    id          TEXT PRIMARY KEY NOT NULL,
    agent_id    TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    title       TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX conversations_agent ON conversations (agent_id, updated_at);

-- Runs: one agent turn loop; steps: one model call inside it.
CREATE TABLE runs (
    id              TEXT PRIMARY KEY NOT NULL,
    agent_id        TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    conversation_id TEXT REFERENCES conversations(id) ON DELETE SET NULL,
    status          TEXT NOT NULL CHECK (status IN ('running', 'paused', 'completed', 'failed', 'cancelled')),
    stop_reason     TEXT,
    started_at      TEXT NOT NULL,
    ended_at        TEXT
);
CREATE INDEX runs_agent ON runs (agent_id, started_at);
CREATE INDEX runs_conversation ON runs (conversation_id);
CREATE INDEX runs_status ON runs (status);

CREATE TABLE messages (
    id              TEXT PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    run_id          TEXT REFERENCES runs(id) ON DELETE SET NULL,
    role            TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content         TEXT,
    tool_calls      TEXT CHECK (tool_calls IS NULL OR json_valid(tool_calls)),
    tool_call_id    TEXT,
    tool_name       TEXT,
    created_at      TEXT NOT NULL,
    UNIQUE (conversation_id, seq),
    CHECK (role <> 'tool' OR tool_call_id IS NOT NULL)
);
CREATE INDEX messages_run ON messages (run_id);

CREATE TABLE steps (
    id                TEXT PRIMARY KEY NOT NULL,
    run_id            TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx               INTEGER NOT NULL CHECK (idx >= 0),
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER CHECK (prompt_tokens IS NULL OR prompt_tokens >= 0),
    completion_tokens INTEGER CHECK (completion_tokens IS NULL OR completion_tokens >= 0),
    latency_ms        INTEGER CHECK (latency_ms IS NULL OR latency_ms >= 0),
    status            TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
    error             TEXT,
    created_at        TEXT NOT NULL,
    UNIQUE (run_id, idx)
);

-- What the agent knows about the user: dotted keys, JSON values.
CREATE TABLE profile (
    key         TEXT PRIMARY KEY NOT NULL CHECK (key <> ''),
    value       TEXT NOT NULL CHECK (json_valid(value)),
    updated_at  TEXT NOT NULL
);

-- Files: content-addressed blobs in the data directory ---------------------

CREATE TABLE files (
    id            TEXT PRIMARY KEY NOT NULL,
    sha256        TEXT NOT NULL UNIQUE CHECK (length(sha256) = 64),
    name          TEXT NOT NULL,
    mime          TEXT NOT NULL,
    size          INTEGER NOT NULL CHECK (size >= 0),
    stored_path   TEXT NOT NULL,
    original_path TEXT NOT NULL,
    note          TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX files_created ON files (created_at);

-- Tags are stored lowercased and trimmed.
CREATE TABLE file_tags (
    file_id     TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    tag         TEXT NOT NULL CHECK (tag <> '' AND tag = lower(tag) AND tag = trim(tag)),
    PRIMARY KEY (file_id, tag)
) WITHOUT ROWID;
CREATE INDEX file_tags_tag ON file_tags (tag, file_id);

-- Watches: scheduled checks of a page value ---------------------------------

CREATE TABLE watches (
    id              TEXT PRIMARY KEY NOT NULL,
    kind            TEXT NOT NULL DEFAULT 'generic',   -- price, restock, trip, ...
    title           TEXT NOT NULL DEFAULT '',
    target_url      TEXT NOT NULL,
    selector        TEXT,
    trigger_rules   TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(trigger_rules)),
    frequency_secs  INTEGER NOT NULL CHECK (frequency_secs > 0),
    next_check_at   TEXT NOT NULL,
    last_checked_at TEXT,
    last_value      TEXT CHECK (last_value IS NULL OR json_valid(last_value)),
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'deleted')),
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX watches_due ON watches (status, next_check_at);

CREATE TABLE watch_observations (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    watch_id    TEXT NOT NULL REFERENCES watches(id) ON DELETE CASCADE,
    observed_at TEXT NOT NULL,
    value       TEXT CHECK (value IS NULL OR json_valid(value)),   -- NULL: extraction failed
    raw_text    TEXT,
    triggered   INTEGER NOT NULL CHECK (triggered IN (0, 1)),
    error       TEXT
);
CREATE INDEX watch_observations_watch ON watch_observations (watch_id, id);

-- Gate: confirmations asked of the user, and the audit trail ---------------

CREATE TABLE confirmations (
    id              TEXT PRIMARY KEY NOT NULL,
    run_id          TEXT REFERENCES runs(id) ON DELETE SET NULL,
    tool            TEXT NOT NULL,
    action_summary  TEXT NOT NULL,
    action_hash     TEXT NOT NULL,
    scope           TEXT NOT NULL CHECK (scope IN
                        ('READ_ONLY', 'WRITE_NON_DESTRUCTIVE', 'SUBMIT', 'PUBLISH', 'PAYMENT', 'DESTRUCTIVE')),
    risk_level      TEXT NOT NULL CHECK (risk_level IN ('low', 'medium', 'high')),
    request         TEXT NOT NULL CHECK (json_valid(request)),
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
    answer          TEXT CHECK (answer IS NULL OR json_valid(answer)),
    expires_at      TEXT,
    created_at      TEXT NOT NULL,
    answered_at     TEXT,
    CHECK ((status = 'pending') = (answered_at IS NULL))
);
CREATE INDEX confirmations_status ON confirmations (status, created_at);
CREATE INDEX confirmations_hash ON confirmations (action_hash);
CREATE INDEX confirmations_run ON confirmations (run_id);

-- Append-only: rows are never updated (the trigger enforces it); old rows
-- may be pruned. No foreign keys, so the trail outlives what it describes.
CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          TEXT NOT NULL,
    actor       TEXT NOT NULL,
    event       TEXT NOT NULL,
    run_id      TEXT,
    tool        TEXT,
    scope       TEXT CHECK (scope IS NULL OR scope IN
                    ('READ_ONLY', 'WRITE_NON_DESTRUCTIVE', 'SUBMIT', 'PUBLISH', 'PAYMENT', 'DESTRUCTIVE')),
    decision    TEXT CHECK (decision IS NULL OR decision IN ('allow', 'ask', 'deny')),
    detail      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail))
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_tool ON audit_log (tool, id);
CREATE INDEX audit_log_run ON audit_log (run_id);

CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
