-- 0001: runs, the call cache, responses and verdicts. Append-only: never edit, add 0002_*.sql.

CREATE TABLE runs (
    id            TEXT PRIMARY KEY,
    created       TEXT NOT NULL,
    updated       TEXT NOT NULL,
    config        TEXT NOT NULL,           -- EvalConfig as JSON, never a secret
    state         TEXT NOT NULL CHECK (state IN ('running', 'complete', 'interrupted', 'stopped-budget')),
    cobe_version  TEXT NOT NULL,
    judge         TEXT,                    -- the judge whose verdicts the exports show
    judge_prompts TEXT,                    -- its prompt set name
    judge_fingerprint TEXT                 -- its prompt set fingerprint
);

-- every finished provider call; identical calls (same key) are answered from here
CREATE TABLE calls (
    key                  TEXT PRIMARY KEY, -- sha256 of canonical JSON of spec, model, settings, messages
    role                 TEXT NOT NULL CHECK (role IN ('respondent', 'judge')),
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
);

-- the scenarios a run evaluates, so judging later needs no data file
CREATE TABLE scenarios (
    run_id    TEXT NOT NULL REFERENCES runs(id),
    position  INTEGER NOT NULL,
    id        TEXT NOT NULL,
    data      TEXT NOT NULL,               -- Scenario as JSON
    PRIMARY KEY (run_id, id)
);

CREATE TABLE responses (
    id            INTEGER PRIMARY KEY,
    run_id        TEXT NOT NULL REFERENCES runs(id),
    model         TEXT NOT NULL,
    scenario_id   TEXT NOT NULL,
    template      TEXT NOT NULL,
    call_key      TEXT,
    prompt        TEXT,                    -- the last user message, for exports
    text          TEXT,
    error         TEXT,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd      REAL,
    created       TEXT NOT NULL,
    UNIQUE (run_id, model, scenario_id, template)
);

CREATE TABLE verdicts (
    id                 INTEGER PRIMARY KEY,
    run_id             TEXT NOT NULL REFERENCES runs(id),
    response_id        INTEGER NOT NULL REFERENCES responses(id),
    judge              TEXT NOT NULL,
    prompt_set         TEXT NOT NULL,
    prompt_fingerprint TEXT NOT NULL,
    check_name         TEXT NOT NULL,
    verdict            TEXT CHECK (verdict IN ('T', 'F')),
    raw                TEXT,
    p_true             REAL,
    unscored_reason    TEXT,
    error              TEXT,               -- the judge call failed: redone on resume
    judge_settings     TEXT NOT NULL,
    call_key           TEXT,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL,
    created            TEXT NOT NULL,
    UNIQUE (response_id, judge, prompt_fingerprint, check_name)
);
CREATE INDEX verdicts_run ON verdicts (run_id, judge, prompt_fingerprint);

-- one row per command on a run: calls made vs answered from the store, cost and time
CREATE TABLE sessions (
    id           INTEGER PRIMARY KEY,
    run_id       TEXT NOT NULL REFERENCES runs(id),
    command      TEXT NOT NULL,
    started      TEXT NOT NULL,
    finished     TEXT,
    state        TEXT,
    stats        TEXT                      -- JSON: per role calls made / cached, tokens, cost
);
