import { initial } from './001-initial';
import { benches } from './002-benches';
import { auth } from './003-auth';
import { ruleSets } from './004-rule-sets';
import { labels } from './005-labels';
import { performanceSchema } from './007-performance';
import { benchRunPrompts } from './008-bench-run-prompts';
import { benchAggregates } from './009-bench-aggregates';
import { worldsTasks } from './010-worlds-tasks';
import { curriculumRuns } from './012-curriculum-runs';
import { runAggregates } from './013-run-aggregates';
import { importJobs } from './014-import-jobs';
import { stepPages } from './015-step-pages';
import { benchSplitTasks } from './016-bench-split-tasks';
import { benchContexts } from './017-bench-contexts';
import { unpricedUnits } from './018-unpriced-units';
import { trajectoryExternalIds } from './019-trajectory-external-ids';
import { judgeUsage } from './020-judge-usage';
import { searchTerminalText } from './021-search-terminal-text';
import { benchJsonOrder } from './022-bench-json-order';
import { trajectoryToolsOrder } from './023-trajectory-tools-order';
import type { Migration } from './migration';

export type { Migration } from './migration';

/** Every migration this build knows, in order. Append; never edit a released one. */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  benches,
  auth,
  ruleSets,
  labels,
  performanceSchema,
  benchRunPrompts,
  benchAggregates,
  worldsTasks,
  curriculumRuns,
  runAggregates,
  importJobs,
  stepPages,
  benchSplitTasks,
  benchContexts,
  unpricedUnits,
  trajectoryExternalIds,
  judgeUsage,
  searchTerminalText,
  benchJsonOrder,
  trajectoryToolsOrder,
];
