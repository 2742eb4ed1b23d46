-- 0001: a rating study: items, raters and the admin, their shuffled assignments, answers, sessions.
-- The file name is the migration's recorded name ("0001_study"), the one studies made before these
-- files existed carry in schema_migrations; renaming it would make them unopenable.
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    item_key TEXT NOT NULL UNIQUE,
    scenario_id TEXT NOT NULL,
    template TEXT NOT NULL,
    model TEXT NOT NULL,
    story TEXT NOT NULL,
    query TEXT NOT NULL,
    response TEXT NOT NULL,
    row_json TEXT NOT NULL
);
CREATE TABLE principals (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL CHECK (role IN ('rater', 'admin')),
    token_hash TEXT NOT NULL
);
CREATE TABLE assignments (
    rater_id INTEGER NOT NULL REFERENCES principals(id),
    item_id INTEGER NOT NULL REFERENCES items(id),
    position INTEGER NOT NULL,
    PRIMARY KEY (rater_id, item_id),
    UNIQUE (rater_id, position)
);
CREATE TABLE ratings (
    rater_id INTEGER NOT NULL REFERENCES principals(id),
    item_id INTEGER NOT NULL REFERENCES items(id),
    label TEXT NOT NULL CHECK (label IN ('Yes', 'No', 'Other')),
    comment TEXT NOT NULL DEFAULT '',
    answered_at TEXT NOT NULL,
    PRIMARY KEY (rater_id, item_id),
    FOREIGN KEY (rater_id, item_id) REFERENCES assignments(rater_id, item_id)
);
CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    created_at TEXT NOT NULL
);
