import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { isObviouslyNotData } from '@terrarium/schema';
import type { ImportFile } from './import-files';

export interface DataFile {
  path: string;
  /** The name errors and trajectories carry: relative to the folder it was found in, or as given. */
  name: string;
  size: number;
}

export interface FoundFiles {
  files: DataFile[];
  /** Files of the folders that were left out (licences, notes, configs, hidden), by name. */
  leftOut: string[];
}

/** Files to import from paths that may be files or folders (recursed, in name order). */
export async function collectDataFiles(paths: string[]): Promise<DataFile[]> {
  return (await findDataFiles(paths)).files;
}

/** As `collectDataFiles`, with what the folders held that is not imported, so a user is told. */
export async function findDataFiles(paths: string[]): Promise<FoundFiles> {
  const found: FoundFiles = { files: [], leftOut: [] };
  for (const given of paths) {
    const info = await stat(given);
    if (info.isDirectory()) {
      await collectFolder(given, path.basename(path.resolve(given)), found);
    } else {
      found.files.push({ path: given, name: path.basename(given), size: info.size });
    }
  }
  return found;
}

async function collectFolder(folder: string, prefix: string, into: FoundFiles): Promise<void> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    const name = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.')) into.leftOut.push(`${name}/`);
      else await collectFolder(full, name, into);
    } else if (!entry.isFile()) {
      continue;
    } else if (isObviouslyNotData(entry.name)) {
      into.leftOut.push(name);
    } else {
      into.files.push({ path: full, name, size: (await stat(full)).size });
    }
  }
}

export function readDataFile(file: DataFile): ImportFile {
  return { name: file.name, size: file.size, chunks: fileChunks(file.path) };
}

/** Opens the file only when reading starts, so a folder of thousands of files holds one descriptor. */
async function* fileChunks(filePath: string): AsyncGenerator<Uint8Array> {
  for await (const chunk of createReadStream(filePath, { highWaterMark: 256 * 1024 })) {
    if (chunk instanceof Uint8Array) yield chunk;
  }
}
