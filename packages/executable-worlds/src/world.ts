import type { Action, JsonValue, Observation, Trajectory } from '@terrarium/schema';
import type { WorldModel } from '@terrarium/worlds';

/**
 * The contract every executable world keeps. The ENV engineer's tasks, verifiers and HTTP server
 * are written against this file only: keep it small and stable.
 */
export type WorldKind = 'terminal' | 'sql' | 'tool';

/**
 * Where an observation came from: the world ran the action (`executed`), it answered an identical
 * recorded call with the recorded response (`recorded`), or it asked a simulator (`world-model`).
 */
export type StepProvenance = 'executed' | 'recorded' | 'world-model';

export interface WorldStepResult {
  observation: Observation;
  /** The shell's exit status for terminal worlds; 0/1 for SQL (ok/error); null when unknown. */
  exitCode: number | null;
  provenance: StepProvenance;
  /** Why a fallback happened or which simulator answered, e.g. `{reason:'unsupported-command:git'}`. */
  detail?: { [key: string]: JsonValue };
}

/**
 * An opaque, immutable capture of a world's state. Only the world (or a fork of it) that made it
 * can restore it; holding one costs no copy of the workspace.
 */
export interface WorldSnapshot {
  readonly kind: WorldKind;
  /** Which world lineage made it; `restore` refuses snapshots of another lineage. */
  readonly worldId: string;
  /** Steps taken when it was taken. */
  readonly steps: number;
}

export interface World {
  readonly kind: WorldKind;
  /** Stable id of the reconstruction (e.g. the source trajectory's external id); forks keep it. */
  readonly id: string;
  /** Back to the initial (reconstructed or sampled) state. Returns the initial observation. */
  reset(): Promise<Observation>;
  /** Apply one action. Never throws for a bad action: errors come back as observations. */
  step(action: Action): Promise<WorldStepResult>;
  /** Cheap (copy-on-write) capture of the current state. */
  snapshot(): WorldSnapshot;
  /** Return to a snapshot taken by this world or one of its forks / ancestors. */
  restore(snapshot: WorldSnapshot): void;
  /** An independent world with identical state; both continue identically under the same actions. */
  fork(): World;
  /** A JSON-able summary (cwd, env, file count, tables…), for `GET /state` and verifiers. */
  state(): { [key: string]: JsonValue };
  /** Steps taken since the last reset. */
  readonly steps: number;
}

export interface TerminalWorld extends World {
  readonly kind: 'terminal';
  /**
   * What the world's shell accepts, for the agent's tool description, when it is not a whole
   * shell (a scratch world's handful of commands); absent for a full bash.
   */
  readonly shellHelp?: string;
  fork(): TerminalWorld;
  /** Current working directory, tracked across steps (the shell itself resets per exec). */
  cwd(): string;
  /** Exported environment variables, tracked across steps. */
  env(): Record<string, string>;
  /** All regular files, absolute paths, sorted. */
  files(): string[];
  /**
   * All directories, absolute paths, sorted, the empty ones included: they are state a command
   * can see (`find / -type d -name mysql`), and an export must recreate them.
   */
  directories(): string[];
  /** A file's text, or null when it does not exist or is a directory. */
  readFile(path: string): string | null;
}

export interface SqlQueryResult {
  columns: string[];
  rows: (string | number | null)[][];
  /** Set when the query failed; rows are then empty. */
  error: string | null;
}

export interface SqlWorld extends World {
  readonly kind: 'sql';
  fork(): SqlWorld;
  /** Run SQL directly against the current state (verifiers use this). */
  query(sql: string): SqlQueryResult;
  tables(): string[];
}

/** A file to place in a workspace; directories are implied by paths, or listed with `content: null`. */
export interface WorkspaceEntry {
  path: string;
  /** null for a directory. */
  content: string | null;
  /**
   * Set on a file whose `content` is a stand-in: a reconstruction's recording never showed it
   * whole. The shell still sees the stand-in, but a tool that would show the file as it is (SWE-
   * agent's `open`, `edit`) leaves it to the fallback. A copy of the entry with the same content
   * keeps the mark; an entry whose content is replaced must drop it. Absent: the content is known.
   */
  placeholder?: true;
}

/** A reconstructed starting workspace, before any action. */
export interface Workspace {
  cwd: string;
  env: Record<string, string>;
  entries: WorkspaceEntry[];
}

export interface BuildTerminalWorldOptions {
  /**
   * Answers actions the shell cannot run (python, git, compilers, package managers, network).
   * Default: replay of the source trajectory's own transitions (provenance `recorded`), else an
   * error observation marked `world-model`.
   */
  fallback?: WorldModel;
  /** Override the reconstructed starting workspace (e.g. one sampled from parameters). */
  workspace?: Workspace;
  /** Upper bound on commands per step, loop iterations…, passed to the shell. Defaults are small. */
  maxCommandCount?: number;
  /**
   * How an action reaches the shell. `shell` (default): a persistent session (cwd and exported
   * variables carry over). `intercode`: InterCode's harness (each action a fresh `/bin/bash -c`
   * after its quote-splitting, `cd` tracked by the harness), to reproduce its recordings.
   */
  transport?: 'shell' | 'intercode';
  /**
   * Memoize transitions (default true): a deterministic action taken again from an identical
   * state (same files, cwd, env) returns the same observation and changes without running the
   * shell. Shared by a world and its forks; clock/random/pid-dependent actions always run.
   */
  memoize?: boolean;
}

/** Reconstruct the pre-action workspace of a terminal/SWE trajectory and open a world on it. */
export type BuildTerminalWorld = (
  trajectory: Trajectory,
  options?: BuildTerminalWorldOptions,
) => TerminalWorld;

/** Open a terminal world on a given workspace (tasks, sampled parameters, tests). */
export type CreateTerminalWorld = (
  id: string,
  workspace: Workspace,
  options?: Omit<BuildTerminalWorldOptions, 'workspace'>,
) => TerminalWorld;
