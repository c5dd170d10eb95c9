-- Archival memory: passages an agent stores outside its context window and
-- finds again by full-text search (Letta's archival_memory_insert /
-- archival_memory_search). Core memory (blocks, block_history) is in 0001.
--   * seq is the FTS rowid: an INTEGER PRIMARY KEY, so VACUUM cannot
--     renumber it; id (`passage-<uuid>`) is the public id;
--   * tags are a JSON array of trimmed, lowercased strings (the code
--     normalises them, see store::archival);
--   * archival_fts is an external-content FTS5 index over text, kept in
--     sync by the triggers below. `unicode61 remove_diacritics 2` folds
--     case and Vietnamese tone and vowel marks (khách sạn = khach san);
--     `đ` is a letter of its own, not a mark, so the triggers index it as
--     `d` (the search query is folded the same way in code). Snippets are
--     cut from the original text. Do not use the FTS `rebuild` command: it
--     would index the text without that folding.

CREATE TABLE archival_passages (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE CHECK (id <> ''),
    agent_id    TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    text        TEXT NOT NULL CHECK (trim(text) <> ''),
    tags        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array'),
    created_at  TEXT NOT NULL
);
CREATE INDEX archival_passages_agent ON archival_passages (agent_id, seq);

CREATE VIRTUAL TABLE archival_fts USING fts5 (
    text,
    content = 'archival_passages',
    content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER archival_passages_insert AFTER INSERT ON archival_passages BEGIN
    INSERT INTO archival_fts (rowid, text)
    VALUES (new.seq, replace(replace(new.text, 'đ', 'd'), 'Đ', 'D'));
END;

CREATE TRIGGER archival_passages_delete AFTER DELETE ON archival_passages BEGIN
    INSERT INTO archival_fts (archival_fts, rowid, text)
    VALUES ('delete', old.seq, replace(replace(old.text, 'đ', 'd'), 'Đ', 'D'));
END;

CREATE TRIGGER archival_passages_update AFTER UPDATE OF text ON archival_passages BEGIN
    INSERT INTO archival_fts (archival_fts, rowid, text)
    VALUES ('delete', old.seq, replace(replace(old.text, 'đ', 'd'), 'Đ', 'D'));
    INSERT INTO archival_fts (rowid, text)
    VALUES (new.seq, replace(replace(new.text, 'đ', 'd'), 'Đ', 'D'));
END;
