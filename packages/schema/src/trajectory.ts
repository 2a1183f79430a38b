import { z } from 'zod';

/** Environment families a trajectory can come from (DESIGN.md, "Nouns"). */
export const DOMAINS = [
  'terminal',
  'tool',
  'search',
  'swe',
  'web',
  'android',
  'os',
  'database',
  'text-game',
] as const;
export const Domain = z.enum(DOMAINS);
export type Domain = z.infer<typeof Domain>;

export const OBSERVATION_KINDS = ['text', 'json', 'terminal', 'html', 'error'] as const;
export const ObservationKind = z.enum(OBSERVATION_KINDS);
export type ObservationKind = z.infer<typeof ObservationKind>;

/** Who acted. `user` covers a simulated user acting on its own device (tau2 telecom). */
export const Actor = z.enum(['agent', 'user']);
export type Actor = z.infer<typeof Actor>;

export const JsonValue = z.json();
export type JsonValue = z.infer<typeof JsonValue>;

/** A function/tool call, e.g. an OpenAI tool call or an MCP call. */
export const ToolCallAction = z.object({
  type: z.literal('tool_call'),
  name: z.string(),
  /** Parsed arguments. When the source held a string that is not valid JSON, it is kept verbatim here. */
  arguments: JsonValue,
  callId: z.string().nullable(),
});
/** A command for an interpreter: a shell line, a SQL query, an ACI command such as SWE-agent's `edit`. */
export const CommandAction = z.object({
  type: z.literal('command'),
  command: z.string(),
  interpreter: z.enum(['bash', 'sql', 'python', 'aci']).nullable(),
});
/** Raw keystrokes sent to a terminal (tmux-style agents). */
export const KeystrokesAction = z.object({ type: z.literal('keystrokes'), keys: z.string() });
/** A browser or device action (click, type, navigate…), named with its arguments. */
export const BrowserAction = z.object({
  type: z.literal('browser'),
  name: z.string(),
  arguments: JsonValue,
});
/** A message to the other party: agent → user, or user → agent. Never has an environment observation. */
export const MessageAction = z.object({ type: z.literal('message'), text: z.string() });

export const Action = z.discriminatedUnion('type', [
  ToolCallAction,
  CommandAction,
  KeystrokesAction,
  BrowserAction,
  MessageAction,
]);
export type Action = z.infer<typeof Action>;
export type ActionType = Action['type'];

export const Observation = z.object({
  kind: ObservationKind,
  content: z.string(),
  /** The tool call this observation answers, when the source links them. */
  callId: z.string().nullable(),
});
export type Observation = z.infer<typeof Observation>;

export const StepTiming = z.object({
  /** ISO 8601 timestamp of the action, as recorded. */
  startedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
});
export type StepTiming = z.infer<typeof StepTiming>;

export const Metadata = z.record(z.string(), JsonValue);
export type Metadata = z.infer<typeof Metadata>;

export const Step = z.object({
  /** 0-based position in the trajectory. */
  index: z.number().int().nonnegative(),
  actor: Actor,
  action: Action,
  /** The environment's response; null for messages and for actions the log ends on. */
  observation: Observation.nullable(),
  reasoning: z.string().nullable(),
  reward: z.number().nullable(),
  timing: StepTiming.nullable(),
  metadata: Metadata,
});
export type Step = z.infer<typeof Step>;

/** An OpenAI function-calling tool schema. */
export const ToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), JsonValue).optional(),
  }),
});
export type ToolSchema = z.infer<typeof ToolSchema>;

export const SOURCE_FORMATS = [
  'openai-messages',
  'sharegpt',
  'agentworldbench',
  'atif',
  'openhands',
  'tau-bench-v1',
  'tau2-bench',
  'swe-agent',
  'intercode',
  'intercode-human-sql',
  'mini-swe-agent',
] as const;
export const SourceFormat = z.enum(SOURCE_FORMATS);
export type SourceFormat = z.infer<typeof SourceFormat>;

