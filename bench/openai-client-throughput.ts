/**
 * Benchmarks (a) and (c) of issue 3, figures from this one run:
 *   (a) the OpenAI-compatible client against a local stub server that answers every request after a
 *       fixed 50 ms (streamed, with usage), 256 requests in flight: achieved / ideal throughput
 *       (ideal = 256 / 50 ms = 5,120 requests/s; goal ≥ 0.9);
 *   (c) retrieval predictions/s over the largest dataset (InterCode SQL, 5,867 transitions), and
 *       replay predictions/s over the same.
 *
 *   pnpm --filter @terrarium/bench openai-client [--requests 2000] [--concurrency 256] [--latency 50]
 */
import { createReadStream } from 'node:fs';
import { fork } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { readTrajectories } from '@terrarium/formats';
import type { Trajectory } from '@terrarium/schema';
import {
  buildRetrievalIndex,
  createOpenAIWorldModel,
  createReplayWorldModel,
  createRetrievalWorldModel,
  DEFAULT_TEMPLATE,
  renderMessages,
  predictionInputs,
  type PredictionInput,
  type WorldModel,
} from '@terrarium/worlds';

const SQL = resolve(
  import.meta.dirname,
  '../../shared/data/intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json',
);

const args = process.argv.slice(2);
function option(name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  const value = at === -1 ? Number.NaN : Number(args[at + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
const requests = option('requests', 2000);
const concurrency = option('concurrency', 256);
const latencyMs = option('latency', 50);

const OBSERVATION = JSON.stringify({
  rows: [
    [1, 'Teodor Salparov'],
    [2, 'Maksim Botin'],
  ],
});

/**
 * The stub: answers every chat completion after a fixed delay, streamed in 16-character pieces.
 * It runs in a child process (this file with `--serve`) so that it does not share an event loop
 * and a core with the client being measured.
 */
async function serveStub(): Promise<void> {
  let inFlight = 0;
  let peak = 0;
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    incoming.resume();
    incoming.on('end', () => {
      setTimeout(() => {
        outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
        outgoing.end(STREAM_BODY);
        inFlight--;
      }, latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stub has no port');
  process.send?.({ port: address.port });
  process.on('message', () => process.send?.({ peak }));
}

const STREAM_BODY = (() => {
  let body = '';
  for (let at = 0; at < OBSERVATION.length; at += 16) {
    const delta = { content: OBSERVATION.slice(at, at + 16) };
    body += `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  }
  const usage = { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920 };
  body += `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`;
  return `${body}data: ${JSON.stringify({ choices: [], usage })}\n\ndata: [DONE]\n\n`;
})();

interface Stub {
  baseUrl: string;
  peak(): Promise<number>;
  close(): void;
}

async function startStub(): Promise<Stub> {
  const child = fork(import.meta.filename, ['--serve', ...args], { execArgv: process.execArgv });
  const port = await new Promise<number>((done, fail) => {
    child.once('message', (message) => {
      if (
        typeof message === 'object' &&
        message !== null &&
        'port' in message &&
        typeof message.port === 'number'
      )
        done(message.port);
      else fail(new Error(`unexpected message from the stub: ${JSON.stringify(message)}`));
    });
    child.once('exit', (code) => fail(new Error(`the stub exited with ${code}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    peak: () =>
      new Promise((done) => {
        child.once('message', (message) => {
          done(
            typeof message === 'object' &&
              message !== null &&
              'peak' in message &&
              typeof message.peak === 'number'
              ? message.peak
              : -1,
          );
        });
        child.send('peak');
      }),
    close: () => child.kill(),
  };
}

/** The same requests with no client at all: bare fetch calls reading the body, as a baseline. */
async function bareFetchRate(baseUrl: string, body: string, count: number): Promise<number> {
  let next = 0;
  const one = async () => {
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await response.text();
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) await one();
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

async function loadSql(): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const event of readTrajectories(createReadStream(SQL), { fileName: SQL })) {
    if (event.type === 'trajectory') trajectories.push(event.trajectory);
  }
  return trajectories;
}

async function predictAll(model: WorldModel, inputs: PredictionInput[]): Promise<number> {
  const started = performance.now();
  for (const input of inputs) await model.predict(input.context, input.history, input.action);
  return inputs.length / ((performance.now() - started) / 1000);
}

const ROUNDS = 3;

async function clientThroughput(): Promise<void> {
  const stub = await startStub();
  const model = createOpenAIWorldModel({
    baseUrl: stub.baseUrl,
    model: 'stub',
    fetch,
    maxConcurrency: concurrency,
    retry: { attempts: 1, baseDelayMs: 100 },
    pricing: { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  });
  const [trajectory] = await loadSql();
  const [input] = trajectory === undefined ? [] : [...predictionInputs(trajectory)].slice(-1);
  if (input === undefined) throw new Error(`${SQL}: no transition`);
  const clientRate = async (count: number): Promise<number> => {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: count }, () =>
        model.predict(input.context, input.history, input.action),
      ),
    );
    return count / ((performance.now() - started) / 1000);
  };
  const body = JSON.stringify({
    model: 'stub',
    messages: renderMessages(DEFAULT_TEMPLATE, input.context, input.history, input.action),
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
  });
  // Warm-up of both (connections, JIT), then alternating rounds so that neither runs warmer.
  await clientRate(requests);
  await bareFetchRate(stub.baseUrl, body, requests);
  const ideal = concurrency / (latencyMs / 1000);
  const rounds: { client: number; bare: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rounds.push({
      client: await clientRate(requests),
      bare: await bareFetchRate(stub.baseUrl, body, requests),
    });
  }
  const stats = model.stats()[0];
  const peak = await stub.peak();
  stub.close();
  const best = Math.max(...rounds.map((round) => round.client));
  console.log(
    `(a) OpenAI client: ${requests} requests per round, ${concurrency} in flight, stub latency ${latencyMs} ms, ideal ${ideal.toFixed(0)} req/s`,
  );
  for (const [index, round] of rounds.entries()) {
    console.log(
      `    round ${index + 1}: client ${round.client.toFixed(0)} req/s = ${(round.client / ideal).toFixed(3)} of ideal; ` +
        `bare fetch ${round.bare.toFixed(0)} req/s = ${(round.bare / ideal).toFixed(3)}; client/bare ${(round.client / round.bare).toFixed(3)}`,
    );
  }
  console.log(
    `    achieved/ideal (best round) = ${(best / ideal).toFixed(3)} (goal ≥ 0.9); peak in flight: client ${stats?.peakInFlight}, server ${peak}`,
  );
  console.log(
    `    ${stats?.completed} completed, ${stats?.failed} failed; tokens in/out ${stats?.inputTokens}/${stats?.outputTokens}, cost $${stats?.costUsd?.toFixed(6)}`,
  );
}

async function backendThroughput(): Promise<void> {
  const trajectories = await loadSql();
  const inputs = trajectories.flatMap((trajectory) => [...predictionInputs(trajectory)]);
  let started = performance.now();
  const index = buildRetrievalIndex(trajectories);
  const buildMs = performance.now() - started;
  const retrieval = await predictAll(createRetrievalWorldModel(index), inputs);
  started = performance.now();
  const replay = createReplayWorldModel(trajectories);
  const replayBuildMs = performance.now() - started;
  const replayRate = await predictAll(replay, inputs);
  console.log(
    `(c) InterCode SQL: ${trajectories.length} trajectories, ${inputs.length} transitions`,
  );
  console.log(
    `    retrieval: index built in ${buildMs.toFixed(0)} ms; ${retrieval.toFixed(0)} predictions/s`,
  );
  console.log(
    `    replay:    index built in ${replayBuildMs.toFixed(0)} ms; ${replayRate.toFixed(0)} predictions/s`,
  );
}

if (args.includes('--serve')) {
  await serveStub();
} else {
  await clientThroughput();
  await backendThroughput();
}
