/**
 * Reads a `text/event-stream` body and yields the data of each event (its `data:` lines joined by
 * newlines). Comments and other fields are skipped; an event is complete at a blank line.
 */
export function readSseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  return readSseEvents(decodedText(body));
}

/** `readSseData` over a body already decoded to text, in pieces as they arrived. */
export async function* readSseEvents(pieces: AsyncIterable<string>): AsyncGenerator<string> {
  // Per call: a global regex keeps its lastIndex, and streams interleave at each `yield`.
  const lineBreak = /\r\n|\r|\n/g;
  let buffer = '';
  let data: string[] = [];
  const iterator = pieces[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      const next = await iterator.next();
      ended = next.done === true;
      if (!ended) buffer += next.value;
      let start = 0;
      lineBreak.lastIndex = 0;
      for (let match = lineBreak.exec(buffer); match !== null; match = lineBreak.exec(buffer)) {
        // A \r at the very end may be the first half of a \r\n still in the next chunk.
        if (!ended && match[0] === '\r' && match.index === buffer.length - 1) break;
        const line = buffer.slice(start, match.index);
        start = match.index + match[0].length;
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line[5] === ' ' ? 6 : 5));
        }
      }
      buffer = buffer.slice(start);
      if (ended) break;
    }
  } finally {
    // The consumer left early: the source stops downloading.
    if (!ended) await iterator.return?.();
  }
  if (buffer.startsWith('data:')) data.push(buffer.slice(buffer[5] === ' ' ? 6 : 5));
  if (data.length > 0) yield data.join('\n');
}

/** A byte stream as UTF-8 text pieces; a consumer leaving early cancels the download. */
export async function* decodedText(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        const tail = decoder.decode();
        if (tail !== '') yield tail;
        return;
      }
      const text = decoder.decode(value, { stream: true });
      if (text !== '') yield text;
    }
  } finally {
    // Stops the download when the consumer leaves early (an error, an abort). A body read to its
    // end is not cancelled: with undici that would close the keep-alive connection.
    if (ended) reader.releaseLock();
    else await reader.cancel().catch(() => undefined);
  }
}
