import type { CurriculumStore } from './curriculum-store';
import type { EnvCatalogStore } from './env-catalog-store';
import type { LabelStore } from './label-store';
import type { RuleSetStore } from './rule-set-store';
import type { EncodedGroup } from './import-rows';
import type { ImportJobStore } from './import-job-store';
import type {
  BenchItem,
  BenchManifest,
  BenchRun,
  BenchRunStatus,
  BenchSplit,
  DatasetSummary,
  ItemScore,
  LeaderboardCell,
  PromptFiles,
  RunPrediction,
  SimFailures,
  JudgeGaps,
  JudgeSides,
  ScoreSlice,
  ScoreSource,
  ImportError,
  ImportReport,
  QuarantinedRecord,
  StepMarker,
  StepWindow,
  Trajectory,
  TrajectoryDetail,
  TrajectoryFilter,
  TrajectorySummary,
  UnitUsage,
} from '@terrarium/schema';

/**
 * An import job's batch was not committed because the job had stopped running (canceled by the
 * user) before the commit: nothing of it was made visible.
 */
export class ImportJobNotRunning extends Error {
  constructor(readonly jobId: string) {
    super(`import job ${jobId} is no longer running: its batch was not committed`);
    this.name = 'ImportJobNotRunning';
  }
}

/** What a judging of scores added later cost, counted on one unit of the run. */
export interface JudgedUnit {
  itemId: string;
  sim: string;
  usage: UnitUsage;
}

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
  /**
   * How many `addTrajectories` calls may run at once (1 when absent). Each call is a transaction of
   * its own and rows stay invisible until `commit()`, so groups may land in any order.
   */
  readonly parallelWrites?: number;
  addTrajectories(trajectories: Trajectory[]): Promise<void>;
  addQuarantined(records: { error: ImportError; excerpt: string }[]): Promise<void>;
  /**
   * One group as one transaction: trajectories already encoded off the database's thread
   * (`GroupEncoder`, import-rows.ts), quarantined records, and a job's checkpoint. Groups commit in
   * the order they were handed in, whatever `parallelWrites` lets run at once.
   */
  addGroup(group: ImportGroup): Promise<void>;
  /**
   * Takes out of the batch the trajectories its dataset already holds byte for byte from an
   * earlier import (the same id, format and source record: a file imported twice), and says how
   * many, with their transitions. Stored twice, each would be its own twin for retrieval.
   */
  dropRepeated(): Promise<{ trajectories: number; transitions: number }>;
  /**
   * Makes the batch's rows visible, all at once. Resolves to null, or, when the rows are stored but
   * the upkeep after it failed (merging the search indexes, the planner's statistics: a disk that
   * filled up then), to a sentence saying so: the import is whole, searches may be slow.
   *
   * With `job`, the batch is the job's and commits only if the job is still running, marking it
   * done with `report` in the same statement: a cancel and the commit cannot both win. Rejects
   * with `ImportJobNotRunning` (nothing made visible) when the job was canceled first.
   */
  commit(job?: { id: string; report: ImportReport }): Promise<string | null>;
  abort(): Promise<void>;
  /**
   * Lets go of the batch without finishing it, as a crash would: its rows stay invisible, for an
   * import job to resume into, or to be deleted on the next open when no job holds it.
   */
  abandon(): Promise<void>;
}

export interface ImportGroup {
  encoded: EncodedGroup | null;
  quarantined: { error: ImportError; excerpt: string }[];
  /** Written with the group's rows: where a resumed job continues (import_jobs.checkpoint). */
  checkpoint?: {
    jobId: string;
    state: unknown;
    doneBytes: number;
    trajectories: number;
  };
}

export interface Page<T> {
  total: number;
  rows: T[];
}

export interface TrajectoryPage extends Page<TrajectorySummary> {
  /**
   * `relevance`: a search's best matches first (sql-store.ts, `relevanceOrder`); `id`: import
   * order, with no search term to rank by; `id-too-many`: import order because more trajectories
   * match than are ranked (`RANKED_MATCHES`).
   */
  order: 'relevance' | 'id' | 'id-too-many';
}

