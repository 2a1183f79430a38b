import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ImportEvent } from './read';
import type { SourceFormat } from '@terrarium/schema';
import { readTrajectories } from './read-trajectories';
import { findBinaryEvidence } from './stream/top-level-shape';
import {
  chunked,
  collect,
  probeAdapter,
  quarantinesOf,
  tasksOf,
  utf8,
} from './stream/testing/probe-adapter';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';

const jsonl = probeAdapter({ kind: 'jsonl' });
const jsonArray = probeAdapter({ kind: 'json-array' });
const objectValues = probeAdapter({ kind: 'json-object-values' });
const objectStream = probeAdapter({ kind: 'object-stream', key: 'simulations' });

function read(
  bytes: Uint8Array | string,
  adapter = jsonl,
  options: { chunk?: number; fileName?: string; maxRecordBytes?: number } = {},
): Promise<ImportEvent[]> {
  const data = typeof bytes === 'string' ? utf8(bytes) : bytes;
  return collect(
    readTrajectories(
      chunked(data, [options.chunk ?? 65536]),
      {
        fileName: options.fileName ?? 'input.jsonl',
        ...(options.maxRecordBytes === undefined ? {} : { maxRecordBytes: options.maxRecordBytes }),
      },
      [adapter],
    ),
  );
}

function errorsOf(events: readonly ImportEvent[]) {
  return quarantinesOf(events).map((event) => event.error);
}

/** The one event a file that cannot be read at all gives. */
function fatal(file: string, reason: string) {
  return { type: 'fatal', error: { file, line: null, byteOffset: 0, reason } };
}

