-- 0011: the part of a run a verdict set covers, where a re-judge took one (`cobe judge RUN --ids … --sample N
-- --limit N --model SPEC`): the options as JSON (ids, sample, seed, limit, models). NULL: the whole run, as
-- every set judged before this column existed.
ALTER TABLE verdict_sets ADD COLUMN part TEXT;
