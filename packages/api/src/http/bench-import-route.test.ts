import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { BenchImportResponse } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importAgentWorldBench } from '../bench/bench-files';
import { officialRows, readRealTrajectories } from '../bench/official-rows.testkit';
import { TAU2_AIRLINE, TAU2_RETAIL } from '../testing/sample-files';
import { startTestServer, type TestServer } from '../testing/test-server';
import { BENCH_IMPORT_PATH } from './bench-import-route';

/** Two official-shape files from real tau2 runs: `mcp_test.jsonl` (retail), `search_test.jsonl` (airline). */
async function officialFiles(): Promise<{ name: string; text: string }[]> {
  const retail = officialRows((await readRealTrajectories([TAU2_RETAIL])).slice(0, 3), {
    task: 'mcp',
    firstId: 900_000,
    systemStr: 'You are a Tool World Model.',
  });
  const airline = officialRows((await readRealTrajectories([TAU2_AIRLINE])).slice(0, 2), {
    task: 'search',
    firstId: 1,
    systemStr: 'You are a Search World Model.',
  });
  // The first file's ids are above 2^53: written digit for digit, as the official files hold them.
  const lines = (rows: typeof retail, big: boolean) =>
    rows
      .map((row, i) => {
        const text = JSON.stringify(row);
        return big ? text.replace(/"id":\d+/, `"id":${9_007_199_254_740_993n + BigInt(i)}`) : text;
      })
      .join('\r\n');
  return [
    { name: 'mcp_test.jsonl', text: `${lines(retail, true)}\r\n` },
    { name: 'search_test.jsonl', text: lines(airline, false) },
  ];
}

function uploadUrl(server: TestServer, name: string, files: { name: string; size?: number }[]) {
  const params = new URLSearchParams({ name });
  for (const file of files) {
    params.append('file', file.name);
    if (file.size !== undefined) params.append('size', String(file.size));
  }
  return `${server.url}${BENCH_IMPORT_PATH}?${params.toString()}`;
}

/** The body streamed in small pieces (as a client reading from disk sends it), split anywhere. */
function streamed(bytes: Uint8Array, piece = 997): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + piece));
      offset += piece;
    },
  });
}

describe('POST /api/bench/import: AgentWorldBench files streamed to a running server', () => {
  let server: TestServer;
  let local: Store;
  let files: { name: string; text: string }[];
  const encoder = new TextEncoder();
  const sized = () =>
    files.map((file) => ({ name: file.name, size: encoder.encode(file.text).byteLength }));
  const post = (url: string, body: Uint8Array | ReadableStream<Uint8Array>, headers = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/x-ndjson', ...headers },
      body,
      duplex: 'half',
    });

  beforeAll(async () => {
    server = await startTestServer();
    local = await openMemoryStore();
    files = await officialFiles();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await local?.close();
  });

  it('imports a folder in one request: the same bench as a local import of the files', async () => {
    const body = encoder.encode(files.map((file) => file.text).join(''));
    const response = await post(uploadUrl(server, 'awb', sized()), streamed(body));
    expect(response.status).toBe(200);
    const answer = BenchImportResponse.parse(await response.json());
    const expected = await importAgentWorldBench(local, {
      name: 'awb',
      files: files.map((file) => ({
        fileName: file.name,
        lines: file.text.split(/\r?\n/).filter((line, i, all) => i < all.length - 1 || line !== ''),
      })),
    });
    expect(answer.errors).toEqual([]);
    expect(answer.manifest?.itemCount).toBe(expected.manifest?.itemCount);
    expect(answer.manifest?.itemCount).toBe(17);
    expect(answer.manifest?.byTask).toEqual({ mcp: 12, search: 5 });
    expect(answer.manifest?.contentHash).toBe(expected.manifest?.contentHash);
    const items = await server.store.getBenchItems({ name: 'awb' }, { offset: 0, limit: 1 });
    expect(items.rows[0]?.id).toBe('9007199254740993');
  });

  it('names file and line of a bad row and imports the others', async () => {
    const [mcp, search] = files;
    if (mcp === undefined || search === undefined) throw new Error('files');
    const broken = search.text.split('\n');
    broken[2] = broken[2]?.replace('"turn_idx":', '"turn_idx":"x","was":') ?? '';
    const texts = [mcp.text, broken.join('\n')];
    const url = uploadUrl(server, 'awb-bad', [
      { name: mcp.name, size: encoder.encode(texts[0]).byteLength },
      { name: search.name, size: encoder.encode(texts[1]).byteLength },
    ]);
    const answer = BenchImportResponse.parse(
      await (await post(url, encoder.encode(texts.join('')))).json(),
    );
    expect(answer.errors.map((error) => `${error.file}:${error.line}: ${error.field}`)).toEqual([
      'search_test.jsonl:3: turn_idx',
    ]);
    expect(answer.manifest?.itemCount).toBe(16);
  });

  it('stores nothing from an upload cut short, longer than declared, or not UTF-8', async () => {
    const benches = async () => (await server.store.listBenches()).length;
    const before = await benches();
    const body = encoder.encode(files.map((file) => file.text).join(''));
    const declared = sized();
    const second = declared[1];
    if (second === undefined) throw new Error('files');
    const short = await post(
      uploadUrl(server, 'cut', [declared[0] ?? second, { ...second, size: second.size + 10 }]),
      streamed(body),
    );
    expect(short.status).toBe(400);
    expect(await short.json()).toEqual({
      error: {
        message: `search_test.jsonl:5: the upload ended after ${second.size} of ${second.size + 10} bytes; nothing imported`,
      },
    });
    const long = await post(
      uploadUrl(server, 'long', [declared[0] ?? second, { ...second, size: second.size - 5 }]),
      streamed(body),
    );
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { message: string } }).error.message).toContain(
      'search_test.jsonl: the upload is longer than the sizes given',
    );
    const latin1 = new Uint8Array([...encoder.encode(files[0]?.text ?? ''), 0xff, 0x0a]);
    const notText = await post(uploadUrl(server, 'latin1', [{ name: 'mcp_test.jsonl' }]), latin1);
    expect(notText.status).toBe(400);
    expect(await notText.text()).toContain('mcp_test.jsonl:13: not UTF-8 text; nothing imported');
    expect(await benches()).toBe(before);
    expect(
      (await server.store.getBench('cut')) ?? (await server.store.getBench('long')),
    ).toBeNull();
  });

  it('refuses a folder without sizes, a missing name and callers without the token', async () => {
    const two = files.map((file) => ({ name: file.name }));
    const response = await post(uploadUrl(server, 'x', two), encoder.encode('{}'));
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('size: give each file its size in bytes');
    const nameless = await post(
      `${server.url}${BENCH_IMPORT_PATH}?file=a.jsonl`,
      encoder.encode('{}'),
    );
    expect(nameless.status).toBe(400);
    expect(await nameless.text()).toContain('name: missing (expected string)');
    const anonymous = await fetch(uploadUrl(server, 'x', [{ name: 'a.jsonl' }]), {
      method: 'POST',
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
  });
});