describe('readTrajectories on bad input', () => {
  it('quarantines malformed JSONL lines and keeps the good ones', async () => {
    const events = await read('{"id":1}\n{"id":2\n\n{"id":3}\nnot json\n');
    expect(events[0]).toEqual({ type: 'format', format: 'openai-messages' });
    expect(tasksOf(events)).toEqual(['{"id":1}', '{"id":3}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 2,
        byteOffset: 9,
        reason:
          "invalid JSON at line 2, byte offset 16: Expected ',' or '}' after property value in JSON at position 7",
      },
      {
        file: 'input.jsonl',
        line: 5,
        byteOffset: 27,
        reason: 'invalid JSON: Unexpected token \'o\', "not json" is not valid JSON',
      },
    ]);
    expect(quarantinesOf(events).map((event) => event.excerpt)).toEqual(['{"id":2', 'not json']);
  });

  it('reports a JSONL file cut inside its last line as truncated', async () => {
    const events = await read('{"id":1}\n{"id":"ab');
    expect(tasksOf(events)).toEqual(['{"id":1}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 2,
        byteOffset: 9,
        reason:
          'truncated: the file ends inside this record (Unterminated string in JSON at position 9)',
      },
    ]);
  });

  it('reports a JSON array cut inside an element, keeping the elements before it', async () => {
    const events = await read('[{"a":1},\n {"a":2},\n {"a":', jsonArray);
    expect(tasksOf(events)).toEqual(['{"a":1}', '{"a":2}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 3,
        byteOffset: 21,
        reason: 'truncated: the file ends inside this record',
      },
    ]);
    expect(quarantinesOf(events)[0]?.excerpt).toBe('{"a":');
  });

  it('reports a JSON array cut between elements once, after its complete elements', async () => {
    const events = await read('[{"a":1},{"a":2}', jsonArray);
    expect(tasksOf(events)).toEqual(['{"a":1}', '{"a":2}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 1,
        byteOffset: 16,
        reason: 'truncated: the file ends before the top-level array is closed',
      },
    ]);
  });

  it('gives one fatal event naming the file and the known formats for an unknown format', async () => {
    const adapters = [
      probeAdapter({ kind: 'jsonl' }, { sniff: (head) => head.startsWith('{"id"') }),
      probeAdapter({ kind: 'json-array' }, { format: 'sharegpt', sniff: () => false }),
    ];
    const events = await collect(
      readTrajectories(chunked(utf8('hello world\n'), [5]), { fileName: 'notes.txt' }, adapters),
    );
    expect(events).toEqual([
      {
        type: 'fatal',
        error: {
          file: 'notes.txt',
          line: null,
          byteOffset: null,
          reason:
            'unknown format: it matches none of the known formats (openai-messages, sharegpt)',
        },
      },
    ]);
  });

  it('quarantines a record with invalid UTF-8, naming the offending byte', async () => {
    const bytes = Uint8Array.of(...utf8('{"a":"x"}\n{"a":"'), 0xff, ...utf8('"}\n{"a":"é"}\n'));
    const events = await read(bytes);
    expect(tasksOf(events)).toEqual(['{"a":"x"}', '{"a":"é"}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 2,
        byteOffset: 10,
        reason: 'invalid UTF-8 at line 2, byte offset 16',
      },
    ]);
  });

  it('finds invalid UTF-8 inside a multi-line array element, across chunk boundaries', async () => {
    const bytes = Uint8Array.of(
      ...utf8('[\n{"a":1},\n{\n"b":\n"'),
      0xc3,
      0x28,
      ...utf8('"\n},\n{"c":3}\n]'),
    );
    const events = await read(bytes, jsonArray, { chunk: 3 });
    expect(tasksOf(events)).toEqual(['{"a":1}', '{"c":3}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 3,
        byteOffset: 11,
        reason: 'invalid UTF-8 at line 5, byte offset 19',
      },
    ]);
  });

  it('quarantines a 50 MB line without buffering it, and keeps the lines around it', async () => {
    const big = `{"big":"${'x'.repeat(50 * 1024 * 1024)}"}`;
    const events = await read(`{"a":1}\n${big}\n{"a":3}\n`);
    expect(tasksOf(events)).toEqual(['{"a":1}', '{"a":3}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 2,
        byteOffset: 8,
        reason:
          'record too large: 52,428,810 bytes, more than the 33,554,432 bytes one record may hold',
      },
    ]);
    const excerpt = quarantinesOf(events)[0]?.excerpt ?? '';
    expect(excerpt.length).toBe(2048);
    expect(excerpt.startsWith('{"big":"xxx')).toBe(true);
  });

  it('honours maxRecordBytes for array elements too', async () => {
    const events = await read(`[{"a":1},{"b":"${'y'.repeat(500)}"},{"c":3}]`, jsonArray, {
      maxRecordBytes: 100,
      chunk: 64,
    });
    expect(tasksOf(events)).toEqual(['{"a":1}', '{"c":3}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 1,
        byteOffset: 9,
        reason: 'record too large: 508 bytes, more than the 100 bytes one record may hold',
      },
    ]);
  });

  it('quarantines JSON nested 10,000 deep, in a line and in an array element', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const lines = await read(`{"a":1}\n${deep}\n{"a":3}`);
    expect(tasksOf(lines)).toEqual(['{"a":1}', '{"a":3}']);
    expect(errorsOf(lines)).toEqual([
      {
        file: 'input.jsonl',
        line: 2,
        byteOffset: 8,
        reason: 'JSON nested deeper than 1000 levels, the most one record may have',
      },
    ]);
    const elements = await read(`[1,\n${deep},\n3]`, jsonArray, { chunk: 1000 });
    expect(tasksOf(elements)).toEqual(['1', '3']);
    expect(errorsOf(elements)).toEqual([
      {
        file: 'input.jsonl',
        line: 2,
        byteOffset: 4,
        reason: 'JSON nested deeper than 1000 levels, the most one record may have',
      },
    ]);
  });

  it('accepts nesting of exactly 1,000 levels', async () => {
    const deepest = `${'['.repeat(1000)}${']'.repeat(1000)}`;
    expect(tasksOf(await read(`${deepest}\n`))).toEqual([deepest]);
    expect(tasksOf(await read(`[${deepest}]`, jsonArray))).toEqual([deepest]);
  });

  it('refuses a binary file with one fatal event', async () => {
    const png = Uint8Array.of(
      0x89,
      0x50,
      0x4e,
      0x47,
      0x0d,
      0x0a,
      0x1a,
      0x0a,
      0,
      0,
      0,
      0x0d,
      0x49,
      0x48,
    );
    expect(await read(png, jsonl, { fileName: 'cat.png' })).toEqual([
      {
        type: 'fatal',
        error: {
          file: 'cat.png',
          line: null,
          byteOffset: 8,
          reason: 'binary file: NUL byte at byte offset 8',
        },
      },
    ]);
  });

  it('names a compressed file and what to do, where it said only "binary"', async () => {
    const text = '{"task": "one"}\n{"task": "two"}\n';
    expect(await read(gzipSync(text), jsonl, { fileName: 'run.jsonl.gz' })).toEqual([
      fatal(
        'run.jsonl.gz',
        'gzip-compressed file: only uncompressed text is read; gunzip it first',
      ),
    ]);
    // A zip archive's local file header, then a stored file's name.
    const zip = Uint8Array.of(0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 0, 0, 0x61, 0x2e, 0x6a);
    expect(await read(zip, jsonl, { fileName: 'runs.zip' })).toEqual([
      fatal('runs.zip', 'zip-compressed file: only uncompressed text is read; unzip it first'),
    ]);
    // Text that merely starts like bzip2's mark is text; a real bzip2 head is not.
    expect(findBinaryEvidence(new TextEncoder().encode('BZh1 is a name\n'))).toBeNull();
    expect(
      findBinaryEvidence(Uint8Array.of(0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59))
        ?.reason,
    ).toBe('bzip2-compressed file: only uncompressed text is read; bunzip2 it first');
  });

  it('refuses an empty file, a blank one and a lone BOM', async () => {
    const empty = {
      type: 'fatal',
      error: { file: 'input.jsonl', line: null, byteOffset: null, reason: 'empty file' },
    };
    expect(await read('')).toEqual([empty]);
    expect(await read(' \n\r\n\t')).toEqual([empty]);
    expect(await read(Uint8Array.of(0xef, 0xbb, 0xbf))).toEqual([empty]);
  });

  it('quarantines records the adapter rejects, with the field named', async () => {
    const failing = probeAdapter({ kind: 'jsonl' });
    const events = await read('{"a":1}\n{"bad":"messages[0].role"}\n{"bad":5}\n{"a":4}\n', failing);
    expect(tasksOf(events)).toEqual(['{"a":1}', '{"a":4}']);
    expect(errorsOf(events)).toEqual([
      { file: 'input.jsonl', line: 2, byteOffset: 8, reason: 'messages[0].role: marked bad' },
      {
        file: 'input.jsonl',
        line: 3,
        byteOffset: 35,
        reason: 'openai-messages converter failed: TypeError: bad is not a string',
      },
    ]);
    expect(quarantinesOf(events)[0]?.excerpt).toBe('{"bad":"messages[0].role"}');
  });

  it('accepts a UTF-8 BOM and CRLF line endings, counting offsets from the first byte', async () => {
    const bytes = Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8('{"a":1}\r\n{"a":2}\r\n'));
    const events = await read(bytes);
    expect(
      events.flatMap((event) => (event.type === 'trajectory' ? [event.trajectory.metadata] : [])),
    ).toEqual([
      { line: 1, byteOffset: 3, ordinal: 0, key: null, header: [] },
      { line: 2, byteOffset: 12, ordinal: 1, key: null, header: [] },
    ]);
    expect(quarantinesOf(events)).toEqual([]);
    const pretty = await read('[\r\n  {"a": 1},\r\n  {"a": 2}\r\n]\r\n', jsonArray);
    expect(tasksOf(pretty)).toEqual(['{"a":1}', '{"a":2}']);
    expect(quarantinesOf(pretty)).toEqual([]);
  });

  it("gives a fatal event when the file lacks the layout's top-level shape", async () => {
    expect(await read('\n {"a":1}', jsonArray)).toEqual([
      { type: 'format', format: 'openai-messages' },
      {
        type: 'fatal',
        error: {
          file: 'input.jsonl',
          line: 2,
          byteOffset: 2,
          reason: "expected a JSON array at the top level, found '{'",
        },
      },
    ]);
    expect(await read('{"timestamp":1,"info":{}}', objectStream)).toEqual([
      { type: 'format', format: 'openai-messages' },
      {
        type: 'fatal',
        error: {
          file: 'input.jsonl',
          line: 1,
          byteOffset: 25,
          reason: 'no top-level "simulations" array in the file',
        },
      },
    ]);
  });

  it('reports a broken structure once and skips the rest of the file', async () => {
    const events = await read('{"0": {"a":1}, 5: {"a":2}}', objectValues);
    expect(tasksOf(events)).toEqual(['{"a":1}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 1,
        byteOffset: 15,
        reason:
          "invalid JSON structure: expected a member name or '}', found '5'; the rest of the file is skipped",
      },
    ]);
    const trailing = await read('[{"a":1}]\nx', jsonArray);
    expect(tasksOf(trailing)).toEqual(['{"a":1}']);
    expect(errorsOf(trailing)).toEqual([
      {
        file: 'input.jsonl',
        line: 2,
        byteOffset: 10,
        reason:
          "invalid JSON structure: unexpected data after the end of the top-level value, found 'x'; the rest of the file is skipped",
      },
    ]);
  });

  it('names the line and byte offset of a JSON error inside a multi-line element', async () => {
    const events = await read('[\n{"a": 1},\n{\n  "b": tru\n},\n{"c": 3}]', jsonArray);
    expect(tasksOf(events)).toEqual(['{"a":1}', '{"c":3}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 3,
        byteOffset: 12,
        reason: expect.stringMatching(/^invalid JSON/),
      },
    ]);
  });
});

