-- an audit question the expert left unanswered is stored as missing (NULL), never as a score;
-- SQLite cannot drop NOT NULL in place, so the table is rebuilt with its rows
CREATE TABLE audit_ratings_v4 (
    audit_id INTEGER NOT NULL,
    expert TEXT NOT NULL,
    item_id TEXT NOT NULL,
    coherence INTEGER CHECK (coherence BETWEEN 1 AND 5),
    grammar INTEGER CHECK (grammar BETWEEN 1 AND 5),
    validity INTEGER CHECK (validity BETWEEN 1 AND 5),
    at TEXT NOT NULL,
    PRIMARY KEY (audit_id, expert, item_id)
);
INSERT INTO audit_ratings_v4 (audit_id, expert, item_id, coherence, grammar, validity, at)
    SELECT audit_id, expert, item_id, coherence, grammar, validity, at FROM audit_ratings;
DROP TABLE audit_ratings;
ALTER TABLE audit_ratings_v4 RENAME TO audit_ratings;
