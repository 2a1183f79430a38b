import type { LabelStore } from './label-store';
import type { RuleSetStore } from './rule-set-store';
import type {
  BenchItem,
  BenchManifest,
  BenchRun,
  BenchRunStatus,
  BenchSplit,
  DatasetSummary,
  ItemScore,
  RunPrediction,
  ScoreSource,
  ImportError,
  QuarantinedRecord,
  StepMarker,
  StepWindow,
  Trajectory,
  TrajectoryDetail,
  TrajectoryFilter,
  TrajectorySummary,
} from '@terrarium/schema';

export interface StoreOptions {
  /** PostgreSQL server; when set, `dataDir` is not used for the database. */
  databaseUrl?: string;
  /** Embedded PGlite folder (default `./.terrarium`). */
  dataDir?: string;
  /** In-memory PGlite, for tests. */
  memory?: boolean;
}

/**
 * One import into a dataset. Rows written through it stay invisible until `commit()`; a batch that
 * never commits (crash, kill -9, abort) is deleted when the store is next opened, so a dataset is
 * either absent or complete.
 */
export interface ImportBatch {
  readonly datasetId: string;
  readonly batchId: string;
  addTrajectories(trajectories: Trajectory[]): Promise<void>;
  addQuarantined(records: { error: ImportError; excerpt: string }[]): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface Page<T> {
  total: number;
  rows: T[];
}

export interface Store extends LabelStore, RuleSetStore {
  readonly backend: 'pglite' | 'postgres';
  listDatasets(): Promise<DatasetSummary[]>;
  getDatasetByName(name: string): Promise<DatasetSummary | null>;
  /** Creates the dataset when it does not exist; an existing one gets the new trajectories added. */
  beginImport(datasetName: string): Promise<ImportBatch>;
  deleteDataset(datasetId: string): Promise<void>;
  listTrajectories(
    filter: TrajectoryFilter,
    page: { offset: number; limit: number },
  ): Promise<Page<TrajectorySummary>>;
  getTrajectory(trajectoryId: string): Promise<TrajectoryDetail | null>;
  /** One compact marker per step, for the timeline; no observation bodies. */
  getStepMarkers(trajectoryId: string): Promise<StepMarker[]>;
  /** Steps [offset, offset+limit) of a trajectory; never the whole trajectory at once. */
  getSteps(trajectoryId: string, offset: number, limit: number): Promise<StepWindow>;
  /** The source record of a trajectory, for lossless export. */
  getSourceRecord(trajectoryId: string): Promise<Trajectory['source'] | null>;
  listQuarantined(datasetId: string): Promise<QuarantinedRecord[]>;

  // Benches (bench-store.ts). A bench is frozen once created; its items never change.
  /**
   * Stores a bench and its items in one transaction. The version is computed there: 1 for a new
   * name, else the latest version + 1. `manifest.itemCount` must equal `items.length`.
   */
  createBench(manifest: NewBenchManifest, items: readonly BenchItem[]): Promise<StoredBench>;
  /** Every version of every bench, by name then version. */
  listBenches(): Promise<StoredBench[]>;
  /** The given version, or the latest when `version` is omitted. */
  getBench(name: string, version?: number): Promise<StoredBench | null>;
  /** Items in build order (ordinal), optionally one split; `total` counts the filtered items. */
  getBenchItems(bench: BenchRef, page: BenchItemPage): Promise<Page<BenchItem>>;
  /** The named items of a bench, in build order; unknown ids are left out. */
  getBenchItemsByIds(bench: BenchRef, itemIds: readonly string[]): Promise<BenchItem[]>;
  countBenchItems(bench: BenchRef, split?: BenchSplit): Promise<number>;

