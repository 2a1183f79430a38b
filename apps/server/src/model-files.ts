import { stat } from 'node:fs/promises';
import path from 'node:path';
import { availableSimulators, parseSimSpec } from '@terrarium/api';
import { MODEL_URL_PREFIX } from '@terrarium/schema';

/**
 * The files of a model folder the browser needs (the transformers.js / Optimum layout). Nothing
 * else in the folder (training logs, splits, checkpoints) leaves the machine.
 */
const SERVED_FILE = /^(config\.json|tokenizer\.json|tokenizer_config\.json|onnx\/[\w.-]+\.onnx)$/;

/**
 * The model folders the server lists (the bundled one, and the `onnx:PATH` specs of
 * `TERRARIUM_SIMULATORS`), by folder name; the first of two folders with the same name wins.
 */
export function servedModelFolders(env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const folders = new Map<string, string>();
  for (const simulator of availableSimulators(env)) {
    const parsed = parseSimSpec(simulator.spec);
    if (parsed.kind !== 'onnx') continue;
    const absolute = path.resolve(parsed.path);
    const name = path.basename(absolute);
    if (!folders.has(name)) folders.set(name, absolute);
  }
  return folders;
}

/**
 * The file on disk for a `/models/…` path, or null when the path names no served file. Only the
 * listed folders and only the files in SERVED_FILE answer, so that no other path on the machine can
 * be reached through this route.
 */
export async function findModelFile(
  pathname: string,
  folders: ReadonlyMap<string, string>,
): Promise<{ path: string; size: number } | null> {
  if (!pathname.startsWith(MODEL_URL_PREFIX)) return null;
  const rest = pathname.slice(MODEL_URL_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash === -1) return null;
  const folder = folders.get(rest.slice(0, slash));
  const file = rest.slice(slash + 1);
  if (folder === undefined || !SERVED_FILE.test(file)) return null;
  const wanted = path.join(folder, file);
  try {
    const info = await stat(wanted);
    return info.isFile() ? { path: wanted, size: info.size } : null;
  } catch {
    return null;
  }
}
