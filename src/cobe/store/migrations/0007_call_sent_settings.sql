-- 0007: what each call actually sent, and the thinking it paid for. `sent` is the request's settings as
-- they went on the wire (JSON; messages left out): the model's row in the capability table decides
-- which of the call's settings a model takes, so a setting it refuses is absent here although the call's
-- key (and `request`) still name it. `reasoning_tokens` is the part of output_tokens spent thinking,
-- where the provider reports it. Calls stored before hold NULL and 0.

ALTER TABLE calls ADD COLUMN sent TEXT;
ALTER TABLE calls ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