describe('readTrajectories on the layouts', () => {
  it('streams object-stream records with the header members that precede them', async () => {
    const text =
      '{"timestamp":"t","info":{"x":1},"simulations":[{"id":"a"},{"id":"b"}],"after":{"y":2}}';
    const events = await read(text, objectStream, { chunk: 5 });
    expect(
      events.flatMap((event) =>
        event.type === 'trajectory'
          ? [[event.trajectory.task, event.trajectory.metadata.header]]
          : [],
      ),
    ).toEqual([
      ['{"id":"a"}', ['timestamp', 'info']],
      ['{"id":"b"}', ['timestamp', 'info']],
    ]);
    expect(quarantinesOf(events)).toEqual([]);
  });

  it('quarantines a header member that is not valid JSON, and still reads the records', async () => {
    const events = await read('{"info": {"x": nope}, "simulations": [{"id":"a"}]}', objectStream);
    expect(tasksOf(events)).toEqual(['{"id":"a"}']);
    expect(errorsOf(events)).toEqual([
      {
        file: 'input.jsonl',
        line: 1,
        byteOffset: 9,
        reason: expect.stringMatching(/^header member "info": invalid JSON/),
      },
    ]);
  });

  it('passes the key of each json-object-values record, unescaped', async () => {
    const events = await read('{"0": {"a":1}, "1\\"x\\u00e9": [2], "2": "three"}', objectValues, {
      chunk: 2,
    });
    expect(
      events.flatMap((event) =>
        event.type === 'trajectory' ? [[event.trajectory.metadata.key, event.trajectory.task]] : [],
      ),
    ).toEqual([
      ['0', '{"a":1}'],
      ['1"xé', '[2]'],
      ['2', '"three"'],
    ]);
  });

  it('reads a json-document file as one record', async () => {
    const document = probeAdapter({ kind: 'json-document' });
    const events = await read('\n{"trajectory": [1, 2, {"x": "]"}]}\n', document, { chunk: 4 });
    expect(tasksOf(events)).toEqual(['{"trajectory":[1,2,{"x":"]"}]}']);
    expect(quarantinesOf(events)).toEqual([]);
    const cut = await read('{"trajectory": [1, 2', document);
    expect(errorsOf(cut)).toEqual([
      {
        file: 'input.jsonl',
        line: 1,
        byteOffset: 0,
        reason: 'truncated: the file ends inside this record',
      },
    ]);
  });

  it('uses a forced format even when its adapter does not claim the file', async () => {
    const shy = probeAdapter({ kind: 'jsonl' }, { format: 'sharegpt', sniff: () => false });
    const events = await collect(
      readTrajectories(chunked(utf8('{"a":1}\n'), [64]), { fileName: 'f', format: 'sharegpt' }, [
        jsonl,
        shy,
      ]),
    );
    expect(events[0]).toEqual({ type: 'format', format: 'sharegpt' });
    expect(tasksOf(events)).toEqual(['{"a":1}']);
    const missing = await collect(
      readTrajectories(chunked(utf8('{"a":1}\n'), [64]), { fileName: 'f', format: 'atif' }, [
        jsonl,
      ]),
    );
    expect(missing).toEqual([
      {
        type: 'fatal',
        error: {
          file: 'f',
          line: null,
          byteOffset: null,
          reason: 'no reader for format atif (known formats: openai-messages)',
        },
      },
    ]);
  });

  it('closes the source when the consumer stops early', async () => {
    let closed = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      try {
        for (let index = 0; index < 100; index++) yield utf8(`{"n":${index}}\n`.repeat(1000));
      } finally {
        closed = true;
      }
    }
    for await (const event of readTrajectories(source(), { fileName: 'f' }, [jsonl])) {
      if (event.type === 'trajectory') break;
    }
    expect(closed).toBe(true);
  });
});

