import {
  agentWorldBenchExportLines,
  benchTrajectoryFilter,
  createAgentWorldBenchReader,
  dropLeakingRecords,
  findLeaks,
  importedBenchManifest,
  sftRecords,
  type AgentWorldBenchError,
  type BenchSource,
} from '@terrarium/bench';
import type { Store } from '@terrarium/db';
import type { BenchManifest } from '@terrarium/schema';
import { TRPCError } from '@trpc/server';
import { findDataset } from '../simulate/find-trajectory';
import { loadDatasetBySourceIds } from '../simulate/load-trajectories';
import { requireBench } from './bench-service';
import { allBenchItems } from './read-all';

/** Splits text into lines (CRLF or LF) lazily. */
export function* linesOf(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    yield text.slice(start, stop > start && text[stop - 1] === '\r' ? stop - 1 : stop);
    start = stop + 1;
  }
}
export const BENCH_EXPORT_FORMATS = ['agentworldbench', 'sft'] as const;
export type BenchExportFormat = (typeof BENCH_EXPORT_FORMATS)[number];

export interface BenchImportResult {
  manifest: BenchManifest | null;
  /** Rows that could not be read, each naming file, line and field; the others are imported. */
  errors: AgentWorldBenchError[];
}

/** One file of an import: its name (as errors print it) and its lines, read as they come. */
export interface BenchImportFile {
  fileName: string;
  lines: AsyncIterable<string> | Iterable<string>;
}

/**
 * Imports AgentWorldBench JSONL (one file, or a folder's `{domain}_test.jsonl` files in the order
 * given) as a new bench (or the next version of `name`). Lines are read as they arrive; bad rows
 * are reported and skipped; files with no good row store nothing.
 */
export async function importAgentWorldBench(
  store: Store,
  input:
    | { name: string; fileName: string; lines: Iterable<string> }
    | {
        name: string;
        files: readonly BenchImportFile[];
      },
): Promise<BenchImportResult> {
  const files = 'files' in input ? input.files : [input];
  const reader = createAgentWorldBenchReader();
  for (const file of files) {
    let lineNumber = 0;
    for await (const line of file.lines) reader.add(line, ++lineNumber, file.fileName);
  }
  const { items, errors } = reader;
  if (items.length === 0) return { manifest: null, errors };
  const { version: _assigned, ...manifest } = importedBenchManifest(items, {
    name: input.name,
    version: 1,
    createdAt: new Date().toISOString(),
    fileName: files.map((file) => file.fileName).join(', '),
  });
  const stored = await store.createBench(manifest, items);
  return { manifest: stored.manifest, errors };
}

/**
 * The bench as AgentWorldBench JSONL lines (no newline), in build order, each row with its
 * trajectory's turns as far as the bench knows them (`toAgentWorldBenchRecord`), `current_prompt`
 * and the official markers.
 */
export async function* agentWorldBenchLines(
  store: Store,
  name: string,
  version?: number,
): AsyncGenerator<string> {
  const bench = await requireBench(store, name, version);
  yield* agentWorldBenchExportLines(await allBenchItems(store, { benchId: bench.id }));
}

export interface SftExport {
  lines: string[];
  /** Trajectories of the datasets left out because they hold a bench item. */
  trajectoriesExcluded: number;
  /** Records cut because they shared a 13-gram with a bench observation. */
  recordsDropped: number;
  /** Bench items still found in the training data after the cut: the goal is 0. */
  leakedItems: number;
}

/**
 * SFT data (chat messages, history + action → observation) from stored datasets with every bench
 * item kept out: the bench's trajectories are excluded, then records sharing a 13-gram with a
 * bench observation are cut, and what remains is checked again.
 */
export async function sftExport(
  store: Store,
  input: { bench: string; version?: number; datasets: string[]; includeReasoning: boolean },
): Promise<SftExport> {
  const bench = await requireBench(store, input.bench, input.version);
  const items = await allBenchItems(store, { benchId: bench.id });
  if (input.datasets.length === 0) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'datasets: name at least one dataset' });
  }
  const sources: BenchSource[] = [];
  for (const wanted of input.datasets) {
    const dataset = await findDataset(store, wanted, 'datasets');
    // Named as bench items name their origin (dataset name, source id), so the filter matches.
    for (const trajectory of await loadDatasetBySourceIds(store, dataset.id)) {
      sources.push({ dataset: dataset.name, trajectory });
    }
  }
  const records = sftRecords(sources, {
    excludeItems: items,
    includeReasoning: input.includeReasoning,
  });
  const isBench = benchTrajectoryFilter(items);
  const clean = dropLeakingRecords(records, items);
  return {
    lines: clean.records.map((record) => JSON.stringify({ messages: record.messages })),
    trajectoriesExcluded: sources.filter(isBench).length,
    recordsDropped: clean.dropped,
    leakedItems: findLeaks(clean.records, items).length,
  };
}
