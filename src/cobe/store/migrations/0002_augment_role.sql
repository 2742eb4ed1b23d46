-- 0002: dataset augmentation (cobe build augment) records its calls under their own role.
-- SQLite cannot alter a CHECK constraint, so the table is rebuilt; no table references calls.

CREATE TABLE calls_new (
    key                  TEXT PRIMARY KEY, -- sha256 of canonical JSON of spec, model, settings, messages
    role                 TEXT NOT NULL CHECK (role IN ('respondent', 'judge', 'augment')),
    spec                 TEXT NOT NULL,
    request              TEXT NOT NULL,    -- JSON: messages and settings as sent
    response             TEXT,
    finish_reason        TEXT,
    input_tokens         INTEGER NOT NULL DEFAULT 0,
    output_tokens        INTEGER NOT NULL DEFAULT 0,
    latency_s            REAL NOT NULL DEFAULT 0,
    error                TEXT,             -- set when the call failed after every retry
    attempts             INTEGER NOT NULL DEFAULT 1,
    first_token_logprobs TEXT,             -- JSON token -> logprob
    cost_usd             REAL,
    created              TEXT NOT NULL
);;
INSERT INTO calls_new SELECT * FROM calls;
DROP TABLE calls;
ALTER TABLE calls_new RENAME TO calls;
