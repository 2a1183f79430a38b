import type { World } from '@terrarium/executable-worlds';
import type { JsonValue, ToolSchema } from '@terrarium/schema';
import { answerOf, applyMove, startEpisode, type AgentMove, type Episode } from '../tasks/episode';
import type { Task } from '../tasks/task';
import { evaluateVerifier, type Evaluation, type VerifierOptions } from '../tasks/verifier';
import { toolsFor, worldParamsProblem, type WorldCatalog } from '../worlds/world-catalog';
import { isTerminalWorld } from '../worlds/world-kinds';

export interface SessionLimits {
  /** Sessions admitted at once; beyond it `create`/`fork` answer `full` (HTTP 503 + Retry-After). */
  maxSessions: number;
  /** Idle time after which a session is dropped. */
  idleTimeoutMs: number;
  /** Workspace bytes one session may hold; a step that would exceed it is undone and truncates. */
  maxSessionBytes: number;
  /** Observations longer than this are cut (the tail is dropped, `info.observationTruncated`). */
  maxObservationChars: number;
  /** What `full` tells clients to wait, in seconds. */
  retryAfterSeconds: number;
  /** Expired sessions are dropped on the first request after this much time since the last sweep. */
  sweepIntervalMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessions: 4096,
  idleTimeoutMs: 10 * 60_000,
  maxSessionBytes: 8 * 1024 * 1024,
  maxObservationChars: 64 * 1024,
  retryAfterSeconds: 1,
  sweepIntervalMs: 5_000,
};

export interface SessionManagerOptions {
  worlds: WorldCatalog;
  tasks: { get(id: string): Task | undefined };
  /** Milliseconds; injected so the domain reads no clock. */
  now: () => number;
  /** Unguessable session ids (the server passes crypto.randomUUID). */
  newId: () => string;
  limits?: Partial<SessionLimits>;
  /** Runs code verifiers (see `CodeRunner`). */
  verifier?: VerifierOptions;
}

export interface CreateSessionInput {
  task?: string | undefined;
  world?: string | undefined;
  params?: Record<string, JsonValue> | undefined;
  seed?: number | undefined;
  maxSteps?: number | undefined;
}

export interface SessionOpened {
  id: string;
  observation: string;
  tools: ToolSchema[];
  info: { task: string | null; world: string; seed: number; maxSteps: number; goal: string | null };
}

export interface StepOutcome {
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: { [key: string]: JsonValue };
}

export type SessionError =
  | { error: 'full'; message: string; retryAfterSeconds: number }
  | { error: 'not-found'; message: string }
  /** `field`: the request's field at fault, as 400s elsewhere name it in `issues`. */
  | { error: 'bad-request'; message: string; field: string }
  | { error: 'conflict'; message: string };

interface Session {
  id: string;
  task: Task | null;
  worldId: string;
  seed: number;
  maxSteps: number;
  episode: Episode;
  steps: number;
  terminated: boolean;
  truncated: boolean;
  lastUsed: number;
  /** Steps of one session run one after another; this is the tail of its queue. */
  queue: Promise<unknown>;
}

function worldBytes(world: World): number {
  const reported = world.state()['bytes'];
  if (typeof reported === 'number') return reported;
  if (!isTerminalWorld(world)) return 0;
  let bytes = 0;
  for (const path of world.files()) bytes += world.readFile(path)?.length ?? 0;
  return bytes;
}

/**
 * Live environment sessions for RL trainers: admission control (a hard cap answered with a retry
 * hint, never by failing admitted sessions), idle expiry, bounded per-session memory and fork.
 * No timers or I/O: the server calls `sweep` on its own schedule.
 */
