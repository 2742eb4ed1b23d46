-- 0009: respondent repeats and a run's verdict sets.
-- A response keeps its epoch (1: the first answer to an item, as every earlier row; 2 and up: `--epochs K`),
-- so K answers to one item sit side by side, each judged on its own. SQLite cannot alter a UNIQUE
-- constraint, so the table is rebuilt with every id kept (verdicts point at them; foreign keys are off
-- while migrations run, and the references resolve to the new table once it takes the old name).

CREATE TABLE responses_new (
    id            INTEGER PRIMARY KEY,
    run_id        TEXT NOT NULL REFERENCES runs(id),
    model         TEXT NOT NULL,
    scenario_id   TEXT NOT NULL,
    template      TEXT NOT NULL,
    epoch         INTEGER NOT NULL DEFAULT 1,
    call_key      TEXT,
    prompt        TEXT,
    text          TEXT,
    error         TEXT,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd      REAL,
    created       TEXT NOT NULL,
    finish_reason TEXT,
    UNIQUE (run_id, model, scenario_id, template, epoch)
);
INSERT INTO responses_new (id, run_id, model, scenario_id, template, call_key, prompt, text, error, input_tokens,
    output_tokens, cost_usd, created, finish_reason)
SELECT id, run_id, model, scenario_id, template, call_key, prompt, text, error, input_tokens,
    output_tokens, cost_usd, created, finish_reason
FROM responses;
DROP TABLE responses;
ALTER TABLE responses_new RENAME TO responses;

-- Every judge (or panel) a run's exports have shown: one row per verdict set, so a re-judge never loses
-- the name of the one it replaced. The set shown now is the one runs.judge / judge_fingerprint name.
-- Verdicts of a judge never shown (a member of a panel, `judges diff`) are sets too, read from verdicts.
CREATE TABLE verdict_sets (
    run_id        TEXT NOT NULL REFERENCES runs(id),
    judge         TEXT NOT NULL,           -- the judge's spec, or the panel's name
    judge_prompts TEXT NOT NULL,           -- its prompt set name
    identity      TEXT NOT NULL,           -- runs.judge_fingerprint: the prompt fingerprint, or panel-<hash>
    members       TEXT,                    -- runs.judge_members; NULL for one judge asked once
    shown         TEXT NOT NULL,           -- when its verdicts were last made the run's current ones
    PRIMARY KEY (run_id, judge, identity)
);
INSERT INTO verdict_sets (run_id, judge, judge_prompts, identity, members, shown)
SELECT id, judge, coalesce(judge_prompts, ''), judge_fingerprint, judge_members, updated
FROM runs WHERE judge IS NOT NULL AND judge_fingerprint IS NOT NULL;
