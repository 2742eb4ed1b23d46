-- web sessions of the review app: only a hash of each session id is stored
CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL
);
-- small settings of the project, e.g. the server secret that signs CSRF tokens
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
