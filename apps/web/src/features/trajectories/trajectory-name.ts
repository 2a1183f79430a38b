import type { TrajectorySummary } from '@terrarium/schema';

/**
 * Names for a trajectory list, so rows tell apart at a glance: the file-like id without its folders
 * (SWE-agent ids are paths whose last part names the instance), and the first line of the task that
 * says something (recorded tasks often open with template headings such as "Domain:" or "ISSUE:").
 */
export function displayId(externalId: string): string {
  const last =
    externalId
      .split('/')
      .filter((part) => part !== '')
      .at(-1) ?? externalId;
  return last.replace(/\.(traj|json|jsonl)$/, '');
}

// A heading line: short and ending with a colon ("Domain:", "Reason for call:", "ISSUE:").
const HEADING = /^[^\n]{0,100}:$/;
// tau2's task template puts the domain name alone under "Domain:".
const VALUE_UNDER = new Set(['domain:']);

export function taskHeadline(task: string | null): string | null {
  if (task === null) return null;
  const lines = task.split('\n').map((line) => line.trim());
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (line === '' || HEADING.test(line)) continue;
    const previous = lines[index - 1]?.toLowerCase() ?? '';
    if (VALUE_UNDER.has(previous)) continue;
    return line;
  }
  return lines.find((line) => line !== '') ?? null;
}

// SWE-agent names a run `model__dataset__config__t-T__p-P__c-C__install-N__INSTANCE`; the instance
// is what tells runs apart, the rest is the setup (kept as detail: several configs share one).
const SWE_AGENT_RUN = /^(.+?__(?:t-[\d.]+__p-[\d.]+__c-[\d.]+__)?install-\d+)__(.+)$/;
const SWE_AGENT_SETTINGS = /^(.+?__t-[\d.]+__p-[\d.]+__c-[\d.]+)__(.+)$/;
// A curriculum rollout: `<run>/g<generation>/<lineage>/p<probe>`, `/sim` for its simulated twin
// (rolloutExternalId in packages/curriculum); its last part alone (`p0`) repeats in every lineage.
const ROLLOUT = /^([^/]+)\/g(\d+)\/([^/]+)\/p(\d+)(\/sim)?$/;
// A "What if" fork: `<parent id>~fork@<step>~<8 hex>` (fork-trajectory in packages/api).
const FORK = /^(.+)~fork@(\d+)~[0-9a-f]{8}$/;
// A bare UUID or long hex hash says nothing to a reader.
const OPAQUE = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,})$/i;

export interface TrajectoryName {
  /** What tells this trajectory apart: the task and trial, or the instance id. */
  name: string;
  /** The rest of the source's id when it says something more (a run's settings), else null. */
  detail: string | null;
}

/**
 * Whether an id spells out its task id as a whole part (`task-40-trial-0`), not as a few digits of
 * a hash that happen to match (a fork's random suffix `…~96b40a83` does not name task 40).
 */
function namesTask(id: string, taskId: string): boolean {
  const escaped = taskId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:^|[^0-9A-Za-z])${escaped}(?:$|[^0-9A-Za-z])`).test(id);
}

/**
 * The distinguishing name of a trajectory: the source's task id and trial where its format records
 * them (tau2-bench ids are UUIDs), the instance id of a SWE-agent run (its file name leads with the
 * model and settings), otherwise the id without its folders.
 */
export function trajectoryName(
  row: Pick<TrajectorySummary, 'externalId' | 'taskId' | 'trial'>,
): TrajectoryName {
  const fork = FORK.exec(row.externalId);
  if (fork !== null && fork[1] !== undefined) {
    const parent = trajectoryName({ ...row, externalId: fork[1] });
    return { name: `${parent.name} · fork at step ${fork[2] ?? ''}`, detail: parent.detail };
  }
  const id = displayId(row.externalId);
  if (row.taskId !== null) {
    const name = `task ${row.taskId}${row.trial === null ? '' : ` · trial ${row.trial}`}`;
    if (OPAQUE.test(id) || !namesTask(id, row.taskId)) {
      return { name, detail: OPAQUE.test(id) ? null : id };
    }
    // tau-bench v1 spells the same pair in its id (`task-0-trial-0`): one spelling in every list
    // (walk 50 saw both side by side).
    if (id === `task-${row.taskId}${row.trial === null ? '' : `-trial-${row.trial}`}`) {
      return { name, detail: null };
    }
  }
  const rollout = ROLLOUT.exec(row.externalId);
  if (rollout !== null) {
    const [, runId = '', generation = '', lineage = '', probe = '', simulated] = rollout;
    return {
      name: `${lineage} · generation ${generation} · probe ${probe}${simulated === undefined ? '' : ' · simulated'}`,
      detail: `curriculum run ${runId}`,
    };
  }
  const repeated = repeatedInstance(id);
  if (repeated !== null) return repeated;
  const run = SWE_AGENT_RUN.exec(id) ?? SWE_AGENT_SETTINGS.exec(id);
  if (run !== null && run[1] !== undefined && run[2] !== undefined) {
    return { name: run[2], detail: withoutInstance(run[1], run[2]) };
  }
  const folder = runFolder(row.externalId);
  return { name: id, detail: folder === null ? null : withoutInstance(folder, id) };
}

/**
 * A flattened SWE-agent path (`<run folder>__<instance>`, as the demo ships them) whose run folder
 * names the instance too (`replay__marshmallow-code__marshmallow-1867__function_calling__…`): the
 * longest `__`-separated tail that the rest repeats is the instance. Runs named otherwise (with
 * `_install_from_source` after `install-1`) defeat the settings patterns, not this.
 */
function repeatedInstance(id: string): TrajectoryName | null {
  const parts = id.split('__');
  for (let cut = 1; cut < parts.length; cut++) {
    const instance = parts.slice(cut).join('__');
    const run = parts.slice(0, cut).join('__');
    if (run.includes(`__${instance}__`) || run.startsWith(`${instance}__`)) {
      return { name: instance, detail: withoutInstance(run, instance) };
    }
  }
  return null;
}

/**
 * A run's settings without the instance they repeat (`replay__marshmallow-code__marshmallow-1867__
 * function_calling__install-1` beside the name `marshmallow-code__marshmallow-1867`): what is left
 * is what tells the runs of one instance apart, short enough to be seen in a list's cell.
 */
function withoutInstance(settings: string, instance: string): string {
  const shorter = settings.replace(`__${instance}`, '').replace(`${instance}__`, '');
  return shorter === '' ? settings : shorter;
}

/**
 * The folder a file-like id sits in, when it is SWE-agent's layout: each run's trajectories in a
 * folder named after the run's model and settings, each named after its instance, so the folder
 * is what tells two runs of one instance apart. Null for an id without folders, and for one whose
 * folders only say where the files were read from (`../demo/data/swe-agent`).
 */
function runFolder(externalId: string): string | null {
  if (!externalId.endsWith('.traj')) return null;
  const folder = externalId.split('/').at(-2);
  return folder === undefined || !folder.includes('__') ? null : folder;
}
