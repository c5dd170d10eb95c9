-- MCP servers Halley attaches as a client (`halley mcp add`), and the tools
-- each one listed when it was added. Their tools are offered to the model
-- as `<server>__<tool>`; the server runs only while Halley needs it.
-- (Numbered 0009 so it never collides with a 0008 added alongside.)

CREATE TABLE mcp_servers (
    id          TEXT PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL UNIQUE CHECK (name <> '' AND instr(name, '__') = 0),
    transport   TEXT NOT NULL CHECK (transport IN ('stdio', 'http')),
    -- stdio: the program and its arguments; http: NULL.
    command     TEXT,
    args        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(args)),
    -- http: the streamable HTTP endpoint and the names of the headers sent
    -- with it (their values, tokens and keys, are in the OS keyring).
    url         TEXT,
    headers     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(headers)),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    CHECK ((transport = 'stdio') = (command IS NOT NULL)),
    CHECK ((transport = 'http') = (url IS NOT NULL))
);

CREATE TABLE mcp_tools (
    id           TEXT PRIMARY KEY NOT NULL,
    server_id    TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
    name         TEXT NOT NULL CHECK (name <> ''),
    description  TEXT NOT NULL DEFAULT '',
    input_schema TEXT NOT NULL CHECK (json_valid(input_schema)),
    -- The server's own annotations, kept as it gave them; never trusted.
    annotations  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(annotations)),
    UNIQUE (server_id, name)
);
CREATE INDEX mcp_tools_server ON mcp_tools (server_id);

-- A tool call's executor may now be an MCP server (`mcp`). SQLite cannot
-- change a CHECK in place: the table is rebuilt with its rows.
CREATE TABLE tool_calls_new (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step_id     TEXT REFERENCES steps(id) ON DELETE CASCADE,
    call_id     TEXT NOT NULL,
    tool        TEXT NOT NULL,
    arguments   TEXT NOT NULL CHECK (json_valid(arguments)),
    reasoning   TEXT,
    executor    TEXT NOT NULL CHECK (executor IN ('builtin', 'client', 'implicit', 'mcp', 'none')),
    status      TEXT NOT NULL CHECK (status IN ('ok', 'error', 'cancelled')),
    error_code  TEXT,
    duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
    started_at  TEXT NOT NULL
);
INSERT INTO tool_calls_new SELECT * FROM tool_calls;
DROP TABLE tool_calls;
ALTER TABLE tool_calls_new RENAME TO tool_calls;
CREATE INDEX tool_calls_run ON tool_calls (run_id, id);
