import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Action } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { describe, expect, it } from 'vitest';
import type { ImportEvent } from '../read';
import { readTrajectories } from '../read-trajectories';
import { chunked, collect, utf8 } from '../stream/testing/probe-adapter';
import { isArray, isRecord } from './json-guards';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const TAU_BENCH_AIRLINE = sharedDataPath(
  'tau-bench-v1/historical_trajectories/gpt-4o-airline.json',
);

/** Reads `text` as the file `fileName` with every known format, as an import does. */
async function read(fileName: string, text: string): Promise<ImportEvent[]> {
  return collect(readTrajectories(chunked(utf8(text), [65536]), { fileName }));
}

function warningsOf(events: readonly ImportEvent[]) {
  return events.flatMap((event) => (event.type === 'warning' ? [event.warning] : []));
}

function toolCallsOf(events: readonly ImportEvent[]): Action[][] {
  return events.flatMap((event) =>
    event.type === 'trajectory'
      ? [event.trajectory.steps.map((step) => step.action).filter((a) => a.type === 'tool_call')]
      : [],
  );
}

/** `text` with its one occurrence of `from` replaced: the test fails loudly if it is not there once. */
function replacedOnce(text: string, from: string, to: string): string {
  expect(text.split(from)).toHaveLength(2);
  return text.replace(from, to);
}

/** The real tau-bench airline runs' messages (OpenAI messages with `tool_calls`), as JSONL lines. */
function tauBenchMessageLines(count: number): string[] {
  const parsed: unknown = JSON.parse(readFileSync(TAU_BENCH_AIRLINE, 'utf8'));
  if (!isArray(parsed)) throw new Error('tau-bench airline is not an array');
  return parsed
    .slice(0, count)
    .map((run) => JSON.stringify({ messages: isRecord(run) ? run.traj : null }));
}

