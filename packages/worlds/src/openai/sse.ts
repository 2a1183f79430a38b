/**
 * Reads a `text/event-stream` body and yields the data of each event (its `data:` lines joined by
 * newlines). Comments and other fields are skipped; an event is complete at a blank line.
 */
export function readSseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  return readSseEvents(decodedText(body));
}

/**
 * A `text/event-stream` parser fed text as it arrives: `push` returns the data of the events the
 * piece completed, `end` those the body's end completes. Synchronous, so a reader that already has
 * a piece pays no promise per event (an async generator's yield is one).
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  // Per parser: a global regex keeps its lastIndex, and streams interleave.
  private readonly lineBreak = /\r\n|\r|\n/g;

  push(piece: string): string[] {
    return this.read(piece, false);
  }

  end(): string[] {
    const events = this.read('', true);
    const rest = this.buffer;
    this.buffer = '';
    if (rest.startsWith('data:')) this.data.push(rest.slice(rest[5] === ' ' ? 6 : 5));
    if (this.data.length > 0) events.push(this.data.join('\n'));
    this.data = [];
    return events;
  }

  private read(piece: string, ended: boolean): string[] {
    const events: string[] = [];
    const buffer = this.buffer + piece;
    const lineBreak = this.lineBreak;
    let start = 0;
    lineBreak.lastIndex = 0;
    for (let match = lineBreak.exec(buffer); match !== null; match = lineBreak.exec(buffer)) {
      // A \r at the very end may be the first half of a \r\n still in the next piece.
      if (!ended && match[0] === '\r' && match.index === buffer.length - 1) break;
      const line = buffer.slice(start, match.index);
      start = match.index + match[0].length;
      if (line === '') {
        if (this.data.length > 0) events.push(this.data.join('\n'));
        this.data = [];
      } else if (line.startsWith('data:')) {
        this.data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
    }
    this.buffer = buffer.slice(start);
    return events;
  }
}

/** `readSseData` over a body already decoded to text, in pieces as they arrived. */
export async function* readSseEvents(pieces: AsyncIterable<string>): AsyncGenerator<string> {
  const parser = new SseParser();
  const iterator = pieces[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) {
        ended = true;
        break;
      }
      yield* parser.push(next.value);
    }
  } finally {
    // The consumer left early: the source stops downloading.
    if (!ended) await iterator.return?.();
  }
  yield* parser.end();
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
