-- Routines on a schedule (`halley routine schedule NAME --every 1d`): the
-- long-lived host's scheduler (the one that checks the watches) replays a
-- routine when its `next_run_at` has come, as a background run whose
-- questions go to the panel and a notification. Each scheduled replay's
-- result lands in the inbox (`watch_alerts` with its `routine_id`); when the
-- answer's values changed since the last scheduled replay, or the replay
-- stopped after one that completed, the alert is also a notification.
CREATE TABLE routine_schedules (
    routine_id   TEXT PRIMARY KEY NOT NULL REFERENCES routines(id) ON DELETE CASCADE,
    every_secs   INTEGER NOT NULL CHECK (every_secs >= 60),
    paused       INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    -- When it is due (RFC 3339, UTC); claimed by moving it on before the
    -- replay starts, so two processes never replay it at once.
    next_run_at  TEXT NOT NULL,
    last_run_at  TEXT,
    -- The last scheduled replay's status and answer (the values it read,
    -- written into the routine's answer): what "changed" compares with.
    last_status  TEXT,
    last_answer  TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX routine_schedules_due ON routine_schedules (next_run_at) WHERE paused = 0;

-- Who started a replay: the user (`halley routine run`, the panel's Run
-- now) or the schedule.
ALTER TABLE routine_replays ADD COLUMN trigger TEXT NOT NULL DEFAULT 'user'
    CHECK (trigger IN ('user', 'schedule'));

-- A scheduled replay's result in the inbox. NULL: a watch's or notify_send's.
ALTER TABLE watch_alerts ADD COLUMN routine_id TEXT REFERENCES routines(id) ON DELETE CASCADE;
CREATE INDEX watch_alerts_routine ON watch_alerts (routine_id, id) WHERE routine_id IS NOT NULL;

-- A routine's earlier plans: when the model repairs a step whose element
-- could not be found (the user allowed it for that routine), the plan as it
-- was is kept here with why, and the routine's plan becomes the next version.
CREATE TABLE routine_versions (
    routine_id  TEXT NOT NULL REFERENCES routines(id) ON DELETE CASCADE,
    revision    INTEGER NOT NULL CHECK (revision >= 1),
    plan        TEXT NOT NULL CHECK (json_valid(plan)),
    -- Why it was replaced (the repair: the step, what it was, what it is).
    replaced_because TEXT NOT NULL,
    replaced_at TEXT NOT NULL,
    PRIMARY KEY (routine_id, revision)
);
