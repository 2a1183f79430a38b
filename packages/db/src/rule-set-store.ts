import type { Queryable, Row, SqlExecutor } from './executor';
import { toJsonPayload } from './json-payload';
import { intColumn, jsonColumn, textColumn, ISO_UTC } from './row';

/** A rule set version to save; the store assigns the version number (latest + 1). */
export interface NewRuleSetVersion {
  name: string;
  /** The document as the user wrote it (YAML or JSON). */
  document: string;
  /** Its parsed, validated form (the caller validates: this package does not know the schema). */
  ruleSet: unknown;
  /** Who saved it (a user name, or `program`). */
  author: string;
  /** Why: the commit message of this version. */
  message: string;
}

export interface RuleSetVersionSummary {
  name: string;
  version: number;
  author: string;
  message: string;
  /** ISO 8601 UTC. */
  createdAt: string;
}

export interface StoredRuleSetVersion extends RuleSetVersionSummary {
  document: string;
  /** As saved; callers validate it again with the rule set schema. */
  ruleSet: unknown;
}

/** The latest version of a rule set and how many it has. */
export interface RuleSetSummary extends RuleSetVersionSummary {
  versions: number;
}

/** Rule sets, append-only: every save is a new version with who, when and why. */
export interface RuleSetStore {
  saveRuleSetVersion(input: NewRuleSetVersion): Promise<StoredRuleSetVersion>;
  /** One row per name (its latest version), by name. */
  listRuleSets(): Promise<RuleSetSummary[]>;
  /** Every version of one name, newest first, without documents. */
  listRuleSetVersions(name: string): Promise<RuleSetVersionSummary[]>;
  /** The given version, or the latest when omitted; null when there is none. */
  getRuleSetVersion(name: string, version?: number): Promise<StoredRuleSetVersion | null>;
}

// Serialises version numbering of one rule set name across processes (any constant works).
const RULE_SET_NAME_LOCK_NAMESPACE = 7_362_044;
const COLUMNS = `name, version, author, message,
  to_char(created_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS created_at`;

function summaryOf(row: Row): RuleSetVersionSummary {
  return {
    name: textColumn(row, 'name'),
    version: intColumn(row, 'version'),
    author: textColumn(row, 'author'),
    message: textColumn(row, 'message'),
    createdAt: textColumn(row, 'created_at'),
  };
}

async function nextVersion(tx: Queryable, name: string): Promise<number> {
  await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [
    RULE_SET_NAME_LOCK_NAMESPACE,
    name,
  ]);
  const [row] = await tx.query(
    'SELECT coalesce(max(version), 0)::int + 1 AS next FROM rule_set_versions WHERE name = $1',
    [name],
  );
  return row ? intColumn(row, 'next') : 1;
}

export function createRuleSetStore(executor: SqlExecutor): RuleSetStore {
  return {
    async saveRuleSetVersion(input: NewRuleSetVersion) {
      const name = input.name.trim();
      if (name === '') throw new Error('a rule set needs a non-empty name');
      return executor.transaction(async (tx) => {
        const version = await nextVersion(tx, name);
        const [row] = await tx.query(
          `INSERT INTO rule_set_versions (name, version, document, rule_set, author, message)
           VALUES ($1, $2, $3, $4::jsonb, $5, $6) RETURNING ${COLUMNS}`,
          [
            name,
            version,
            input.document,
            toJsonPayload(input.ruleSet),
            input.author,
            input.message,
          ],
        );
        if (row === undefined) throw new Error('rule set insert returned no row');
        return { ...summaryOf(row), document: input.document, ruleSet: input.ruleSet };
      });
    },

    async listRuleSets() {
      const rows = await executor.query(
        `SELECT DISTINCT ON (name) ${COLUMNS},
           count(*) OVER (PARTITION BY name)::int AS versions
         FROM rule_set_versions ORDER BY name, version DESC`,
      );
      return rows.map((row): RuleSetSummary => ({
        ...summaryOf(row),
        versions: intColumn(row, 'versions'),
      }));
    },

    async listRuleSetVersions(name: string) {
      const rows = await executor.query(
        `SELECT ${COLUMNS} FROM rule_set_versions WHERE name = $1 ORDER BY version DESC`,
        [name],
      );
      return rows.map(summaryOf);
    },

    async getRuleSetVersion(name: string, version?: number) {
      const [row] =
        version === undefined
          ? await executor.query(
              `SELECT ${COLUMNS}, document, rule_set FROM rule_set_versions
               WHERE name = $1 ORDER BY version DESC LIMIT 1`,
              [name],
            )
          : await executor.query(
              `SELECT ${COLUMNS}, document, rule_set FROM rule_set_versions
               WHERE name = $1 AND version = $2`,
              [name, version],
            );
      if (row === undefined) return null;
      return {
        ...summaryOf(row),
        document: textColumn(row, 'document'),
        ruleSet: jsonColumn(row, 'rule_set'),
      };
    },
  };
}
