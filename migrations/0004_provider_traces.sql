-- Provider traces ("raw API logs"): each model call's request body and the
-- response as received (SSE text, or the body), written by agent::trace with
-- every secret redacted first. The Authorization header is never stored.
--   * step_id: the step (model call) this is the trace of, when known;
--   * response: NULL when nothing was received (refused connection...);
--   * status: the HTTP status, NULL when there was no answer;
--   * error: the error Halley reported for the call, NULL on success.

CREATE TABLE provider_traces (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step_id     TEXT REFERENCES steps(id) ON DELETE CASCADE,
    endpoint    TEXT NOT NULL CHECK (endpoint <> ''),
    request     TEXT NOT NULL CHECK (json_valid(request)),
    response    TEXT,
    status      INTEGER CHECK (status IS NULL OR status BETWEEN 100 AND 599),
    error       TEXT,
    created_at  TEXT NOT NULL
);
CREATE INDEX provider_traces_run ON provider_traces (run_id, id);
CREATE INDEX provider_traces_step ON provider_traces (step_id);
