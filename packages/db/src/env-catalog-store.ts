import type { Row, SqlExecutor } from './executor';
import { toJsonPayload } from './json-payload';
import { jsonColumn, textColumn, ISO_UTC } from './row';

/** A world the environment server built and serves, as the recipe to build it again. */
export interface EnvWorldRecord {
  id: string;
  /** What the spec describes, e.g. `trajectory` (reconstructed from a stored trajectory). */
  kind: string;
  description: string;
  /** The recipe; callers validate it (this package does not know world kinds). */
  spec: unknown;
}

/** A task that passed its gates, with the report it was admitted with. */
export interface EnvTaskRecord {
  id: string;
  worldId: string;
  /** The task document; callers validate it again with the task schema. */
  task: unknown;
  gateReport: unknown;
}

export interface StoredEnvWorld extends EnvWorldRecord {
  /** ISO 8601 UTC. */
  createdAt: string;
}

export interface StoredEnvTask extends EnvTaskRecord {
  createdAt: string;
  updatedAt: string;
}

/** Worlds and tasks of the environment server. Saving an existing id replaces it. */
export interface EnvCatalogStore {
  saveEnvWorld(world: EnvWorldRecord): Promise<void>;
  /** Oldest first, so a restart adds them in the order they were first built. */
  listEnvWorlds(): Promise<StoredEnvWorld[]>;
  saveEnvTask(task: EnvTaskRecord): Promise<void>;
  /** Oldest first. */
  listEnvTasks(): Promise<StoredEnvTask[]>;
  getEnvTask(id: string): Promise<StoredEnvTask | null>;
  /** False when there was no such task. */
  deleteEnvTask(id: string): Promise<boolean>;
}

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${ISO_UTC}) AS ${column}`;
const TASK_COLUMNS = `id, world_id, task, gate_report, ${iso('created_at')}, ${iso('updated_at')}`;

function taskOf(row: Row): StoredEnvTask {
  return {
    id: textColumn(row, 'id'),
    worldId: textColumn(row, 'world_id'),
    task: jsonColumn(row, 'task'),
    gateReport: jsonColumn(row, 'gate_report'),
    createdAt: textColumn(row, 'created_at'),
    updatedAt: textColumn(row, 'updated_at'),
  };
}

export function createEnvCatalogStore(executor: SqlExecutor): EnvCatalogStore {
  return {
    async saveEnvWorld(world) {
      await executor.query(
        `INSERT INTO env_worlds (id, kind, description, spec) VALUES ($1, $2, $3, $4::jsonb)
         ON CONFLICT (id) DO UPDATE
           SET kind = excluded.kind, description = excluded.description, spec = excluded.spec`,
        [world.id, world.kind, world.description, toJsonPayload(world.spec)],
      );
    },

    async listEnvWorlds() {
      const rows = await executor.query(
        `SELECT id, kind, description, spec, ${iso('created_at')}
         FROM env_worlds ORDER BY created_at, id`,
      );
      return rows.map((row): StoredEnvWorld => ({
        id: textColumn(row, 'id'),
        kind: textColumn(row, 'kind'),
        description: textColumn(row, 'description'),
        spec: jsonColumn(row, 'spec'),
        createdAt: textColumn(row, 'created_at'),
      }));
    },

    async saveEnvTask(task) {
      // A task saved again (edited, re-gated) keeps its first creation time.
      await executor.query(
        `INSERT INTO env_tasks (id, world_id, task, gate_report) VALUES ($1, $2, $3::jsonb, $4::jsonb)
         ON CONFLICT (id) DO UPDATE
           SET world_id = excluded.world_id, task = excluded.task,
               gate_report = excluded.gate_report, updated_at = now()`,
        [task.id, task.worldId, toJsonPayload(task.task), toJsonPayload(task.gateReport)],
      );
    },

    async listEnvTasks() {
      const rows = await executor.query(
        `SELECT ${TASK_COLUMNS} FROM env_tasks ORDER BY created_at, id`,
      );
      return rows.map(taskOf);
    },

    async getEnvTask(id) {
      const [row] = await executor.query(`SELECT ${TASK_COLUMNS} FROM env_tasks WHERE id = $1`, [
        id,
      ]);
      return row === undefined ? null : taskOf(row);
    },

    async deleteEnvTask(id) {
      const rows = await executor.query('DELETE FROM env_tasks WHERE id = $1 RETURNING id', [id]);
      return rows.length > 0;
    },
  };
}
