import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedDataPath } from '@terrarium/schema/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedStep } from '@terrarium/schema';
import { simulationTable, type SimulateJsonOutput } from './simulate-command';
import { exitOf, runCli, startCli, waitForServeUrl } from '../testing/run-cli';
import { seededDataDir } from '@terrarium/db/test-store';

const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);
const SLOW = { timeout: 240_000 };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOutput(value: unknown): value is SimulateJsonOutput {
  if (!isRecord(value) || typeof value['trajectory'] !== 'string') return false;
  const steps = value['steps'];
  return (
    typeof value['sim'] === 'string' &&
    Array.isArray(steps) &&
    steps.every(
      (step) =>
        isRecord(step) &&
        typeof step['step'] === 'number' &&
        typeof step['real'] === 'string' &&
        typeof step['predicted'] === 'string' &&
        isRecord(step['scores']) &&
        isRecord(step['provenance']),
    )
  );
}

/**
 * A tau2 results file of one trajectory with `toolCalls` tool transitions: longer than any shipped
 * one, to see the default cap.
 */
function longTau2Results(toolCalls: number): string {
  const messages: Record<string, unknown>[] = [{ role: 'user', content: 'Where are my orders?' }];
  for (let at = 0; at < toolCalls; at++) {
    const id = `call_${at}`;
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, name: 'get_order_details', arguments: { order_id: `#W${at}` } }],
      },
      { role: 'tool', id, content: JSON.stringify({ order_id: `#W${at}`, status: 'pending' }) },
    );
  }
  return JSON.stringify({
    timestamp: '2025-08-01T16:16:00',
    info: { environment_info: { domain_name: 'retail' }, agent_info: { llm: 'gpt-4.1' } },
    tasks: [],
    simulations: [{ id: 'long-run', task_id: '0', trial: 0, messages }],
  });
}

/** The `--json` output, checked to have the documented shape. */
function parseOutput(stdout: string): SimulateJsonOutput {
  const value: unknown = JSON.parse(stdout);
  if (!isOutput(value)) throw new Error(`unexpected --json output: ${stdout.slice(0, 200)}`);
  return value;
}

