import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ModelSplitFile } from '@terrarium/inference';
import { z } from 'zod';
import { availableSimulators, parseSimSpec, SimulatorError } from '../simulate/sim-spec';

/** A mean with its 95% bootstrap interval. */
const Interval = z.object({ mean: z.number(), low: z.number(), high: z.number() });

/** One simulator's figures on one source's held-out tasks. */
const SimulatorFigures = z.object({
  transitions: z.number().int().nonnegative(),
  content: Interval,
  tokenF1: Interval,
  /**
   * Transitions a decoding simulator answered with the first neighbor's recorded answer, whole,
   * because its context could not hold that answer (absent in older evaluations).
   */
  neighborAnswers: z.number().int().nonnegative().optional(),
});

/**
 * The evaluation a model folder ships (`fidelity.json`, written by models/evaluate.ts): per source
 * (dataset), per simulator (the model, retrieval alone, the model without retrieved context).
 */
const FidelityFile = z.object({
  bySource: z.record(z.string(), z.record(z.string(), SimulatorFigures)),
});

export type ModelEvaluation =
  | { status: 'ok'; bySource: z.infer<typeof FidelityFile>['bySource'] }
  | { status: 'missing' | 'unreadable'; reason: string };

/** The folder of a served model by its folder name (`/models/<name>/`), as apps/server lists them. */
function servedFolder(name: string): string | null {
  for (const simulator of availableSimulators()) {
    const parsed = parseSimSpec(simulator.spec);
    if (parsed.kind === 'onnx' && path.basename(path.resolve(parsed.path)) === name) {
      return path.resolve(parsed.path);
    }
  }
  return null;
}

type FolderFile<T> =
  { status: 'ok'; data: T } | { status: 'missing' | 'unreadable'; reason: string };

/**
 * A JSON file of a served model folder, parsed with `schema`. Only the listed folders are read
 * (never a path from the request); a folder without the file, or with an older layout (`older`
 * says what it lacks), says so.
 */
async function readFolderFile<T>(
  name: string,
  file: string,
  schema: z.ZodType<T>,
  older: string,
): Promise<FolderFile<T>> {
  const folder = servedFolder(name);
  if (folder === null) throw new SimulatorError('model', `no served model folder "${name}"`, 404);
  let text: string;
  try {
    text = await readFile(path.join(folder, file), 'utf8');
  } catch {
    return { status: 'missing', reason: `${name} has no ${file}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: 'unreadable', reason: `${name}/${file} is not JSON` };
  }
  const parsed = schema.safeParse(json);
  return parsed.success
    ? { status: 'ok', data: parsed.data }
    : { status: 'unreadable', reason: `${name}/${file} ${older}` };
}

/** The evaluation table of a served model folder (its fidelity.json, by models/evaluate.ts). */
export async function modelEvaluation(name: string): Promise<ModelEvaluation> {
  const read = await readFolderFile(
    name,
    'fidelity.json',
    FidelityFile,
    'has no per-source figures with intervals (an older evaluation)',
  );
  return read.status === 'ok' ? { status: 'ok', bySource: read.data.bySource } : read;
}

export type ModelSplit =
  { status: 'ok'; split: ModelSplitFile } | { status: 'missing' | 'unreadable'; reason: string };

/**
 * The task split a served model folder ships (`split.json`): which tasks it was trained on and
 * which it holds out, so a page can say whether a trajectory's figures measure an unseen task.
 */
export async function modelSplit(name: string): Promise<ModelSplit> {
  const read = await readFolderFile(
    name,
    'split.json',
    ModelSplitFile,
    'does not list its training tasks (an older export)',
  );
  return read.status === 'ok' ? { status: 'ok', split: read.data } : read;
}
