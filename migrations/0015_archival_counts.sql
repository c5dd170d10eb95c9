-- What a memory search must know per agent without counting its passages
-- (issue 32: a search over 100,000 passages counted them three times, about
-- 30 ms each): how many archival passages the agent has, and a version that
-- every change to a passage or to its embedding row bumps. The vector cache
-- (`store/embeddings.rs`) keeps its vectors while the version stands, and
-- "N passages are not embedded yet" is `passages` minus the cached set's
-- rows. Kept by triggers, so no write path can forget them.
CREATE TABLE archival_counts (
    agent_id TEXT PRIMARY KEY NOT NULL,
    passages INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 0
);

INSERT INTO archival_counts (agent_id, passages, version)
    SELECT agent_id, count(*), 1 FROM archival_passages GROUP BY agent_id;

CREATE TRIGGER archival_counts_new AFTER INSERT ON archival_passages BEGIN
    INSERT OR IGNORE INTO archival_counts (agent_id) VALUES (new.agent_id);
    UPDATE archival_counts SET passages = passages + 1, version = version + 1 WHERE agent_id = new.agent_id;
END;

CREATE TRIGGER archival_counts_gone AFTER DELETE ON archival_passages BEGIN
    UPDATE archival_counts SET passages = passages - 1, version = version + 1 WHERE agent_id = old.agent_id;
END;

CREATE TRIGGER archival_counts_moved AFTER UPDATE OF agent_id ON archival_passages
WHEN new.agent_id IS NOT old.agent_id BEGIN
    UPDATE archival_counts SET passages = passages - 1, version = version + 1 WHERE agent_id = old.agent_id;
    INSERT OR IGNORE INTO archival_counts (agent_id) VALUES (new.agent_id);
    UPDATE archival_counts SET passages = passages + 1, version = version + 1 WHERE agent_id = new.agent_id;
END;

CREATE TRIGGER archival_counts_embedded AFTER UPDATE ON archival_embeddings BEGIN
    UPDATE archival_counts SET version = version + 1 WHERE agent_id IN (old.agent_id, new.agent_id);
END;

CREATE TRIGGER archival_counts_unembedded AFTER DELETE ON archival_embeddings BEGIN
    UPDATE archival_counts SET version = version + 1 WHERE agent_id = old.agent_id;
END;
