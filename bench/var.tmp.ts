import { fork } from 'node:child_process';
import { readSseData } from '../packages/worlds/src/openai/sse';
import { ChatCompletionChunk } from '../packages/worlds/src/openai/chat-protocol';
const child = fork(new URL('./openai-client-throughput.ts', import.meta.url).pathname, ['--serve'], { execArgv: process.execArgv });
const port = await new Promise<number>((r) => child.once('message', (m: any) => r(m.port)));
const url = `http://127.0.0.1:${port}/v1/chat/completions`;
const big = JSON.stringify({ messages: Array.from({ length: 12 }, (_, i) => ({ role: 'user', content: 'x'.repeat(400) + i })) });
async function rate(name: string, one: () => Promise<void>) {
  let next = 0; const n = 2000; const t = performance.now();
  await Promise.all(Array.from({ length: 256 }, async () => { while (next++ < n) await one(); }));
  console.log(name, (n / ((performance.now() - t) / 1000) / 5120).toFixed(3));
}
const text = async (body: string) => { const r = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } }); await r.text(); };
await rate('warm', () => text('{}'));
await rate('text small', () => text('{}'));
await rate('ctrl not passed', async () => { const c = new AbortController(); const r = await fetch(url, { method: 'POST', body: '{}' }); await r.text(); void c; });
await rate('ctrl passed', async () => { const c = new AbortController(); const r = await fetch(url, { method: 'POST', body: '{}', signal: c.signal }); await r.text(); });
await rate('timer only', async () => { const t = setTimeout(() => 0, 600000); const r = await fetch(url, { method: 'POST', body: '{}' }); await r.text(); clearTimeout(t); });
await rate('text small', () => text('{}'));
child.kill();
