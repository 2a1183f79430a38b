import { createServer, type Server } from 'node:http';
import { buildBench, turingOrder } from '@terrarium/bench';
import { readTrajectories } from '@terrarium/formats';
import type { BenchItem, JudgeConfig } from '@terrarium/schema';
import { createReadStream } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAU2_RETAIL } from '../testing/sample-files';
import { createJudge } from './judge';

/**
 * A judge endpoint on 127.0.0.1 that answers from a script, as real judges answer: JSON in a code
 * fence after a think block, JSON with trailing commas and single quotes, prose with no JSON at all,
 * and one-letter Turing verdicts. The judge code talks real HTTP to it.
 */
function scriptedJudge(
  answers: readonly string[],
): Promise<{ server: Server; url: string; asked: string[] }> {
  const asked: string[] = [];
  let next = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      asked.push(body);
      const content = answers[next % answers.length] ?? '';
      next++;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `judge-${next}`,
          object: 'chat.completion',
          model: 'scripted-judge',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        }),
      );
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}/v1`, asked });
    });
  });
}

const FENCED =
  '<think>the listing matches the earlier ls</think>\n```json\n{"format": 5, "factuality": 4, "consistency": 5, "realism": 3, "quality": 4, "reasoning": "close"}\n```';
const SLOPPY = "{'Format': 5, 'Factuality': 2, 'Consistency': 3, 'Realism': 9, 'Quality': 1,}";
const PROSE = 'I am unable to rate this response.';

let items: BenchItem[] = [];
beforeAll(async () => {
  const sources = [];
  for await (const result of readTrajectories(createReadStream(TAU2_RETAIL), {
    fileName: 'retail.json',
  })) {
    if (result.type === 'trajectory')
      sources.push({ dataset: 'retail', trajectory: result.trajectory });
  }
  items = buildBench({
    trajectories: sources.slice(0, 2),
    name: 'judge-test',
    version: 1,
    sampling: { kind: 'agentworld' },
    seed: 0,
    devFraction: 0,
    createdAt: '2026-11-29T00:00:00Z',
    sources: ['retail'],
  }).items;
});

function config(url: string, mode: JudgeConfig['mode'], repeats: number): JudgeConfig {
  return {
    spec: `openai:${url}#scripted-judge`,
    temperature: 0,
    repeats,
    mode,
  };
}

describe('judge', () => {
  const servers: Server[] = [];
  afterAll(() => {
    for (const server of servers) server.close();
  });

  it('scores five dimensions as (raw-1)/4 over k judgings, counting unparseable answers', async () => {
    const judgeServer = await scriptedJudge([FENCED, SLOPPY, PROSE]);
    servers.push(judgeServer.server);
    const judge = createJudge(config(judgeServer.url, 'score', 3), {
      allowlist: ['127.0.0.1'],
      fetch,
      pricing: { inputPerMillion: 1, outputPerMillion: 2 },
    });
    const item = items[0];
    if (item === undefined) throw new Error('no bench item');
    const { scores, usage } = await judge.judge(item, 'retrieval', {
      kind: 'text',
      content: 'x',
      callId: null,
    });
    // Three calls of 100 prompt and 20 completion tokens, at $1 and $2 a million.
    expect([usage.inputTokens, usage.outputTokens]).toEqual([300, 60]);
    expect(usage.costUsd).toBeCloseTo((3 * (100 * 1 + 20 * 2)) / 1e6, 15);
    const byMetric = Object.fromEntries(scores.map((score) => [score.metric, score]));
    expect(Object.keys(byMetric).toSorted()).toEqual([
      'consistency',
      'factuality',
      'format',
      'overall',
      'quality',
      'realism',
    ]);
    expect(scores.every((score) => score.source === 'judge' && score.sim === 'retrieval')).toBe(
      true,
    );
    // Two answers parse (realism 9 is clamped to 5), the prose one is counted, not dropped.
    expect(byMetric['format']?.value).toBe(1);
    expect(byMetric['factuality']?.value).toBe(((4 - 1) / 4 + (2 - 1) / 4) / 2);
    expect(byMetric['realism']?.value).toBe(((3 - 1) / 4 + (5 - 1) / 4) / 2);
    expect(byMetric['quality']?.value).toBe(((4 - 1) / 4 + 0) / 2);
    expect(byMetric['overall']?.detail).toMatchObject({ judgings: 3, parsed: 2 });
    // The judge saw the pinned temperature and the item's real observation.
    expect(judgeServer.asked).toHaveLength(3);
    const request: unknown = JSON.parse(judgeServer.asked[0] ?? '{}');
    expect(request).toMatchObject({ model: 'scripted-judge', temperature: 0, stream: false });
    expect(item.real.content).toBe('isabella_lopez_6490');
    expect(judgeServer.asked[0]).toContain(item.real.content);
  });

  it('gives null scores, kept as missing, when no answer parses', async () => {
    const judgeServer = await scriptedJudge([PROSE]);
    servers.push(judgeServer.server);
    const judge = createJudge(config(judgeServer.url, 'score', 2), {
      allowlist: ['127.0.0.1'],
      fetch,
    });
    const item = items[1];
    if (item === undefined) throw new Error('no bench item');
    const { scores, usage } = await judge.judge(item, 'replay', item.real);
    // Its tokens are counted; with no price for the judge its cost is not known, not $0.
    expect(usage).toEqual({ inputTokens: 200, outputTokens: 40, costUsd: null });
    expect(scores.map((score) => score.value)).toEqual([null, null, null, null, null, null]);
    expect(scores.find((score) => score.metric === 'overall')?.detail).toMatchObject({
      judgings: 2,
      parsed: 0,
    });
  });

  it('in Turing mode records whether the judge took the simulated response for the real one', async () => {
    const judgeServer = await scriptedJudge(['A', 'Response B is the real one.']);
    servers.push(judgeServer.server);
    const judge = createJudge(config(judgeServer.url, 'turing', 2), {
      allowlist: ['127.0.0.1'],
      fetch,
    });
    const item = items[0];
    if (item === undefined) throw new Error('no bench item');
    const {
      scores: [score],
    } = await judge.judge(item, 'retrieval', {
      kind: 'text',
      content: 'x',
      callId: null,
    });
    // The real response swaps sides between the two judgings, so answering A then B is right
    // both times when it started at A, and fooled both times when it started at B.
    const realFirst = turingOrder(item.id, 0);
    expect(score?.metric).toBe('turing-fooled');
    expect(score?.value).toBe(realFirst === 'A' ? 0 : 1);
    expect(score?.detail).toMatchObject({
      realIs: [realFirst, realFirst === 'A' ? 'B' : 'A'],
      picks: ['A', 'B'],
    });
  });

  it('refuses a judge that is not an endpoint or not on the allowlist', () => {
    expect(() =>
      createJudge(
        { spec: 'retrieval', temperature: 0, repeats: 1, mode: 'score' },
        { allowlist: [], fetch },
      ),
    ).toThrow(/a judge is a model endpoint/);
    expect(() =>
      createJudge(config('http://judge.example.com/v1', 'score', 1), {
        allowlist: ['127.0.0.1'],
        fetch,
      }),
    ).toThrow(/judge\.example\.com/);
  });
});
