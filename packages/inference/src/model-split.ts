import { z } from 'zod';

/**
 * What a model folder's split.json (written by models/export-examples.ts) says about its data: the
 * task keys on each side, the airline customers of the training tasks, and per dataset the
 * transitions on each side.
 */
export const ModelSplitFile = z.object({
  rule: z.string(),
  heldOutTasks: z.array(z.string()),
  trainTasks: z.array(z.string()),
  trainCustomers: z.array(z.string()),
  transitions: z.record(z.string(), z.object({ train: z.number(), heldOut: z.number() })),
});
export type ModelSplitFile = z.infer<typeof ModelSplitFile>;

/** The trajectory fields a task key is read from, as the store keeps them. */
export interface KeyedFields {
  sourceFormat: string;
  sourceBenchmark: string | null;
  task: string | null;
  metadata: Readonly<Record<string, unknown>>;
}

const TAU_SOURCES: Readonly<Record<string, string>> = {
  'tau2-bench/retail': 'tau2/retail',
  'tau2-bench/airline': 'tau2/airline',
  'tau2-bench/telecom': 'tau2/telecom',
  'tau-bench/airline': 'tau-bench-v1/airline',
};

/** The model's dataset a trajectory comes from (`tau2/retail`, …), null for any other source. */
export function modelDataset(trajectory: KeyedFields): string | null {
  return TAU_SOURCES[trajectory.sourceBenchmark ?? ''] ?? null;
}

/**
 * The key the bundled model's split gives the task a trajectory attempts (`tau2/<domain>/<taskId>`,
 * `tau-bench-v1/airline/<taskId>`), from the fields an import keeps; the training side reads the
 * same keys from its files (a test compares them on every shipped trajectory). Null for anything
 * else: SWE-agent runs are keyed by their file's name, which the store does not keep.
 */
export function modelTaskKey(trajectory: KeyedFields): string | null {
  const dataset = modelDataset(trajectory);
  const taskId = trajectory.metadata['taskId'];
  if (dataset === null) return null;
  if (typeof taskId !== 'string' && typeof taskId !== 'number') return null;
  return `${dataset}/${taskId}`;
}

/** Both airline datasets run their tasks against one database of customers. */
const AIRLINE_DATASETS = new Set(['tau2/airline', 'tau-bench-v1/airline']);

/** tau-bench's user ids: first name, last name, four digits (`sophia_taylor_9065`). */
const USER_ID = /\b[a-z]+_[a-z]+_\d{4}\b/;

/**
 * The customer an airline task is about: the user id its instructions name (tau2 "Your user id is
 * …", tau-bench "You are …"). tau2-bench's airline tasks were carried over from tau-bench's under
 * other ids, and two tasks of one customer read the same reservations and profile: a task whose
 * customer has a task on the training side is not an unseen task, whatever its id.
 */
export function airlineCustomerOf(dataset: string | null, task: string | null): string | null {
  if (dataset === null || !AIRLINE_DATASETS.has(dataset)) return null;
  return USER_ID.exec(task ?? '')?.[0] ?? null;
}

/**
 * Where a trajectory's task lies in a model's data: `held-out` (no trial of the task was trained
 * on; `customerSeen` when its airline customer's records appear in training tasks), `training`
 * (the task, maybe this very trajectory, was trained on: figures on it are not a held-out
 * measure), `outside` (a benchmark or task the model's data does not have), or `unknown` (the
 * split cannot place it: see `why`).
 */
export type SplitSide =
  | { side: 'held-out'; task: string; customerSeen: boolean }
  | { side: 'training'; task: string }
  | { side: 'outside'; task: string | null; benchmark: string | null }
  /**
   * `swe-files`: a SWE-agent run of a model that trained on some (the split names them by file,
   * the store does not); `no-benchmark`: a trajectory that names no benchmark (a converted or
   * re-exported log), which may hold any data, training data included.
   */
  | { side: 'unknown'; task: null; why: 'swe-files' | 'no-benchmark' };

export function splitSide(split: ModelSplitFile, trajectory: KeyedFields): SplitSide {
  const task = modelTaskKey(trajectory);
  if (task === null) {
    if (trajectory.sourceFormat === 'swe-agent' && split.transitions['swe-agent'] !== undefined)
      return { side: 'unknown', task: null, why: 'swe-files' };
    // "Never trained on it" needs a benchmark to hold against the split: a log converted to a
    // generic format may be the very training data with its names taken off.
    if (trajectory.sourceBenchmark === null)
      return { side: 'unknown', task: null, why: 'no-benchmark' };
    return { side: 'outside', task: null, benchmark: trajectory.sourceBenchmark };
  }
  if (split.trainTasks.includes(task)) return { side: 'training', task };
  if (!split.heldOutTasks.includes(task))
    return { side: 'outside', task, benchmark: trajectory.sourceBenchmark };
  const customer = airlineCustomerOf(modelDataset(trajectory), trajectory.task);
  return {
    side: 'held-out',
    task,
    customerSeen: customer !== null && split.trainCustomers.includes(customer),
  };
}
