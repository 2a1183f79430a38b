/** How much of a file detection looks at. */
export const HEAD_BYTES = 64 * 1024;

export interface FileHead {
  /** The first chunks joined: at least `size` bytes unless the file is shorter. */
  bytes: Uint8Array;
  /** The source has no more chunks. */
  ended: boolean;
}

/** Reads chunks until `size` bytes are in hand, keeping them so they can be split afterwards. */
export async function readHead(
  source: AsyncIterator<Uint8Array>,
  size = HEAD_BYTES,
): Promise<FileHead> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let ended = false;
  while (total < size) {
    const next = await source.next();
    if (next.done === true) {
      ended = true;
      break;
    }
    // A copy, as the source may reuse its buffer once asked for the next chunk.
    chunks.push(next.value.slice());
    total += next.value.length;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, ended };
}
