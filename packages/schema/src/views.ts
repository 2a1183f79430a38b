import { z } from 'zod';
import {
  Domain,
  Outcome,
  SourceFormat,
  Step,
  ToolSchema,
  Metadata,
  type Trajectory,
} from './trajectory';

/** A trajectory's outcome as lists filter by it: success, failure, or none recorded. */
export const OUTCOME_FILTERS = ['success', 'failure', 'unknown'] as const;
export const OutcomeFilter = z.enum(OUTCOME_FILTERS);
export type OutcomeFilter = z.infer<typeof OutcomeFilter>;

/** Shapes the API returns to the UI and CLI. Bulk data (steps) is always windowed. */
export const DatasetSummary = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  trajectories: z.number().int(),
  transitions: z.number().int(),
  steps: z.number().int(),
  quarantined: z.number().int(),
  domains: z.array(Domain),
  formats: z.array(SourceFormat),
  /** The outcomes its trajectories record, in `OUTCOME_FILTERS` order (`unknown`: none recorded). */
  outcomes: z.array(OutcomeFilter),
});
export type DatasetSummary = z.infer<typeof DatasetSummary>;

/**
 * Where a search matched a trajectory: its first matching step (or its task or id), an excerpt of
 * the matching text and the ranges to highlight in it (offsets into `text`, end exclusive). Ranges,
 * not markup: the text is shown as text, so nothing in a log can become HTML.
 */
export const SearchMatch = z.object({
  /** 0-based index of the step; null when the task or id matched and no step did. */
  step: z.number().int().nullable(),
  /** `message`: the step's action is a message (a user's or the agent's), not a call or command. */
  field: z.enum(['action', 'message', 'observation', 'reasoning', 'task', 'id']),
  text: z.string(),
  highlights: z.array(z.tuple([z.number().int(), z.number().int()])),
});
export type SearchMatch = z.infer<typeof SearchMatch>;

export const TrajectorySummary = z.object({
  id: z.string(),
  datasetId: z.string(),
  externalId: z.string(),
  sourceFormat: SourceFormat,
  sourceBenchmark: z.string().nullable(),
  domain: Domain,
  task: z.string().nullable(),
  agentModel: z.string().nullable(),
  outcome: Outcome,
  stepCount: z.number().int(),
  transitionCount: z.number().int(),
  /**
   * The source's task id and trial where its format records them (`metadata.taskId`, `.trial`:
   * tau-bench, tau2-bench, InterCode), so a list can name a run by them rather than by a UUID.
   */
  taskId: z.string().nullable(),
  trial: z.string().nullable(),
  /** In a listing filtered by `search`: where the search matched, to show and to open at. */
  match: SearchMatch.optional(),
});
export type TrajectorySummary = z.infer<typeof TrajectorySummary>;

/** A trajectory's header: everything but its steps. */
export const TrajectoryDetail = TrajectorySummary.extend({
  systemPrompt: z.string().nullable(),
  tools: z.array(ToolSchema),
  toolsInferred: z.boolean(),
  metadata: Metadata,
  sourceFile: z.string(),
});
export type TrajectoryDetail = z.infer<typeof TrajectoryDetail>;

/** A compact marker per step for the scrubber/timeline: it never carries observation bodies. */
export const StepMarker = z.object({
  index: z.number().int(),
  actor: z.enum(['agent', 'user']),
  actionType: z.enum(['tool_call', 'command', 'keystrokes', 'browser', 'message']),
  label: z.string(),
  observationKind: z.enum(['text', 'json', 'terminal', 'html', 'error']).nullable(),
  reward: z.number().nullable(),
});
export type StepMarker = z.infer<typeof StepMarker>;

/** Step counts are stored as PostgreSQL integers: a bound beyond this is a client's mistake. */
const StepCountBound = z.number().int().nonnegative().max(2_147_483_647);

/** The longest search a list takes; the search box stops there. */
export const MAX_SEARCH_CHARS = 500;

export const TrajectoryFilter = z.object({
  datasetId: z.string().optional(),
  search: z.string().max(MAX_SEARCH_CHARS).optional(),
  domain: Domain.optional(),
  sourceFormat: SourceFormat.optional(),
  outcome: OutcomeFilter.optional(),
  minSteps: StepCountBound.optional(),
  maxSteps: StepCountBound.optional(),
  /** Only these source ids (`externalId`, as the imported file names them): at most a page. */
  externalIds: z.array(z.string().max(1024)).max(500).optional(),
});
export type TrajectoryFilter = z.infer<typeof TrajectoryFilter>;

export const StepWindow = z.object({
  trajectoryId: z.string(),
  total: z.number().int(),
  offset: z.number().int(),
  steps: z.array(Step),
});
export type StepWindow = z.infer<typeof StepWindow>;

export const QuarantinedRecord = z.object({
  id: z.string(),
  datasetId: z.string(),
  file: z.string(),
  line: z.number().int().nullable(),
  byteOffset: z.number().int().nullable(),
  reason: z.string(),
  /** The first bytes of the bad record, for a human to look at. */
  excerpt: z.string(),
});
export type QuarantinedRecord = z.infer<typeof QuarantinedRecord>;

/**
 * Every step of a trajectory, read window by window through `readWindow` (the store, or the tRPC
 * client in the browser): bulk data is never asked for in one piece.
 */
export async function readAllSteps(
  readWindow: (offset: number, limit: number) => Promise<Pick<StepWindow, 'steps' | 'total'>>,
  windowSize: number,
): Promise<Step[]> {
  const steps: Step[] = [];
  for (let offset = 0; ; offset += windowSize) {
    const window = await readWindow(offset, windowSize);
    steps.push(...window.steps);
    if (window.steps.length === 0 || offset + windowSize >= window.total) return steps;
  }
}

/**
 * A stored trajectory as the world models take it. `externalId` is the store id, so provenance
 * names a trajectory the UI can open; the source record is left out (simulation never reads it).
 */
export function trajectoryFromDetail(detail: TrajectoryDetail, steps: Step[]): Trajectory {
  return {
    externalId: detail.id,
    sourceFormat: detail.sourceFormat,
    sourceBenchmark: detail.sourceBenchmark,
    domain: detail.domain,
    task: detail.task,
    systemPrompt: detail.systemPrompt,
    tools: detail.tools,
    toolsInferred: detail.toolsInferred,
    agentModel: detail.agentModel,
    outcome: detail.outcome,
    steps,
    metadata: detail.metadata,
    source: { file: detail.sourceFile, line: null, record: null },
  };
}