/** What a file of each format looks like, in a line: shown where a user picks a format by hand. */
export const SOURCE_FORMAT_DESCRIPTIONS: Readonly<Record<SourceFormat, string>> = {
  'openai-messages': 'OpenAI chat messages with tool calls, one conversation per JSONL line',
  sharegpt: 'ShareGPT JSONL: {conversations: [{from, value}]} per line',
  agentworldbench: 'AgentWorldBench rows: one sampled turn with its history per line',
  atif: 'ATIF trajectories (Harbor, Terminal-Bench agents): steps with tool calls',
  openhands: 'OpenHands event streams: actions and observations',
  'tau-bench-v1': 'tau-bench results: a JSON array of {task_id, traj, reward, info}',
  'tau2-bench': 'tau2-bench results: one JSON with tasks and simulations',
  'swe-agent': 'SWE-agent .traj files: thought, action and observation per step',
  intercode: 'InterCode results (bash, SQL): turns of each task',
  'intercode-human-sql': 'InterCode human SQL sessions: a JSON object of sessions by query',
  'mini-swe-agent': 'mini-swe-agent trajectories: messages whose commands ran in a shell',
};

export const Outcome = z.object({
  reward: z.number().nullable(),
  success: z.boolean().nullable(),
});
export type Outcome = z.infer<typeof Outcome>;

/** Where a trajectory came from, with the source record kept whole so exports can round-trip. */
export const SourceRecord = z.object({
  file: z.string(),
  /** 1-based line (JSONL) or the line where the record starts; null when unknown. */
  line: z.number().int().nullable(),
  record: JsonValue,
});
export type SourceRecord = z.infer<typeof SourceRecord>;

export const Trajectory = z.object({
  /** The id the source gave it (task id + trial, simulation id, file name…), unique within an import. */
  externalId: z.string(),
  sourceFormat: SourceFormat,
  /** e.g. "tau2-bench/retail", "intercode/bash", "swe-bench". */
  sourceBenchmark: z.string().nullable(),
  domain: Domain,
  task: z.string().nullable(),
  systemPrompt: z.string().nullable(),
  tools: z.array(ToolSchema),
  /** True when `tools` was inferred from the recorded calls because the source had no schemas. */
  toolsInferred: z.boolean(),
  agentModel: z.string().nullable(),
  outcome: Outcome,
  steps: z.array(Step),
  metadata: Metadata,
  source: SourceRecord,
});
export type Trajectory = z.infer<typeof Trajectory>;

/** A transition is an (action, observation) pair the environment produced. */
export function isTransition(step: Step): boolean {
  return step.observation !== null && step.action.type !== 'message';
}

export function countTransitions(trajectory: Pick<Trajectory, 'steps'>): number {
  let n = 0;
  for (const step of trajectory.steps) if (isTransition(step)) n++;
  return n;
}

/**
 * A reference from one trajectory to another that is not a transition: a subagent the agent
 * delegated to (ATIF `subagent_trajectory_ref`) or the file a long run continues in (ATIF
 * `continued_trajectory_ref`). Kept in `Trajectory.metadata[TRAJECTORY_LINKS_KEY]` so every store
 * keeps it without a schema change; read it back with `trajectoryLinks`.
 */
export const TrajectoryLink = z.object({
  kind: z.enum(['subagent', 'continuation']),
  /** The linked trajectory's session id, which is its `externalId` once imported; null if unnamed. */
  sessionId: z.string().nullable(),
  /** The file the source names for it, as written there (often relative to the linking file). */
  path: z.string().nullable(),
  /** The step of this trajectory that made the link (the delegating call); null for a continuation. */
  stepIndex: z.number().int().nonnegative().nullable(),
});
export type TrajectoryLink = z.infer<typeof TrajectoryLink>;

export const TRAJECTORY_LINKS_KEY = 'trajectoryLinks';

/** The links stored in a trajectory's metadata; entries that do not parse are left out. */
export function trajectoryLinks(metadata: Metadata): TrajectoryLink[] {
  const stored = metadata[TRAJECTORY_LINKS_KEY];
  if (!Array.isArray(stored)) return [];
  const links: TrajectoryLink[] = [];
  for (const entry of stored) {
    const parsed = TrajectoryLink.safeParse(entry);
    if (parsed.success) links.push(parsed.data);
  }
  return links;
}
