-- items: every scenario of the project, whatever its stage, with its lineage
CREATE TABLE items (
    id TEXT PRIMARY KEY,
    core_id INTEGER NOT NULL,
    variation INTEGER NOT NULL,
    status TEXT NOT NULL,
    is_core INTEGER NOT NULL DEFAULT 0,
    parent_id TEXT REFERENCES items(id),
    source TEXT NOT NULL,
    model TEXT,
    prompt_fingerprint TEXT,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX items_status ON items(status);
CREATE INDEX items_parent ON items(parent_id);

-- every status change, with who made it, when and why
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    item_id TEXT NOT NULL,
    from_status TEXT,
    to_status TEXT NOT NULL,
    actor TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL
);
CREATE INDEX events_item ON events(item_id);

-- generated outputs that never became items, one row per rejected attempt
CREATE TABLE augment_rejects (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    core_item TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_fingerprint TEXT NOT NULL,
    at TEXT NOT NULL
);

-- the latest automatic-check results, shown to reviewers beside each item
CREATE TABLE check_results (
    item_id TEXT NOT NULL,
    check_name TEXT NOT NULL,
    ok INTEGER NOT NULL,
    reason TEXT NOT NULL,
    run_at TEXT NOT NULL
);
CREATE INDEX check_results_item ON check_results(item_id);

CREATE TABLE reviewers (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE reviews (
    item_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    decision TEXT NOT NULL,
    comment TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL,
    PRIMARY KEY (item_id, reviewer)
);

-- an admin's decision on an item the two reviewers disagreed on
CREATE TABLE resolutions (
    item_id TEXT PRIMARY KEY,
    actor TEXT NOT NULL,
    decision TEXT NOT NULL,
    reason TEXT NOT NULL,
    at TEXT NOT NULL
);

CREATE TABLE audits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    n INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    experts INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE audit_items (
    audit_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    PRIMARY KEY (audit_id, item_id)
);
CREATE TABLE audit_ratings (
    audit_id INTEGER NOT NULL,
    expert TEXT NOT NULL,
    item_id TEXT NOT NULL,
    coherence INTEGER NOT NULL,
    grammar INTEGER NOT NULL,
    validity INTEGER NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (audit_id, expert, item_id)
);
CREATE TABLE audit_overall (
    audit_id INTEGER NOT NULL,
    expert TEXT NOT NULL,
    diversity INTEGER,
    feedback TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL,
    PRIMARY KEY (audit_id, expert)
);

CREATE TABLE releases (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    out TEXT NOT NULL,
    public_share REAL NOT NULL,
    seed INTEGER NOT NULL,
    items INTEGER NOT NULL,
    at TEXT NOT NULL
);
-- the side of the public/private split each released item is on
CREATE TABLE splits (
    item_id TEXT PRIMARY KEY,
    split TEXT NOT NULL,
    release_id INTEGER NOT NULL
);
