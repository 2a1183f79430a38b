import type { Migration } from './migration';

/**
 * How many items each task has in each split of a bench, written with the bench (which never
 * changes after). A running leaderboard divides by these at every refresh; counting them from
 * `bench_items` read the whole split each time, 184 ms at 100,000 items (benchmarks/bench-pages.ts).
 */
export const benchSplitTasks: Migration = {
  version: 16,
  name: 'bench-split-tasks',
  sql: `
CREATE TABLE bench_split_tasks (
  bench_id bigint NOT NULL REFERENCES benches (id) ON DELETE CASCADE,
  split text NOT NULL,
  task text NOT NULL,
  items integer NOT NULL CHECK (items > 0),
  PRIMARY KEY (bench_id, split, task)
);
INSERT INTO bench_split_tasks (bench_id, split, task, items)
  SELECT bench_id, split, task, count(*)::int FROM bench_items GROUP BY bench_id, split, task;
`,
};