export interface Store
  extends LabelStore, RuleSetStore, EnvCatalogStore, CurriculumStore, ImportJobStore {
  readonly backend: 'pglite' | 'postgres';
  listDatasets(): Promise<DatasetSummary[]>;
  getDatasetByName(name: string): Promise<DatasetSummary | null>;
  /** Creates the dataset when it does not exist; an existing one gets the new trajectories added. */
  beginImport(datasetName: string): Promise<ImportBatch>;
  /**
   * Takes up an unfinished batch again (an import job resuming after its process stopped): its
   * rows so far stay, still invisible, and more are added. Fails when the batch is complete,
   * unknown, or held by an importer that is still running.
   */
  resumeImport(batchId: string): Promise<ImportBatch>;
  /**
   * Deletes an unfinished batch with its rows (a canceled import job's, whose importer is gone);
   * false when it is complete, unknown, or still held by an importer in another process.
   */
  discardImport(batchId: string): Promise<boolean>;
  deleteDataset(datasetId: string): Promise<void>;
  listTrajectories(
    filter: TrajectoryFilter,
    page: { offset: number; limit: number },
  ): Promise<TrajectoryPage>;
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
  /**
   * Deletes one bench version with its items and runs (the foreign keys cascade), in one
   * statement that does nothing while one of its runs is queued or running or has a labeling
   * queue (people's labels are not deleted along with a bench). Returns whether it was deleted.
   */
  deleteBench(benchId: string): Promise<boolean>;
  /** Items in build order (ordinal), optionally one split; `total` counts the filtered items. */
  getBenchItems(bench: BenchRef, page: BenchItemPage): Promise<Page<BenchItem>>;
  /** The named items of a bench, in build order; unknown ids are left out. */
  getBenchItemsByIds(bench: BenchRef, itemIds: readonly string[]): Promise<BenchItem[]>;
  /** Every item's task stratum by item id (one bench version, without reading the items). */
  benchItemTasks(bench: BenchRef): Promise<Map<string, string>>;
  countBenchItems(bench: BenchRef, split?: BenchSplit): Promise<number>;

  // Bench runs.
  /** A queued run over the bench's items of `split` × `sims`; `total` is computed here. */
  createBenchRun(run: NewBenchRun): Promise<BenchRun>;
  getBenchRun(runId: string): Promise<BenchRun | null>;
  /** The texts of the prompt folder the run was started with, by relative path; null: none. */
  getBenchRunPromptFiles(runId: string): Promise<PromptFiles | null>;
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
   * Deletes a run with its predictions, scores and cached aggregates, under the same conditions
   * as `deleteBench` (not queued or running, no labeling queue). Returns whether it was deleted.
   */
  deleteBenchRun(runId: string): Promise<boolean>;
  /**
   * Forgets the failed units of a run that has ended (their predictions, which carry no scores)
   * and queues it again, so a worker predicts them anew; the tokens they spent stay in its totals.
   * One transaction, conditional on the run having ended and on no labeling queue resting on it.
   * Returns how many units it forgot, 0 (nothing changed) when none had failed, or null when the
   * run does not exist or the conditions do not hold.
   */
  retryFailedUnits(runId: string): Promise<number | null>;
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
  /** Per simulator with failed predictions in the run: how many, and its first one's error. */
  runFailures(runId: string): Promise<SimFailures[]>;
  /** Per simulator and judge metric with unreadable verdicts: how many, of how many, and why. */
  runJudgeGaps(runId: string): Promise<JudgeGaps[]>;
  /**
   * Pairs a pairwise judge has not judged yet: items `first` and another of `others` both
   * predicted, with no `pairwise:<other>` score on `first` (asked and unreadable ones are gaps).
   */
  pairsNotAsked(runId: string, first: string, others: readonly string[]): Promise<number>;
  /**
   * What a Turing judge (over every simulator) or a pairwise judge (over `subject`'s pairs, the
   * run's first simulator) answered, by side, over the judgings that record their sides.
   */
  judgeSides(runId: string, mode: JudgeSides['mode'], subject: string): Promise<JudgeSides>;
  listScores(runId: string, filter: ScoreFilter): Promise<Page<ItemScore>>;
  /**
   * Adds judge or human scores later. A score replaces the one with the same (item, sim, source,
   * metric), so re-judging updates rather than duplicates; other sources are never touched.
   * `judged`, what the run's judge spent on them, joins that unit's and the run's judge totals in
   * the same transaction. Returns how many were written.
   */
  addScores(runId: string, scores: readonly ItemScore[], judged?: JudgedUnit): Promise<number>;
  /**
   * Several units in one transaction (multi-row inserts): what `recordPrediction` does for each,
   * with the same guarantees (a unit already recorded is skipped, the last unit finishes the run).
   * A crash leaves either all of the batch or none of it. Returns what this call recorded.
   */
  recordPredictions(units: readonly RecordedUnit[]): Promise<{ recorded: number; failed: number }>;

  // Bench pages (bench-pages.ts): SQL aggregates and pages, never the whole run in memory.
  /**
   * The totals the writer keeps current per (sim, source, metric, task) of the run's split: exact
   * at every moment (grid sums), cheap at any size; null: no such run.
   */
  runScoreTotals(runId: string): Promise<RunScoreTotals | null>;
  /**
   * One page of the run's non-null score values, by item in build order: `after` is the previous
   * page's `next` (null for the first), `limit` items per page. Small pages keep each statement
   * short, so reading a large run's values never holds the (PGlite) thread for long.
   */
  runScoreValues(
    runId: string,
    page: { after: number | null; limit: number },
  ): Promise<RunScoreValuesPage>;
  /** The cached leaderboard of a finished run, if one is stored for its current scores. */
  getRunLeaderboard(runId: string, key: LeaderboardKey): Promise<LeaderboardCell[] | null>;
  /**
   * Caches a finished run's leaderboard computed from scores version `scoresVersion`; stores
   * nothing (false) when the run is not finished or its scores changed since.
   */
  putRunLeaderboard(
    runId: string,
    key: LeaderboardKey,
    scoresVersion: number,
    cells: readonly LeaderboardCell[],
  ): Promise<boolean>;
  /**
   * Readies the scores of runs that finished for paging: marks their table's pages all-visible
   * (VACUUM), so a cell's page is read from the index alone however deep it is. Called once a run
   * has finished, before its leaderboard is computed; the cost follows the rows written since the
   * last call.
   */
  settleRunScores(): Promise<void>;
  /** A cell's scores worst first (missing first, then by value, then item id), paged in SQL. */
  listCellScores(runId: string, cell: CellScoreFilter): Promise<CellScorePage>;
  /** The run's scores of (source, metric) counted along the chart axes, as the writer keeps them. */
  runScoreSlices(
    runId: string,
    selector: { source: ScoreSource; metric: string },
  ): Promise<ScoreSlice[]>;

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
  /**
   * Replaces the account's password hash and ends its sessions, all but `keepSession` (a session
   * token hash: the caller's own, when one changes one's own password); false when there is no
   * such account. One statement: never a new password with the old sessions still open.
   */
  setUserPassword(name: string, passwordHash: string, keepSession: string | null): Promise<boolean>;
  /**
   * Gives the account another role; false when there is no such account. Its sessions stay: a
   * session reads its account's role at every request, so the change applies at the next one.
   */
  setUserRole(name: string, role: UserRole): Promise<boolean>;
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
  /**
   * `build` (the default): the order the bench was built in, source by source. `id`: by item id;
   * ids are content hashes, so a page from the start is a uniform sample of the bench.
   */
  order?: 'build' | 'id';
}