function readReal(bytes: Uint8Array, fileName: string, size = 4096): Promise<ImportEvent[]> {
  return collect(readTrajectories(chunked(bytes, [size]), { fileName }));
}

/** One OpenAI-messages JSONL line. */
function chatLine(id: number): string {
  return JSON.stringify({
    id: `t${id}`,
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ],
  });
}

/** `body` read with the default adapters and openai-messages forced, as `--format` does. */
/** What a file reads as when forced into `format`, the format event left out. */
async function readAs(
  bytes: Uint8Array,
  fileName: string,
  format: SourceFormat,
  resumeAfter?: number,
): Promise<ImportEvent[]> {
  const events = await collect(
    readTrajectories(chunked(bytes, [65536]), {
      fileName,
      format,
      ...(resumeAfter === undefined ? {} : { resumeAfter }),
    }),
  );
  return events.filter((event) => event.type !== 'format');
}

/** The one event of a file that is not of the format it was forced into. */
function notThisFormat(file: string, notFormat: SourceFormat, reason: string): ImportEvent[] {
  return [{ type: 'fatal', error: { file, line: null, byteOffset: null, reason }, notFormat }];
}

function readForced(body: string): Promise<ImportEvent[]> {
  return collect(
    readTrajectories(chunked(utf8(body), [4096]), {
      fileName: 'chat.jsonl',
      format: 'openai-messages',
    }),
  );
}

