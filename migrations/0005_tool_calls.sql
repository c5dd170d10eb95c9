-- Every tool call of a run, as it was executed: the arguments (without the
-- system field `_reasoningForCall`, which is kept apart), the model's reason
-- for the call, who executed it, the outcome and how long it took. The
-- timeline of `halley runs show` and of the side panel reads this.

CREATE TABLE tool_calls (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step_id     TEXT REFERENCES steps(id) ON DELETE CASCADE,
    call_id     TEXT NOT NULL,
    tool        TEXT NOT NULL,
    arguments   TEXT NOT NULL CHECK (json_valid(arguments)),
    reasoning   TEXT,
    executor    TEXT NOT NULL CHECK (executor IN ('builtin', 'client', 'implicit', 'none')),
    status      TEXT NOT NULL CHECK (status IN ('ok', 'error', 'cancelled')),
    error_code  TEXT,
    duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
    started_at  TEXT NOT NULL
);
CREATE INDEX tool_calls_run ON tool_calls (run_id, id);
