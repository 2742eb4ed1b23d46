-- 0005: two more ways a run can end. `incomplete`: every item was tried but some calls failed
-- after their retries (the same command resumes them); `stopped-auth`: a provider refused the
-- API key on several calls in a row. SQLite cannot alter a CHECK constraint, so the table is
-- rebuilt (foreign keys are off while migrations run; the tables that reference runs keep
-- their references, which resolve to the new table once it takes the old name).

CREATE TABLE runs_new (
    id            TEXT PRIMARY KEY,
    created       TEXT NOT NULL,
    updated       TEXT NOT NULL,
    config        TEXT NOT NULL,           -- EvalConfig as JSON, never a secret
    state         TEXT NOT NULL CHECK (state IN ('running', 'complete', 'incomplete', 'interrupted',
                                                 'stopped-budget', 'stopped-auth')),
    cobe_version  TEXT NOT NULL,
    judge         TEXT,                    -- the judge whose verdicts the exports show
    judge_prompts TEXT,                    -- its prompt set name
    judge_fingerprint TEXT                 -- its prompt set fingerprint
);
INSERT INTO runs_new SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
