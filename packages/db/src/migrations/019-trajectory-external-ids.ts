import type { Migration } from './migration';

/**
 * Trajectories by dataset and source id. Before an import commits it drops the trajectories its
 * dataset already holds byte for byte (`dropRepeated`), looking each new one up by this pair; with
 * only `(dataset_id, id)` to go by, each lookup scanned the whole dataset, and a first import of
 * 8,000 trajectories spent 25 s there (64 M row visits) holding the embedded store, and with it the
 * server, the whole time.
 */
export const trajectoryExternalIds: Migration = {
  version: 19,
  name: 'trajectory-external-ids',
  sql: `
CREATE INDEX trajectories_external_id ON trajectories (dataset_id, external_id);
`,
};
