-- review-app sessions expire (the policy in cobe.web.access): idle time counts from the last request
ALTER TABLE sessions ADD COLUMN last_seen_at TEXT;
-- a revoked link signs nobody in until `cobe curate links --rotate` issues a new one
ALTER TABLE reviewers ADD COLUMN revoked_at TEXT;
CREATE INDEX sessions_reviewer ON sessions(reviewer);
