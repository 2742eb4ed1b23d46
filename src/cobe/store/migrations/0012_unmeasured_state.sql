-- 0011: one more way a run can end. `unmeasured`: every item finished, but a model of the run has no scored
-- row (every answer empty, unjudgeable or unscored), so its accuracy measures nothing; a report gives it no
-- rank. SQLite cannot alter a CHECK constraint, so the table is rebuilt as 0005 rebuilt it (foreign keys are
-- off while migrations run; the tables that reference runs resolve to the new table once it takes the name).

CREATE TABLE runs_new (
    id            TEXT PRIMARY KEY,
    created       TEXT NOT NULL,
    updated       TEXT NOT NULL,
    config        TEXT NOT NULL,           -- EvalConfig as JSON, never a secret
    state         TEXT NOT NULL CHECK (state IN ('running', 'complete', 'incomplete', 'interrupted',
                                                 'stopped-budget', 'stopped-auth', 'unmeasured')),
    cobe_version  TEXT NOT NULL,
    judge         TEXT,                    -- the judge whose verdicts the exports show
    judge_prompts TEXT,                    -- its prompt set name
    judge_fingerprint TEXT,                -- its prompt set fingerprint
    judge_members TEXT                     -- JSON of a panel's members and samples (0006); NULL for one judge
);
INSERT INTO runs_new (id, created, updated, config, state, cobe_version, judge, judge_prompts, judge_fingerprint,
    judge_members)
SELECT id, created, updated, config, state, cobe_version, judge, judge_prompts, judge_fingerprint, judge_members
FROM runs;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
