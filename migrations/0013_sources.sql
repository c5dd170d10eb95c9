-- Sources (issue 32, the data model document's section 4): a source is a
-- knowledge base of the user's files attached to an agent ("Visa Nhật
-- 2026"); each file in it is read to text, cut into overlapping passages
-- and embedded, so archival search finds it by words and by meaning.
--   * sources: name (unique per agent, case aside),
--     description, when made;
--   * source_files: a stored file (files) put into a source, and how far
--     its reading went: pending -> extracting -> extracted (its passages
--     then carry the embedding status), or skipped (an image: no OCR) or
--     failed, each with the reason. `pages` is what the reading found;
--   * the passages are archival passages (one FTS index, one embedding
--     worker, one search) carrying the source, the file and the page they
--     came from. Deleting a source, or a file from it, deletes them (the
--     stored file itself stays in the files store).
CREATE TABLE sources (
    id          TEXT PRIMARY KEY NOT NULL,
    agent_id    TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    name        TEXT NOT NULL CHECK (trim(name) <> '' AND name = trim(name)),
    -- The name lowercased in code (Vietnamese letters too: `HỒ SƠ` is
    -- `hồ sơ`, which SQLite's NOCASE would not see), NFC.
    name_key    TEXT NOT NULL CHECK (name_key <> ''),
    description TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    UNIQUE (agent_id, name_key)
);

CREATE TABLE source_files (
    source_id  TEXT NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    file_id    TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    status     TEXT NOT NULL DEFAULT 'pending'
               CHECK (status IN ('pending', 'extracting', 'extracted', 'skipped', 'failed')),
    error      TEXT,
    pages      INTEGER,
    passages   INTEGER NOT NULL DEFAULT 0,
    added_at   TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (source_id, file_id)
) WITHOUT ROWID;
CREATE INDEX source_files_status ON source_files (status, updated_at);

ALTER TABLE archival_passages ADD COLUMN source_id TEXT REFERENCES sources(id) ON DELETE CASCADE;
ALTER TABLE archival_passages ADD COLUMN file_id TEXT;
-- 1-based; NULL for a file without pages (text, HTML).
ALTER TABLE archival_passages ADD COLUMN page INTEGER;
CREATE INDEX archival_passages_source ON archival_passages (source_id, file_id);

CREATE TRIGGER source_files_forget AFTER DELETE ON source_files BEGIN
    DELETE FROM archival_passages WHERE source_id = old.source_id AND file_id = old.file_id;
END;
