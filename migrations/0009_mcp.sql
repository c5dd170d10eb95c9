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
    -- http: the streamable HTTP endpoint and the headers sent with it.
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