  // Bench runs.
  /** A queued run over the bench's items of `split` × `sims`; `total` is computed here. */
  createBenchRun(run: NewBenchRun): Promise<BenchRun>;
  getBenchRun(runId: string): Promise<BenchRun | null>;
  /** Newest first; only the runs of bench `benchName` (any version) when given. */
  listBenchRuns(benchName?: string): Promise<BenchRun[]>;
  /**
   * Sets the status (and `finishedAt` for done/failed/canceled). With `onlyFrom`, only a run in one
   * of those statuses changes, in one conditional UPDATE; returns whether this call changed it.
   */
  setBenchRunStatus(
    runId: string,
    status: BenchRunStatus,
    error?: string | null,
    onlyFrom?: readonly BenchRunStatus[],
  ): Promise<boolean>;
  /**
   * Inserts the prediction and its scores, bumps the run's done (or failed, when `error` is set)
   * counter and usage totals, and marks a queued/running run `done` when its last unit lands: one
   * transaction. Does nothing and returns false when (run, item, sim) already has a prediction,
   * so a retried chunk never records or scores an item twice.
   */
  recordPrediction(prediction: RunPrediction, scores: readonly ItemScore[]): Promise<boolean>;
  /** Marks a queued/running run whose every unit is recorded `done`; true if this call did it. */
  completeBenchRunIfDrained(runId: string): Promise<boolean>;
  /** Up to `limit` item ids of the run's split that `sim` has no prediction for, in build order. */
  pendingWork(runId: string, sim: string, limit: number): Promise<string[]>;
  listPredictions(runId: string, filter: PredictionFilter): Promise<Page<RunPrediction>>;
  listScores(runId: string, filter: ScoreFilter): Promise<Page<ItemScore>>;
  /**
   * Adds judge or human scores later. A score replaces the one with the same (item, sim, source,
   * metric), so re-judging updates rather than duplicates; other sources are never touched.
   * Returns how many were written.
   */
  addScores(runId: string, scores: readonly ItemScore[]): Promise<number>;

  // Accounts and sessions (auth-store.ts). Passwords and session tokens arrive already hashed.
  /** A new account; null when the name is taken. */
  createUser(user: NewUser): Promise<StoredUser | null>;
  /** Every account by name, without password hashes. */
  listUsers(): Promise<StoredUser[]>;
  countUsers(): Promise<number>;
  /** The account and its password hash, for checking a login; null for an unknown name. */
  getUserCredentials(name: string): Promise<{ user: StoredUser; passwordHash: string } | null>;
  /** Deletes the account and all its sessions; false when there was none. */
  removeUser(name: string): Promise<boolean>;
  createSession(session: NewSession): Promise<void>;
  /** The session if it exists and has not expired at `now`. */
  getSession(tokenHash: string, now: Date): Promise<SessionRecord | null>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Returns how many were deleted. */
  deleteExpiredSessions(now: Date): Promise<number>;

  /**
   * SQL access for the job queue (pg-boss's `db` option), on this store's own connections: the
   * single embedded connection for PGlite (a second one cannot exist: the folder belongs to one
   * process and PGlite is single-connection), the pool for PostgreSQL (so queue and data share
   * one set of connections and one DATABASE_URL). Accepts pg-boss's multi-statement scripts.
   */
  jobDb(): JobDb;
  close(): Promise<void>;
}

export type UserRole = 'researcher' | 'labeler';

export interface StoredUser {
  id: string;
  name: string;
  role: UserRole;
  createdAt: string;
}

export interface NewUser {
  name: string;
  role: UserRole;
  passwordHash: string;
}

export interface NewSession {
  /** SHA-256 (hex) of the cookie value; the value itself is never stored. */
  tokenHash: string;
  /** null: the local owner's session (loopback, before any account exists). */
  userId: string | null;
  expiresAt: Date;
}

export interface SessionRecord {
  expiresAt: string;
  /** null for the local owner. */
  user: StoredUser | null;
}

/** A bench manifest before it is stored: the store assigns the version. */
export type NewBenchManifest = Omit<BenchManifest, 'version'>;

export interface StoredBench {
  /** Database id, for `BenchRef`. */
  id: string;
  manifest: BenchManifest;
}

/** A bench by id, or by name and version (latest when omitted). */
export type BenchRef = { benchId: string } | { name: string; version?: number };

export interface BenchItemPage {
  split?: BenchSplit;
  offset: number;
  limit: number;
}

export interface NewBenchRun {
  bench: string;
  /** Latest when omitted. */
  benchVersion?: number;
  sims: BenchRun['sims'];
  judge: BenchRun['judge'];
  mode: BenchRun['mode'];
  split: BenchSplit;
}

export interface PredictionFilter {
  sim?: string;
  itemIds?: readonly string[];
  offset: number;
  limit: number;
}

export interface ScoreFilter extends PredictionFilter {
  source?: ScoreSource;
  metric?: string;
}

/** The shape pg-boss 10 takes as `new PgBoss({ db })`. */
export interface JobDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}
