import type { ImportFile } from '../import/import-files';
import { sharedDataPath } from '@terrarium/schema/testing';

/** Real files from the shared data folder with their known counts (see its README). */
export const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);
export const TAU2_AIRLINE = sharedDataPath(
  'tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json',
);
export const TAU2_TELECOM = sharedDataPath(
  'tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json',
);
export const TAU_BENCH_AIRLINE = sharedDataPath(
  'tau-bench-v1/historical_trajectories/gpt-4o-airline.json',
);
/** Only where ../shared/data is beside the clone (InterCode is not shipped): guard with skipIf. */
export const INTERCODE_SQL = sharedDataPath(
  'intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json',
);

/** One OpenAI chat-messages record: a task, one tool call and its result, a closing answer. */
export function chatRecord(id: string): string {
  return JSON.stringify({
    id,
    messages: [
      { role: 'system', content: 'You are a shell assistant.' },
      { role: 'user', content: 'How many files are here?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `${id}-call`,
            type: 'function',
            function: { name: 'ls', arguments: '{"path":"."}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: `${id}-call`, content: 'a.txt\nb.txt' },
      { role: 'assistant', content: 'There are 2 files.' },
    ],
  });
}

/** JSONL with two good chat records around one malformed line (line 2). */
export const JSONL_WITH_ONE_BAD_LINE = `${chatRecord('one')}\n{"messages": [oops\n${chatRecord('two')}\n`;

export function textFile(name: string, text: string): ImportFile {
  const bytes = new TextEncoder().encode(text);
  return { name, size: bytes.byteLength, chunks: chunked(bytes) };
}

async function* chunked(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  // Small chunks so that records straddle chunk boundaries, as they do in real streams.
  for (let start = 0; start < bytes.byteLength; start += 97)
    yield bytes.subarray(start, start + 97);
}
