-- 0008: prompt caching. Of a call's input_tokens (every prompt token), how many the provider read from
-- its prompt cache and how many it wrote to it: each is priced at its own rate (calls/prices.yaml).
-- Columns are only added, never a table rebuilt, so migrations numbered before this one may add theirs.
ALTER TABLE calls ADD COLUMN cached_input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE calls ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
