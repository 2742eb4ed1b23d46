-- 0004: each response keeps its finish reason, so a reply cut off by the token limit is left
-- unscored (never judged) on every later pass too. Earlier responses take it from their call.

ALTER TABLE responses ADD COLUMN finish_reason TEXT;
UPDATE responses SET finish_reason = (SELECT calls.finish_reason FROM calls WHERE calls.key = responses.call_key);
