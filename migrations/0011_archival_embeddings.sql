-- Archival memory found by meaning (issue 32): the embedder the user chose
-- (one row) and, per passage, its processing status and its vector.
--   * memory_embedder: where embeddings come from (Ollama's /api/embed or an
--     OpenAI-compatible /v1/embeddings), the model, the e5-style prefixes,
--     whether `input_type` is sent, whether a non-loopback server was
--     chosen explicitly, and the dimension read from its first answer;
--   * archival_embeddings: one row per passage (made by a trigger, so no
--     insert path forgets it): pending -> embedding -> done, or failed with
--     the reason and when to try again. `embedder` is the key of the
--     settings the vector was made with: a changed model re-embeds.
--     Vectors are little-endian f32, L2-normalised; `gen` grows with every
--     batch written, so a reader's cache knows what is new.
CREATE TABLE memory_embedder (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    api TEXT NOT NULL CHECK (api IN ('ollama', 'openai')),
    base_url TEXT NOT NULL,
    model TEXT NOT NULL,
    query_prefix TEXT NOT NULL DEFAULT '',
    passage_prefix TEXT NOT NULL DEFAULT '',
    input_type INTEGER NOT NULL DEFAULT 0,
    remote INTEGER NOT NULL DEFAULT 0,
    dim INTEGER,
    updated_at TEXT NOT NULL
);

CREATE TABLE archival_embeddings (
    passage_id TEXT PRIMARY KEY REFERENCES archival_passages (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'embedding', 'done', 'failed')),
    embedder TEXT,
    vector BLOB,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    retry_at TEXT,
    gen INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL
);
CREATE INDEX archival_embeddings_status ON archival_embeddings (status, retry_at);
CREATE INDEX archival_embeddings_vectors ON archival_embeddings (agent_id, embedder, status, gen);

INSERT INTO archival_embeddings (passage_id, agent_id, updated_at)
    SELECT id, agent_id, created_at FROM archival_passages;

CREATE TRIGGER archival_embeddings_new AFTER INSERT ON archival_passages BEGIN
    INSERT INTO archival_embeddings (passage_id, agent_id, updated_at) VALUES (new.id, new.agent_id, new.created_at);
END;
