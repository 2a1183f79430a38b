import * as fc from 'fast-check';
import { Trajectory } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { RecordError, type RecordContext } from '../adapter';
import { ADAPTERS } from './index';

/** The top-level keys each format reads, so generated records get past the first checks. */
const KEYS: Record<string, string[]> = {
  'tau-bench-v1': ['task_id', 'reward', 'info', 'traj', 'trial'],
  'tau2-bench': ['id', 'task_id', 'reward_info', 'messages', 'duration'],
  'swe-agent': ['trajectory', 'history', 'info', 'replay_config'],
  intercode: ['environment', 'query', 'turn_history', 'summary'],
  'intercode-human-sql': ['environment', 'query_idx', 'query', 'reward', 'trajectory'],
  'openai-messages': ['messages', 'tools', 'id'],
  sharegpt: ['conversations', 'tools', 'system'],
  agentworldbench: [
    'task',
    'id',
    'prompt',
    'response',
    'current_prompt',
    'system_str',
    'turn_idx',
    'total_turns',
  ],
  atif: ['schema_version', 'session_id', 'agent', 'steps'],
  openhands: ['instance_id', 'history', 'metadata', 'test_result', 'issue', 'success'],
  'mini-swe-agent': ['info', 'messages', 'trajectory_format', 'instance_id'],
};

const message = fc.record(
  {
    role: fc.constantFrom('system', 'user', 'assistant', 'tool', 'function', 'exit'),
    content: fc.oneof(fc.string(), fc.constant(null), fc.jsonValue()),
    tool_calls: fc.array(fc.jsonValue(), { maxLength: 3 }),
    tool_call_id: fc.oneof(fc.string(), fc.integer()),
    id: fc.string(),
    name: fc.string(),
    extra: fc.jsonValue(),
  },
  { requiredKeys: ['role'] },
);

function recordFor(format: string) {
  const keys = KEYS[format] ?? [];
  const value = fc.oneof(
    fc.jsonValue(),
    fc.array(message, { maxLength: 5 }),
    fc.array(fc.jsonValue(), { maxLength: 5 }),
  );
  return fc.oneof(
    fc.jsonValue(),
    fc.array(fc.jsonValue()),
    fc.dictionary(fc.constantFrom(...keys), value),
  );
}

const context: RecordContext = {
  file: 'fuzz.json',
  line: 1,
  byteOffset: 0,
  ordinal: 0,
  key: '0',
  header: {},
  notes: [],
};

describe('adapters on arbitrary JSON', () => {
  it.each(
    ADAPTERS.map((adapter) => [`${adapter.format}/${adapter.layout.kind}`, adapter] as const),
  )('%s returns valid trajectories or throws a RecordError, nothing else', (_name, adapter) => {
    const check = () =>
      fc.assert(
        fc.property(recordFor(adapter.format), (record) => {
          let trajectories: Trajectory[];
          try {
            trajectories = adapter.convert(record, context);
          } catch (error) {
            // Any other exception is a crash the reader would report as a converter failure.
            return error instanceof RecordError;
          }
          return trajectories.every((trajectory) => Trajectory.safeParse(trajectory).success);
        }),
        { numRuns: 300, seed: 20261129 },
      );
    expect(check).not.toThrow();
  });
});
