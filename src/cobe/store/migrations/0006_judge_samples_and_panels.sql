-- 0006: judge panels and repeated judge samples. A verdict row keeps its sample index (0: the first
-- ask of a check, as every earlier row; 1 and up: --judge-samples), so one judge's samples of one check
-- sit side by side. SQLite cannot alter a UNIQUE constraint, so the table is rebuilt; nothing
-- references verdicts. The run also records the judges (and samples) whose verdicts its exports show.

CREATE TABLE verdicts_new (
    id                 INTEGER PRIMARY KEY,
    run_id             TEXT NOT NULL REFERENCES runs(id),
    response_id        INTEGER NOT NULL REFERENCES responses(id),
    judge              TEXT NOT NULL,
    prompt_set         TEXT NOT NULL,
    prompt_fingerprint TEXT NOT NULL,
    check_name         TEXT NOT NULL,
    sample             INTEGER NOT NULL DEFAULT 0,
    verdict            TEXT CHECK (verdict IN ('T', 'F')),
    raw                TEXT,
    p_true             REAL,
    unscored_reason    TEXT,
    error              TEXT,
    judge_settings     TEXT NOT NULL,
    call_key           TEXT,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL,
    created            TEXT NOT NULL,
    UNIQUE (response_id, judge, prompt_fingerprint, check_name, sample)
);
INSERT INTO verdicts_new (id, run_id, response_id, judge, prompt_set, prompt_fingerprint, check_name, verdict, raw,
    p_true, unscored_reason, error, judge_settings, call_key, input_tokens, output_tokens, cost_usd, created)
SELECT id, run_id, response_id, judge, prompt_set, prompt_fingerprint, check_name, verdict, raw,
    p_true, unscored_reason, error, judge_settings, call_key, input_tokens, output_tokens, cost_usd, created
FROM verdicts;
DROP TABLE verdicts;
ALTER TABLE verdicts_new RENAME TO verdicts;
CREATE INDEX verdicts_run ON verdicts (run_id, judge, prompt_fingerprint);
-- JSON {"members": [{"spec", "prompt_set", "fingerprint"}, ...], "samples": K}; NULL: the one judge of the columns above
ALTER TABLE runs ADD COLUMN judge_members TEXT;
