import type { CurriculumRunSummary } from './run-options';

/** Builders of what the curriculum procedures return; tests override what they look at. */
export function curriculumRun(overrides: Partial<CurriculumRunSummary> = {}): CurriculumRunSummary {
  return {
    id: '1',
    dataset: 'intercode-bash',
    settings: {
      policy: 'scripted',
      sim: 'retrieval',
      scheduler: 'lineage',
      probes: 8,
      maxDepth: 15,
      seed: 0,
    },
    status: 'running',
    generationsTotal: 4,
    generationsDone: 2,
    rolloutsDataset: 'curriculum-1-rollouts',
    error: null,
    createdAt: '2026-11-29T21:00:00.000Z',
    updatedAt: '2026-11-29T21:00:02.000Z',
    finishedAt: null,
    ...overrides,
  };
}