describe('readTrajectories on the real files', () => {
  const RETAIL = sharedDataPath('tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json');

  it('detects and reads every real results file with the default adapters', async () => {
    const expected: [string, string, number][] = [
      [RETAIL, 'tau2-bench', 40],
      [
        sharedDataPath('tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json'),
        'tau2-bench',
        40,
      ],
      [
        sharedDataPath('tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json'),
        'tau2-bench',
        20,
      ],
      [
        sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
        'tau-bench-v1',
        200,
      ],
    ];
    const { seen, wanted } = await readWhole(expected);
    expect(seen).toEqual(wanted);
  });

  it('takes a file whose first records all fail in a forced format for another format, in one error', async () => {
    // walk 40: the tau-bench airline array (53,013 lines) forced as openai-messages gave 53,013
    // quarantined "records", one per line.
    const path = sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json');
    const events = await collect(
      readTrajectories(chunked(new Uint8Array(readFileSync(path)), [65536]), {
        fileName: 'gpt-4o-airline.json',
        format: 'openai-messages',
      }),
    );
    expect(events).toEqual([
      { type: 'format', format: 'openai-messages' },
      {
        type: 'fatal',
        error: {
          file: 'gpt-4o-airline.json',
          line: null,
          byteOffset: null,
          reason:
            'not openai-messages: its first 20 records all failed as openai-messages (the first, line 1: invalid JSON: Unexpected end of JSON input); left to detection, it reads as tau-bench-v1',
        },
        notFormat: 'openai-messages',
      },
    ]);
  });

  it('says a forced format is wrong when the file stops reading as it, or has fewer records than the probe', async () => {
    // walk 46: OpenAI-messages lines forced as tau2-bench counted "1 bad record quarantined" and
    // skipped the rest; a tau2 results file forced as InterCode, "4 bad records".
    const chat = utf8(Array.from({ length: 30 }, (_, n) => chatLine(n)).join('\n'));
    expect(await readAs(chat, 'chat.jsonl', 'tau2-bench')).toEqual(
      notThisFormat(
        'chat.jsonl',
        'tau2-bench',
        "not tau2-bench: its one record failed as tau2-bench (line 2: invalid JSON structure: unexpected data after the end of the top-level value, found '{'; the rest of the file is skipped); left to detection, it reads as openai-messages",
      ),
    );
    const retail = new Uint8Array(readFileSync(RETAIL));
    expect(await readAs(retail, 'retail.json', 'intercode')).toEqual(
      notThisFormat(
        'retail.json',
        'intercode',
        'not intercode: all its 4 records failed as intercode (the first, line 2: expected an object, got string); left to detection, it reads as tau2-bench',
      ),
    );
    // A top level of the wrong kind: said with the line it stopped at.
    const array = sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json');
    expect(
      await readAs(new Uint8Array(readFileSync(array)), 'gpt-4o-airline.json', 'tau2-bench'),
    ).toEqual(
      notThisFormat(
        'gpt-4o-airline.json',
        'tau2-bench',
        "not tau2-bench: it stopped reading as tau2-bench at line 1 (expected a JSON object at the top level, found '['); left to detection, it reads as tau-bench-v1",
      ),
    );
    // A resumed read (past offset 0) has read records as the format before: its failures stay
    // its own, quarantined one by one.
    const resumed = await readAs(retail, 'retail.json', 'intercode', 0);
    expect(resumed.map((event) => event.type)).toEqual([
      'quarantine',
      'quarantine',
      'quarantine',
      'quarantine',
    ]);
  });

  it('keeps a forced format whose file has bad records among good ones, or fewer than the probe', async () => {
    const text = [
      'not json',
      ...Array.from({ length: 25 }, (_, n) => chatLine(n)),
      '{"broken',
    ].join('\n');
    const events = await readForced(text);
    expect(events.filter((event) => event.type === 'trajectory')).toHaveLength(25);
    expect(errorsOf(events).map((error) => error.line)).toEqual([1, 27]);
    // The failure held back comes before the first trajectory, as it stands in the file.
    expect(events.slice(0, 3).map((event) => event.type)).toEqual([
      'format',
      'quarantine',
      'trajectory',
    ]);
    // Three bad lines are three bad records: too few to call the file another format.
    expect(errorsOf(await readForced('a\nb\nc\n')).map((error) => error.line)).toEqual([1, 2, 3]);
  });

  it('keeps the simulations before the cut of a truncated tau2 file and quarantines the cut one', async () => {
    const bytes = new Uint8Array(readFileSync(RETAIL));
    const whole = await readReal(bytes, 'retail.json', bytes.length);
    const lines = whole.flatMap((event) =>
      event.type === 'trajectory' ? [event.trajectory.source.line] : [],
    );
    expect(lines.length).toBe(40);
    // The 11th simulation starts on its own line, after its indentation.
    const line = lines[10] ?? 0;
    let offset = 0;
    for (let seen = 1; seen < line; seen++) offset = bytes.indexOf(0x0a, offset) + 1;
    while (bytes[offset] === 0x20) offset++;
    expect(bytes[offset]).toBe(0x7b);

    const events = await readReal(bytes.subarray(0, offset + 500), 'retail.json');
    expect(events.filter((event) => event.type === 'trajectory').length).toBe(10);
    expect(errorsOf(events)).toEqual([
      {
        file: 'retail.json',
        line,
        byteOffset: offset,
        reason: 'truncated: the file ends inside this record',
      },
    ]);
  });
});

/** Per file: its path, first event, event count and quarantines, and what they should be. */
async function readWhole(expected: readonly [string, string, number][]) {
  const seen: unknown[] = [];
  const wanted: unknown[] = [];
  for (const [path, format, count] of expected) {
    const events = await readReal(new Uint8Array(readFileSync(path)), path);
    seen.push([path, events[0], events.length, quarantinesOf(events).length]);
    wanted.push([path, { type: 'format', format }, count + 1, 0]);
  }
  return { seen, wanted };
}

describe.skipIf(!sharedDataAvailable('intercode'))(
  `readTrajectories on the InterCode files ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('detects and reads the InterCode bash, SQL and human SQL results', async () => {
      const { seen, wanted } = await readWhole([
        [
          sharedDataPath(
            'intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_1.json',
          ),
          'intercode',
          60,
        ],
        [
          sharedDataPath('intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json'),
          'intercode',
          1034,
        ],
        [
          sharedDataPath('intercode/data/results/sql/human/ic_sql_multiturn_human_10_turns.json'),
          'intercode-human-sql',
          15,
        ],
      ]);
      expect(seen).toEqual(wanted);
    });
  },
);
