import type { Migration } from './migration';

/**
 * Rule sets are append-only: saving one writes its next version and never changes an old one, so a
 * reward or a preview can always name the exact version it used. The document is kept as the user
 * wrote it (YAML or JSON, comments and all) beside its parsed form, which is what scoring reads.
 */
export const ruleSets: Migration = {
  version: 4,
  name: 'rule-sets',
  sql: `
CREATE TABLE rule_set_versions (
  name text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  document text NOT NULL,
  rule_set jsonb NOT NULL,
  author text NOT NULL,
  message text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, version)
);
`,
};
