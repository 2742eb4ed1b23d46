-- 0002: sessions expire after a quiet spell as well as after a fixed time; a link can be revoked.
-- Named "0002_study", as studies made before these files existed record it.
ALTER TABLE sessions ADD COLUMN last_seen_at TEXT;
ALTER TABLE principals ADD COLUMN revoked_at TEXT;
CREATE INDEX sessions_principal ON sessions(principal_id);