describe('terrarium simulate', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await seededDataDir('simulate');
    const imported = await runCli([
      'import',
      TAU2_RETAIL,
      '--dataset',
      'retail',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
    const long = join(dataDir, 'long-tau2.json');
    await writeFile(long, longTau2Results(501));
    const importedLong = await runCli([
      'import',
      long,
      '--dataset',
      'long',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    if (importedLong.code !== 0) throw new Error(`import failed: ${importedLong.stderr}`);
  }, 120_000);

  it(
    'caps a run in-process as the server does: 500 by default, more refused in the server words',
    SLOW,
    async () => {
      const capped = await runCli([
        'simulate',
        '--dataset',
        'long',
        '--sim',
        'replay',
        '--json',
        '--data-dir',
        dataDir,
      ]);
      expect(capped.stderr).toBe('');
      const steps = parseOutput(capped.stdout).steps;
      expect(steps.length).toBe(500);
      expect(steps.at(-1)?.real).toBe('{"order_id":"#W499","status":"pending"}');

      const tooMany = await runCli([
        'simulate',
        '--dataset',
        'long',
        '--sim',
        'replay',
        '--max-steps',
        '1000',
        '--data-dir',
        dataDir,
      ]);
      expect(tooMany.code).toBe(1);
      expect(tooMany.stdout).toBe('');
      expect(tooMany.stderr).toBe('terrarium: --max-steps: Too big: expected number to be <=500\n');

      const help = await runCli(['simulate', '--help']);
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(
        '--max-steps <n> simulate at most this many transitions (default and most: 500)',
      );
    },
  );

  it(
    'replays the first tau2 retail trajectory exactly, by default and by external id',
    SLOW,
    async () => {
      const replay = await runCli([
        'simulate',
        '--dataset',
        'retail',
        '--sim',
        'replay',
        '--json',
        '--data-dir',
        dataDir,
      ]);
      expect(replay.stderr).toBe('');
      expect(replay.code).toBe(0);
      const output = parseOutput(replay.stdout);
      expect(output.sim).toBe('replay');
      expect(output.steps.map((step) => step.step)).toEqual([4, 5, 6, 11]);
      expect(output.steps.map((step) => step.scores['exact-match'])).toEqual([1, 1, 1, 1]);
      expect(output.steps.every((step) => step.predicted === step.real)).toBe(true);
      expect(output.steps[0]?.real).toBe('isabella_lopez_6490');

      const byExternalId = await runCli([
        'simulate',
        '--dataset',
        'retail',
        '--trajectory',
        '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae',
        '--sim',
        'replay',
        '--json',
        '--data-dir',
        dataDir,
      ]);
      expect(parseOutput(byExternalId.stdout).trajectory).toBe(output.trajectory);
    },
  );

  it('scores retrieval (leave-one-out) with a table and a mean line', SLOW, async () => {
    const table = await runCli([
      'simulate',
      '--dataset',
      'retail',
      '--sim',
      'retrieval',
      '--data-dir',
      dataDir,
    ]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[1]).toBe('step  tool/command                  exact?  token F1  content  latency');
    expect(lines[2]).toMatch(/^ {3}5 {2}find_user_id_by_email {9}no {11}0\.0 {6}0\.0 /);
    expect(lines[0]).toMatch(/^retrieval on trajectory \d+: 4 transitions, 4 simulated, 0 failed$/);
    expect(lines.at(-1)).toMatch(
      /^mean over 4 simulated: exact 0\/4, token F1 54\.5, content 20\.8, latency /,
    );
    // Nothing simulated (an endpoint nobody listens on): a script must not read success.
    const unreachable = await runCli([
      'simulate',
      '--dataset',
      'retail',
      '--sim',
      'openai:http://127.0.0.1:9/v1#m',
      '--max-steps',
      '1',
      '--data-dir',
      dataDir,
    ]);
    expect(unreachable.stdout).toContain('mean: none, every prediction failed');
    expect(unreachable.code).toBe(1);
  });

  it('counts failed predictions as failed, never as simulated, scored or timed', () => {
    const failed: SimulatedStep = {
      step: 4,
      actor: 'agent',
      action: { type: 'command', command: 'ls', interpreter: 'bash' },
      real: { kind: 'text', content: 'a.txt', callId: null },
      predicted: { kind: 'text', content: '', callId: null },
      reasoning: null,
      provenance: { backend: 'openai:http://127.0.0.1:9#m', cache: null, model: null },
      latencyMs: 3.25,
      usage: { inputTokens: 0, outputTokens: 0 },
      scores: {},
      error: 'request to http://127.0.0.1:9/v1/chat/completions failed: connect ECONNREFUSED',
    };
    const lines = simulationTable({
      trajectory: '7',
      sim: 'openai:http://127.0.0.1:9#m',
      steps: [failed, { ...failed, step: 6 }],
    }).split('\n');
    expect(lines[0]).toBe(
      'openai:http://127.0.0.1:9#m on trajectory 7: 2 transitions, 0 simulated, 2 failed',
    );
    expect(lines.slice(2)).toEqual([
      '   5  ls            error          -        -        -',
      '   7  ls            error          -        -        -',
      'mean: none, every prediction failed (nothing was scored)',
      `step 5 failed: ${failed.error}`,
      `step 7 failed: ${failed.error}`,
      '',
    ]);
  });

  it('goes through a running server that holds the folder, and names bad input', SLOW, async () => {
    const serve = startCli(['serve', '--port', '0', '--data-dir', dataDir]);
    try {
      await waitForServeUrl(serve);
      const served = await runCli([
        'simulate',
        '--dataset',
        'retail',
        '--sim',
        'replay',
        '--max-steps',
        '2',
        '--json',
        '--data-dir',
        dataDir,
      ]);
      expect(served.stderr).toBe('');
      const output = parseOutput(served.stdout);
      expect(output.steps.map((step) => [step.step, step.scores['exact-match']])).toEqual([
        [4, 1],
        [5, 1],
      ]);
      const missing = await runCli([
        'simulate',
        '--dataset',
        'nope',
        '--sim',
        'replay',
        '--data-dir',
        dataDir,
      ]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/no dataset "nope" \(datasets: retail, long\)/);
      // The same refusal whether or not a server holds the folder.
      const tooMany = await runCli([
        'simulate',
        '--dataset',
        'retail',
        '--sim',
        'replay',
        '--max-steps',
        '1000',
        '--data-dir',
        dataDir,
      ]);
      expect(tooMany.stderr).toBe('terrarium: --max-steps: Too big: expected number to be <=500\n');
    } finally {
      serve.kill('SIGTERM');
    }
    expect(await exitOf(serve)).toBe(0);
    const badSpec = await runCli([
      'simulate',
      '--dataset',
      'retail',
      '--sim',
      'oracle',
      '--data-dir',
      dataDir,
    ]);
    expect(badSpec.code).toBe(1);
    expect(badSpec.stderr).toBe(
      'terrarium: --sim oracle: expected replay, retrieval, onnx:PATH or openai:URL#MODEL\n',
    );
  });
});
