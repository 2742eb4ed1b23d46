-- 0010: a call's key names the endpoint it was sent to (the provider's base URL, never a key), so a spec
-- pointed at another server is never answered with the first one's replies.
-- A store that already held calls keyed them without an endpoint: it is marked here, and each
-- spec's calls are re-keyed for the endpoint it uses the first time it is seen (store/endpoints.py), so
-- such a store resumes as it always did.
CREATE TABLE store_marks (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO store_marks (name, value) SELECT 'keys_without_endpoint', '1' WHERE EXISTS (SELECT 1 FROM calls);

-- where each spec's calls last went: a command that finds the spec pointing elsewhere says so
CREATE TABLE endpoints (
    spec     TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    updated  TEXT NOT NULL
);