export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private lastSweep = 0;
  readonly limits: SessionLimits;

  constructor(private readonly options: SessionManagerOptions) {
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...options.limits };
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Drops sessions idle longer than the timeout; returns how many. */
  sweep(): number {
    const now = this.options.now();
    this.lastSweep = now;
    const cutoff = now - this.limits.idleTimeoutMs;
    let dropped = 0;
    for (const [id, session] of this.sessions) {
      if (session.lastUsed < cutoff) {
        this.sessions.delete(id);
        dropped += 1;
      }
    }
    return dropped;
  }

  // Sweeping rides on requests, so the manager needs no timer: an idle server holds only what
  // it held when the traffic stopped.
  private sweepWhenDue(): void {
    if (this.options.now() - this.lastSweep >= this.limits.sweepIntervalMs) this.sweep();
  }

  private admit(): SessionError | null {
    this.sweepWhenDue();
    if (this.sessions.size < this.limits.maxSessions) return null;
    this.sweep();
    if (this.sessions.size < this.limits.maxSessions) return null;
    // A slot frees when a client deletes its session, or when the idlest one expires: the second
    // is said, since a client polling at Retry-After may otherwise wait minutes without knowing.
    let idlest = Infinity;
    for (const session of this.sessions.values()) idlest = Math.min(idlest, session.lastUsed);
    const expiresInS = Math.max(
      1,
      Math.ceil((idlest + this.limits.idleTimeoutMs - this.options.now()) / 1000),
    );
    return {
      error: 'full',
      message: `the server holds ${this.sessions.size} sessions, its limit: one frees when a client deletes its session, or in ${expiresInS} s when the idlest expires (sessions expire after ${Math.round(this.limits.idleTimeoutMs / 1000)} s idle)`,
      retryAfterSeconds: this.limits.retryAfterSeconds,
    };
  }

  async create(input: CreateSessionInput): Promise<SessionOpened | SessionError> {
    const task = input.task === undefined ? null : (this.options.tasks.get(input.task) ?? null);
    if (input.task !== undefined && task === null) {
      return { error: 'not-found', message: `no task ${input.task}` };
    }
    const worldId = task?.world.id ?? input.world;
    if (worldId === undefined) {
      return { error: 'bad-request', message: 'name a task or a world', field: 'world' };
    }
    const entry = this.options.worlds.get(worldId);
    if (entry === undefined) return { error: 'not-found', message: `no world ${worldId}` };
    const params = { ...task?.world.params, ...input.params };
    const wrong = worldParamsProblem(entry, params);
    if (wrong !== null) {
      const field = `params.${wrong.slice(0, wrong.indexOf(':'))}`;
      return { error: 'bad-request', message: `params.${wrong}`, field };
    }
    const refused = this.admit();
    if (refused) return refused;
    const seed = input.seed ?? 0;
    const world = entry.create(params, seed);
    const first = await world.reset();
    const session: Session = {
      id: this.options.newId(),
      task,
      worldId,
      seed,
      maxSteps: input.maxSteps ?? task?.maxSteps ?? 100,
      episode: startEpisode(world, first.content),
      steps: 0,
      terminated: false,
      truncated: false,
      lastUsed: this.options.now(),
      queue: Promise.resolve(),
    };
    this.sessions.set(session.id, session);
    return this.opened(session, first.content);
  }

  private opened(session: Session, observation: string): SessionOpened {
    return {
      id: session.id,
      observation,
      tools: toolsFor(session.episode.world),
      info: {
        task: session.task?.id ?? null,
        world: session.worldId,
        seed: session.seed,
        maxSteps: session.maxSteps,
        goal: session.task?.goal ?? null,
      },
    };
  }

  private find(id: string): Session | SessionError {
    this.sweepWhenDue();
    const session = this.sessions.get(id);
    if (session === undefined)
      return { error: 'not-found', message: `no session ${id} (it may have expired)` };
    session.lastUsed = this.options.now();
    return session;
  }

  /** The world of a live session, for callers that parse moves against it. */
  worldOf(id: string): World | SessionError {
    const session = this.find(id);
    return 'error' in session ? session : session.episode.world;
  }

  step(id: string, move: AgentMove): Promise<StepOutcome | SessionError> {
    const session = this.find(id);
    if ('error' in session) return Promise.resolve(session);
    // Idleness counts from the end of the last step too: a slow step must not expire its session.
    const next = session.queue
      .then(() => this.runStep(session, move))
      .finally(() => {
        session.lastUsed = this.options.now();
      });
    session.queue = next.catch(() => undefined);
    return next;
  }

  private async runStep(session: Session, move: AgentMove): Promise<StepOutcome | SessionError> {
    if (session.terminated || session.truncated) {
      return { error: 'conflict', message: 'the episode is over; create a new session' };
    }
    session.steps += 1;
    const info: { [key: string]: JsonValue } = { steps: session.steps };
    if (move.kind === 'invalid') {
      // A policy's malformed move (an unknown tool, arguments that are not JSON) is its mistake,
      // not the trainer's: it costs a step and is answered, as a curriculum rollout answers it,
      // so the episode goes on and the policy sees why.
      info['invalid'] = move.reason;
      if (session.steps >= session.maxSteps) session.truncated = true;
      return {
        observation: `invalid move: ${move.reason}`,
        reward: 0,
        terminated: false,
        truncated: session.truncated,
        info,
      };
    }
    if (move.kind === 'submit') {
      await applyMove(session.episode, move);
      session.terminated = true;
      if (session.task === null)
        return { observation: '', reward: 0, terminated: true, truncated: false, info };
      const evaluation = await evaluateVerifier(
        session.task.verifier,
        session.episode.world,
        answerOf(session.episode),
        this.options.verifier,
      );
      info['evaluation'] = evaluationJson(evaluation);
      return {
        observation: '',
        reward: evaluation.reward,
        terminated: true,
        truncated: false,
        info,
      };
    }
    const before = session.episode.world.snapshot();
    const result = await applyMove(session.episode, move);
    let observation = result?.observation.content ?? '';
    if (result !== null) {
      info['exitCode'] = result.exitCode;
      info['provenance'] = result.provenance;
      // The world's own code for why it did not run the action (`unsupported-command:git`): the
      // observation says it in plain words for the policy, the trainer may want to filter on it.
      const reason = result.detail?.['reason'];
      if (result.provenance !== 'executed' && typeof reason === 'string') info['fallback'] = reason;
    }
    if (worldBytes(session.episode.world) > this.limits.maxSessionBytes) {
      // Undo rather than fail: the session stays valid and the trainer sees why the episode ended.
      session.episode.world.restore(before);
      session.truncated = true;
      info['error'] =
        `the step would exceed the session's ${this.limits.maxSessionBytes} bytes; it was undone`;
    }
    if (observation.length > this.limits.maxObservationChars) {
      observation = observation.slice(0, this.limits.maxObservationChars);
      info['observationTruncated'] = true;
    }
    if (session.steps >= session.maxSteps) session.truncated = true;
    return { observation, reward: 0, terminated: false, truncated: session.truncated, info };
  }

  async state(id: string): Promise<{ [key: string]: JsonValue } | SessionError> {
    const session = this.find(id);
    if ('error' in session) return session;
    await session.queue;
    return {
      id: session.id,
      task: session.task?.id ?? null,
      world: session.worldId,
      seed: session.seed,
      steps: session.steps,
      maxSteps: session.maxSteps,
      terminated: session.terminated,
      truncated: session.truncated,
      lastOutput: session.episode.lastOutput,
      worldState: session.episode.world.state(),
    };
  }

  async fork(id: string): Promise<SessionOpened | SessionError> {
    const session = this.find(id);
    if ('error' in session) return session;
    await session.queue;
    // A fork of an ended episode could take no step, yet would hold a session slot.
    if (session.terminated || session.truncated)
      return { error: 'conflict', message: 'the episode is over; fork a session before it ends' };
    const refused = this.admit();
    if (refused) return refused;
    const copy: Session = {
      ...session,
      id: this.options.newId(),
      episode: { ...session.episode, world: session.episode.world.fork() },
      lastUsed: this.options.now(),
      queue: Promise.resolve(),
    };
    this.sessions.set(copy.id, copy);
    return this.opened(copy, session.episode.lastOutput);
  }

  async evaluate(id: string): Promise<Evaluation | SessionError> {
    const session = this.find(id);
    if ('error' in session) return session;
    await session.queue;
    if (session.task === null)
      return { error: 'conflict', message: 'a session on a bare world has no verifier' };
    return evaluateVerifier(
      session.task.verifier,
      session.episode.world,
      answerOf(session.episode),
      this.options.verifier,
    );
  }

  close(id: string): boolean {
    return this.sessions.delete(id);
  }
}

export function evaluationJson(evaluation: Evaluation): { [key: string]: JsonValue } {
  return {
    reward: evaluation.reward,
    passed: evaluation.passed,
    breakdown: evaluation.breakdown.map((check) => ({ ...check })),
  };
}

export function isSessionError(value: unknown): value is SessionError {
  return (
    typeof value === 'object' &&
    value !== null &&
    'error' in value &&
    typeof value.error === 'string'
  );
}