describe('tool-call arguments that are not JSON', () => {
  it('are kept as text in an OpenAI-messages file, each with a warning naming file, line and field', async () => {
    // Three real runs as OpenAI-messages JSONL; in the third, two calls cut off before their
    // closing brace, as a stream that stopped early writes them.
    const [first = '', second = '', third = ''] = tauBenchMessageLines(3);
    const cut = [
      String.raw`"arguments":"{\"user_id\":\"omar_davis_3817\"}"`,
      String.raw`"arguments":"{\"reservation_id\": \"JG7FMM\"}"`,
    ].reduce((line, whole) => replacedOnce(line, whole, `${whole.slice(0, -2)}"`), third);
    const lines = [first, second, cut];

    const events = await read('runs.jsonl', `${lines.join('\n')}\n`);

    expect(events[0]).toEqual({ type: 'format', format: 'openai-messages' });
    expect(events.filter((event) => event.type === 'quarantine')).toEqual([]);
    // The warnings follow their record's trajectory, with the offset where that record starts.
    // Bytes, not characters: the runs hold non-ASCII text.
    const thirdStart = utf8(`${lines[0]}\n${lines[1]}\n`).length;
    expect(
      events
        .slice(1)
        .map((event) =>
          event.type === 'trajectory' ? ['trajectory', event.trajectory.source.line] : event,
        ),
    ).toEqual([
      ['trajectory', 1],
      ['trajectory', 2],
      ['trajectory', 3],
      {
        type: 'warning',
        warning: {
          file: 'runs.jsonl',
          line: 3,
          reason: 'messages[4].tool_calls[0].function.arguments: not valid JSON (kept as text)',
        },
        byteOffset: thirdStart,
      },
      {
        type: 'warning',
        warning: {
          file: 'runs.jsonl',
          line: 3,
          reason: 'messages[6].tool_calls[0].function.arguments: not valid JSON (kept as text)',
        },
        byteOffset: thirdStart,
      },
    ]);
    // The text is kept as it was written; the calls after it are read as ever.
    expect(toolCallsOf(events)[2]?.slice(0, 3)).toEqual([
      {
        type: 'tool_call',
        name: 'get_user_details',
        arguments: '{"user_id":"omar_davis_3817"',
        callId: 'call_MY94XAcnfHzfAZcVHqt5FRRQ',
      },
      {
        type: 'tool_call',
        name: 'get_reservation_details',
        arguments: '{"reservation_id": "JG7FMM"',
        callId: 'call_5jQdSXVBGc9unuJOdSZlau1r',
      },
      {
        type: 'tool_call',
        name: 'get_reservation_details',
        arguments: { reservation_id: 'LQ940Q' },
        callId: 'call_PA1XaKLPX8egjewaxIArCkRc',
      },
    ]);
  });

  it('are said alike in every format that writes arguments as a string', async () => {
    const tauBench = replacedOnce(
      readFileSync(TAU_BENCH_AIRLINE, 'utf8'),
      String.raw`"arguments": "{\"reservation_id\": \"FQ8APE\", \"passengers\": [{\"first_name\": \"Omar\", \"last_name\": \"Rossi\", \"dob\": \"1970-06-06\"}]}"`,
      String.raw`"arguments": "{\"reservation_id\": \"FQ8APE\", \"passengers\": [{\"first_name\": \"Omar\""`,
    );
    const atif = replacedOnce(
      readFileSync(`${FIXTURES}atif-v1-0-no-call-ids.trajectory.json`, 'utf8'),
      String.raw`"arguments": "{\"city\": \"Oslo\", \"days\": 1}"`,
      String.raw`"arguments": "{\"city\": \"Oslo\", \"days\": 1"`,
    );
    const mini = replacedOnce(
      readFileSync(`${FIXTURES}mini-swe-agent/count-files-toolcall.traj.json`, 'utf8'),
      String.raw`"arguments": "{\"command\": \"wc -c /repo/src/missing.py\"}"`,
      String.raw`"arguments": "wc -c /repo/src/missing.py"`,
    );
    // ShareGPT's function_call value is itself JSON; LLaMA-Factory writers put arguments in it as
    // an object or as a JSON string, which is the one that can be broken.
    const [calc = '', hello = ''] = readFileSync(`${FIXTURES}sharegpt.jsonl`, 'utf8').split('\n');
    const shareGpt = [
      hello,
      replacedOnce(
        calc,
        String.raw`\"arguments\": {\"expression\": \"17*23\"}`,
        String.raw`\"arguments\": \"{'expression': '17*23'}\"`,
      ),
    ].join('\n');

    const read4 = await Promise.all([
      read('gpt-4o-airline.json', tauBench),
      read('run.trajectory.json', atif),
      read('count.traj.json', mini),
      read('calc.jsonl', shareGpt),
    ]);

    expect(read4.map((events) => [events[0], warningsOf(events)])).toEqual([
      [
        { type: 'format', format: 'tau-bench-v1' },
        [
          {
            file: 'gpt-4o-airline.json',
            // The 56th run, which starts on this line of the file.
            line: 15_143,
            reason: 'traj[18].tool_calls[0].function.arguments: not valid JSON (kept as text)',
          },
        ],
      ],
      [
        { type: 'format', format: 'atif' },
        [
          {
            file: 'run.trajectory.json',
            line: 1,
            reason: 'steps[3].tool_calls[0].arguments: not valid JSON (kept as text)',
          },
        ],
      ],
      [
        { type: 'format', format: 'mini-swe-agent' },
        [
          {
            file: 'count.traj.json',
            line: 1,
            reason: 'messages[4].tool_calls[0].function.arguments: not valid JSON (kept as text)',
          },
        ],
      ],
      [
        { type: 'format', format: 'sharegpt' },
        [
          {
            file: 'calc.jsonl',
            line: 2,
            reason: 'conversations[1].value.arguments: not valid JSON (kept as text)',
          },
        ],
      ],
    ]);
    // Nothing is set aside, and each text is kept as written.
    expect(
      read4.flatMap((events) => events.filter((event) => event.type === 'quarantine')),
    ).toEqual([]);
    expect(
      read4.map((events) =>
        toolCallsOf(events)
          .flat()
          .flatMap((action) =>
            action.type === 'tool_call' && typeof action.arguments === 'string'
              ? [action.arguments]
              : [],
          ),
      ),
    ).toEqual([
      ['{"reservation_id": "FQ8APE", "passengers": [{"first_name": "Omar"'],
      ['{"city": "Oslo", "days": 1'],
      ['wc -c /repo/src/missing.py'],
      ["{'expression': '17*23'}"],
    ]);
  });

  it('say nothing for arguments that are JSON, empty, or not a string', async () => {
    const events = await read(
      'fine.jsonl',
      `${JSON.stringify({
        messages: [
          { role: 'user', content: 'List the files.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'ls', arguments: '' } },
              { id: 'b', type: 'function', function: { name: 'ls', arguments: { path: '/' } } },
              { id: 'c', type: 'function', function: { name: 'ls', arguments: '"/tmp"' } },
            ],
          },
        ],
      })}\n`,
    );
    expect(warningsOf(events)).toEqual([]);
    expect(
      toolCallsOf(events)[0]?.map((action) =>
        action.type === 'tool_call' ? action.arguments : null,
      ),
    ).toEqual([{}, { path: '/' }, '/tmp']);
  });

  it('keep arguments holding a number JSON data cannot (1e999) as text, and say so', async () => {
    const events = await read(
      'huge.jsonl',
      `${JSON.stringify([
        { role: 'user', content: 'Multiply.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'a', function: { name: 'mul', arguments: '{"x": 1e999}' } }],
        },
      ])}\n`,
    );
    expect(warningsOf(events)).toEqual([
      {
        file: 'huge.jsonl',
        line: 1,
        reason: '[1].tool_calls[0].function.arguments: holds a number out of range (kept as text)',
      },
    ]);
    expect(toolCallsOf(events)).toEqual([
      [{ type: 'tool_call', name: 'mul', arguments: '{"x": 1e999}', callId: 'a' }],
    ]);
  });

  it('are named from the outer document inside an embedded ATIF subagent run', async () => {
    // The helper's B7 work: a subagent run's warning named `steps[1]…`, a step of the main run.
    const text = readFileSync(`${FIXTURES}atif-v1-7-copied-context.trajectory.json`, 'utf8');
    const document: unknown = JSON.parse(text);
    if (!isRecord(document) || !isArray(document.subagent_trajectories)) {
      throw new Error('the fixture has no subagent_trajectories');
    }
    const summary = document.subagent_trajectories[0];
    if (!isRecord(summary) || !isArray(summary.steps)) throw new Error('no subagent steps');
    summary.steps[1] = {
      ...Object(summary.steps[1]),
      tool_calls: [{ tool_call_id: 'c1', function_name: 'bash', arguments: '{"cmd": ls' }],
    };
    const events = await read('copied.trajectory.json', JSON.stringify(document));
    expect(warningsOf(events).map((warning) => warning.reason)).toEqual([
      'subagent_trajectories[0].steps[1].tool_calls[0].arguments: not valid JSON (kept as text)',
    ]);
  });
});
