-- Routines: a finished run's tool calls kept as a plan, replayed without
-- the model (`halley routine`). The plan (steps with their targets
-- described, parameters, the answer's template) is one JSON document, read
-- and written whole by `crate::routine`.

CREATE TABLE routines (
    id            TEXT PRIMARY KEY NOT NULL,
    name          TEXT NOT NULL UNIQUE CHECK (name <> ''),
    source_run_id TEXT,                 -- no foreign key: the routine outlives its run
    plan          TEXT NOT NULL CHECK (json_valid(plan)),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

-- One replay of a routine, journaled step by step: before a step that may
-- change something, `step` and `in_flight = 1` are written durably; after
-- it, `in_flight = 0` and `done = step + 1`. A replay left `running` by a
-- process that died is settled `interrupted`, naming the step that was in
-- flight (it may have taken effect and is never run again on its own).
CREATE TABLE routine_replays (
    id          TEXT PRIMARY KEY NOT NULL,
    routine_id  TEXT NOT NULL REFERENCES routines(id) ON DELETE CASCADE,
    run_id      TEXT REFERENCES runs(id) ON DELETE SET NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'stopped', 'interrupted')),
    params      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(params)),
    step        INTEGER,
    in_flight   INTEGER NOT NULL DEFAULT 0 CHECK (in_flight IN (0, 1)),
    done        INTEGER NOT NULL DEFAULT 0 CHECK (done >= 0),
    pid         INTEGER,                -- the process replaying it
    report      TEXT CHECK (report IS NULL OR json_valid(report)),
    started_at  TEXT NOT NULL,
    ended_at    TEXT
);
CREATE INDEX routine_replays_routine ON routine_replays (routine_id, started_at);
CREATE INDEX routine_replays_status ON routine_replays (status);
