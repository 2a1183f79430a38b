/** A job's last reported state: every progress record carries its id and where it stands. */
export interface JobProgress {
  id: string;
  status: 'running' | 'done' | 'failed';
}

/**
 * Short jobs of one process (re-judging a label queue, scoring a run with a rule set): started in
 * the background, polled by id. Their results land in the store as they come, so a restart loses
 * only the progress record, never a stored score.
 */
export interface BackgroundJobs<Spec, Progress extends JobProgress> {
  start(spec: Spec): Progress;
  get(id: string): Progress | null;
  /** Resolves when the job has ended (tests, CLI). */
  settled(id: string): Promise<Progress | null>;
}

export function createBackgroundJobs<Spec, Progress extends JobProgress>(
  prefix: string,
  initial: (id: string, spec: Spec) => Progress,
  run: (spec: Spec, onProgress: (progress: Progress) => void, id: string) => Promise<Progress>,
): BackgroundJobs<Spec, Progress> {
  const jobs = new Map<string, Progress>();
  const running = new Map<string, Promise<Progress>>();
  let counter = 0;
  return {
    start(spec) {
      counter += 1;
      const id = `${prefix}-${counter}`;
      const first = initial(id, spec);
      jobs.set(id, first);
      running.set(
        id,
        run(spec, (progress) => jobs.set(id, progress), id).finally(() => running.delete(id)),
      );
      return first;
    },
    get: (id) => jobs.get(id) ?? null,
    settled: async (id) => (await running.get(id)) ?? jobs.get(id) ?? null,
  };
}

/**
 * One registry per key (a server has one store; tests each open their own), made on first use:
 * `perKey(createRejudgeJobs)(store)`.
 */
export function perKey<Key extends object, Value>(
  create: (key: Key) => Value,
): (key: Key) => Value {
  const made = new WeakMap<Key, Value>();
  return (key) => {
    const found = made.get(key);
    if (found !== undefined) return found;
    const created = create(key);
    made.set(key, created);
    return created;
  };
}
