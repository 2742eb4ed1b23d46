-- 0003: judge calls sent through a provider's batch API. A batch and the call keys it covers
-- are recorded before cobe waits on it, so a killed run resumes polling instead of resubmitting.

CREATE TABLE batches (
    id             TEXT PRIMARY KEY,       -- the provider's batch id
    spec           TEXT NOT NULL,          -- the judge spec whose client submitted it
    state          TEXT NOT NULL,          -- the provider's status: validating, in_progress, completed, failed, ...
    created        TEXT NOT NULL,
    updated        TEXT NOT NULL,
    request_count  INTEGER NOT NULL,
    input_file_id  TEXT,
    output_file_id TEXT,
    error_file_id  TEXT
);
-- the calls a batch answers: key as in calls.key, request as calls.request will record it
CREATE TABLE batch_calls (
    batch_id TEXT NOT NULL REFERENCES batches(id),
    key      TEXT NOT NULL,
    request  TEXT NOT NULL,
    PRIMARY KEY (batch_id, key)
);
CREATE INDEX batches_open ON batches (spec, state)