export interface NewBenchRun {
  bench: string;
  /** Latest when omitted. */
  benchVersion?: number;
  sims: BenchRun['sims'];
  judge: BenchRun['judge'];
  mode: BenchRun['mode'];
  split: BenchSplit;
  /** The prompt folder the run speaks with, stored with it (hash and paths as the caller computed). */
  prompts?: { hash: string; files: PromptFiles } | null;
}

export interface PredictionFilter {
  sim?: string;
  itemIds?: readonly string[];
  /**
   * Predictions only: rows in a pseudo-random order fixed by this seed (by md5 of the seed and
   * the item id) instead of by simulator and item, so a page is a sample of the whole run.
   */
  shuffle?: number;
  offset: number;
  limit: number;
}

export interface ScoreFilter extends PredictionFilter {
  source?: ScoreSource;
  metric?: string;
}

/** One unit of a bench run as a worker records it. */
export interface RecordedUnit {
  prediction: RunPrediction;
  scores: readonly ItemScore[];
}

/** The scores of one simulator on one (source, metric). */
export interface ScoreGroup {
  sim: string;
  source: ScoreSource;
  metric: string;
}

/** What the leaderboard's cells are made of (packages/bench `cellsFromAggregates`). */
export interface RunScoreTotals {
  /** Bumped by every later change of the run's scores; a cached leaderboard names its version. */
  scoresVersion: number;
  itemsPerTask: { task: string; items: number }[];
  /**
   * Per task of the run's split: values (n), their sum in grid units (exact, packages/schema
   * `scoreGridUnits`) and null values.
   */
  cells: (ScoreGroup & { task: string; n: number; gridSum: number; nulls: number })[];
}

/** A page of a run's score values, items in build order (what a bootstrap resamples). */
export interface RunScoreValuesPage {
  /** Values of the page's items per (group, task), nulls left out. */
  groups: (ScoreGroup & { task: string; values: number[] })[];
  /** The cursor of the next page; null after the last. */
  next: number | null;
}

/** A cached leaderboard's bootstrap. */
export interface LeaderboardKey {
  resamples: number;
  seed: number;
}

export interface CellScoreFilter extends ScoreGroup {
  /** null: every task (the overall and macro cells). */
  task: string | null;
  offset: number;
  limit: number;
}

/** One row of a cell page: the score, its item, the unit's prediction and all its scores. */
export interface CellScoreRow {
  itemId: string;
  value: number | null;
  item: BenchItem;
  prediction: Pick<RunPrediction, 'observation' | 'latencyMs' | 'error'> | null;
  /** Every score of the unit, keyed `source:metric`, 0-1. */
  scores: Record<string, number | null>;
}

export type CellScorePage = Page<CellScoreRow>;

/** The shape pg-boss 10 takes as `new PgBoss({ db })`. */
export interface JobDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}
