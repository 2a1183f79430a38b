import type { Migration } from './migration';

/**
 * Steps in pages. A row per step cost PGlite about 50 µs of its one thread whatever the row held,
 * and keeping a GIN entry per step's lexeme more (benchmarks/README.md, "Import into the store"),
 * so a trajectory's steps are stored as pages of up to 64: the steps as one raw-deflated JSON array
 * (`body`; `body_json` for pages this migration made from old rows), their timeline markers, and
 * one search vector per step, exactly the one the steps table held.
 *
 * Search stays per step: a page matches a query when one of its steps' vectors does
 * (`unnest(search)`), so results are those of the steps table. The GIN index is on `lexemes`, every
 * lexeme of the page without positions: a page whose lexemes cannot satisfy the query (phrases
 * relaxed to AND) is skipped without reading its vectors (sql-store.ts, `stepSearchCondition`).
 */
export const stepPages: Migration = {
  version: 15,
  name: 'step-pages',
  sql: `
CREATE TABLE step_pages (
  trajectory_id bigint NOT NULL REFERENCES trajectories (id) ON DELETE CASCADE,
  first_idx integer NOT NULL,
  step_count integer NOT NULL CHECK (step_count >= 1),
  markers json NOT NULL,
  body bytea,
  body_json json,
  search tsvector[] NOT NULL,
  lexemes tsvector NOT NULL,
  PRIMARY KEY (trajectory_id, first_idx),
  CHECK (body IS NOT NULL OR body_json IS NOT NULL)
);
-- Already compressed: pglz would only spend time failing to shrink it.
ALTER TABLE step_pages ALTER COLUMN body SET STORAGE EXTERNAL;
ALTER TABLE step_pages ALTER COLUMN search SET STORAGE EXTERNAL;
CREATE INDEX step_pages_lexemes ON step_pages USING gin (lexemes)
  WITH (gin_pending_list_limit = 262144);

INSERT INTO step_pages (trajectory_id, first_idx, step_count, markers, body_json, search, lexemes)
SELECT s.trajectory_id, min(s.idx), count(*)::int,
  json_agg(json_build_array(s.actor, s.action_type,
    left(btrim(regexp_replace(left(CASE s.action_type
        WHEN 'tool_call' THEN s.action->>'name'
        WHEN 'browser' THEN s.action->>'name'
        WHEN 'command' THEN s.action->>'command'
        WHEN 'keystrokes' THEN s.action->>'keys'
        ELSE s.action->>'text' END, 400), '\\s+', ' ', 'g')), 80),
    s.observation_kind, s.reward) ORDER BY s.idx),
  json_agg(json_build_object('index', s.idx, 'actor', s.actor, 'action', s.action,
    'observation', CASE WHEN s.observation_kind IS NULL THEN NULL ELSE json_build_object(
      'kind', s.observation_kind, 'content', coalesce(s.observation_content, ''),
      'callId', s.observation_call_id) END,
    'reasoning', s.reasoning, 'reward', s.reward, 'timing', s.timing, 'metadata', s.metadata)
    ORDER BY s.idx),
  array_agg(s.search ORDER BY s.idx),
  array_to_tsvector(ARRAY(SELECT DISTINCT l FROM unnest(array_agg(s.search)) v,
    unnest(tsvector_to_array(v)) l))
FROM steps s
GROUP BY s.trajectory_id, s.idx / 64;

DROP TABLE steps;
`,
};
