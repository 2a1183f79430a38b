import type {
  DatasetSummary,
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

export interface Store {
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
  close(): Promise<void>;
}
