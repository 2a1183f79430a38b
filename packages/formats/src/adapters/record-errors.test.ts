import { describe, expect, it } from 'vitest';
import { RecordError, type FormatAdapter, type RecordContext } from '../adapter';
import { readTrajectories } from '../read-trajectories';
import { agentWorldBenchAdapter } from './agentworldbench';
import { atifAdapter } from './atif';
import { interCodeAdapter } from './intercode';
import { interCodeHumanSqlAdapter } from './intercode-human-sql';
import { openAiMessagesAdapter } from './openai-messages';
import { openHandsEventsAdapter, openHandsEvalOutputAdapter } from './openhands';
import { shareGptAdapter } from './sharegpt';
import { sweAgentAdapter } from './swe-agent';
import { tauBenchV1Adapter } from './tau-bench-v1';
import { tau2BenchAdapter } from './tau2-bench';

const context: RecordContext = {
  file: 'broken.json',
  line: 7,
  byteOffset: 0,
  ordinal: 0,
  key: '0',
  header: {},
  notes: [],
};

/** The field and problem named by the RecordError a broken record raises. */
function errorOf(adapter: FormatAdapter, record: unknown): { field: string; problem: string } {
  try {
    adapter.convert(record, context);
  } catch (error) {
    if (error instanceof RecordError) return { field: error.field, problem: error.problem };
    throw error;
  }
  throw new Error('the record was accepted');
}

const okCall = { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } };

describe('broken records name the field that is wrong', () => {
  it('tau-bench v1: a tool call without a function name', () => {
    const traj = [
      { role: 'system', content: 'policy' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [okCall] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { arguments: '{}' } }],
      },
    ];
    expect(errorOf(tauBenchV1Adapter, { task_id: 1, reward: 1, info: {}, traj, trial: 0 })).toEqual(
      {
        field: 'traj[4].tool_calls[0].function.name',
        problem: 'missing (expected a string)',
      },
    );
  });

  it('tau-bench v1: a record that is not an object, and a missing traj', () => {
    expect(errorOf(tauBenchV1Adapter, [1, 2])).toEqual({
      field: '',
      problem: 'expected an object, got array',
    });
    expect(errorOf(tauBenchV1Adapter, { task_id: 3, reward: 0 })).toEqual({
      field: 'traj',
      problem: 'missing (expected an array)',
    });
  });

  it('OpenAI messages: a tool result that answers no call', () => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'nope', content: 'x' },
    ];
    expect(errorOf(openAiMessagesAdapter, { messages })).toEqual({
      field: 'messages[1]',
      problem: 'tool result answers no tool call with id "nope"',
    });
    expect(errorOf(openAiMessagesAdapter, { messages: [{ role: 'robot', content: 'x' }] })).toEqual(
      {
        field: 'messages[0].role',
        problem: 'unknown role "robot"',
      },
    );
  });

  it('tau2: a simulation whose message has no role', () => {
    const record = {
      id: 's1',
      task_id: '1',
      reward_info: { reward: 1 },
      messages: [{ content: 'hi' }],
    };
    expect(errorOf(tau2BenchAdapter, record)).toEqual({
      field: 'messages[0].role',
      problem: 'missing (expected a string)',
    });
    expect(
      errorOf(tau2BenchAdapter, {
        id: 's1',
        task_id: '1',
        reward_info: { reward: 'high' },
        messages: [],
      }),
    ).toEqual({
      field: 'reward_info.reward',
      problem: 'expected a number, got string',
    });
  });

  it('SWE-agent: a trajectory entry whose observation is not text', () => {
    const record = {
      trajectory: [
        { action: 'ls', observation: 'a\n', thought: 't' },
        { action: 'ls', observation: 42 },
      ],
    };
    expect(errorOf(sweAgentAdapter, record)).toEqual({
      field: 'trajectory[1].observation',
      problem: 'expected a string, got number',
    });
  });

  it('InterCode: more actions than observations, and an unknown environment', () => {
    const episode = {
      environment: 'ic_bash',
      query: 'q',
      turn_history: { actions: ['ls', 'pwd'], observations: ['a'], rewards: [0, 0] },
      summary: { max_reward: 0 },
    };
    expect(errorOf(interCodeAdapter, episode)).toEqual({
      field: 'turn_history.observations',
      problem: 'has 1 entries for 2 actions',
    });
    expect(errorOf(interCodeAdapter, { ...episode, environment: 'ic_ctf' })).toEqual({
      field: 'environment',
      problem: 'unknown InterCode environment "ic_ctf"',
    });
  });

  it('InterCode human SQL: a turn without an action', () => {
    const record = {
      environment: 'ic_sql',
      query_idx: 1,
      query: 'q',
      reward: 1,
      trajectory: [{ observation: '(1,)' }],
    };
    expect(errorOf(interCodeHumanSqlAdapter, record)).toEqual({
      field: 'trajectory[0].action',
      problem: 'missing (expected a string)',
    });
  });

  it('ShareGPT: an unknown speaker and a function_call that is not JSON', () => {
    expect(errorOf(shareGptAdapter, { conversations: [{ from: 'narrator', value: 'x' }] })).toEqual(
      {
        field: 'conversations[0].from',
        problem: 'unknown speaker "narrator"',
      },
    );
    expect(
      errorOf(shareGptAdapter, { conversations: [{ from: 'function_call', value: 'calc(1)' }] }),
    ).toEqual({
      field: 'conversations[0].value',
      problem: 'function_call value is not JSON',
    });
  });

  // Lists of any length are read as the official script reads them; what it cannot read is an
  // evaluated turn with no action at all.
  it('AgentWorldBench: no current_prompt and no prompt at turn_idx', () => {
    const sample = {
      task: 'terminal',
      id: 7,
      prompt: ['### Turn 1\n**Action:**\nls'],
      response: ['**Environment Observation:**\na', '**Environment Observation:**\nb'],
      current_prompt: '',
      system_str: 's',
      turn_idx: 2,
      total_turns: 2,
    };
    expect(errorOf(agentWorldBenchAdapter, sample)).toEqual({
      field: 'current_prompt',
      problem: 'is empty and prompt has no entry 2 (turn_idx 2)',
    });
  });

  it('AgentWorldBench: a turn list that is neither a list nor a string', () => {
    const sample = {
      task: 'terminal',
      id: 8,
      prompt: { turn: 'ls' },
      response: ['a'],
      current_prompt: 'ls',
      system_str: 's',
      turn_idx: 1,
      total_turns: 1,
    };
    expect(errorOf(agentWorldBenchAdapter, sample).field).toBe('prompt');
  });

  it('ATIF: a tool call without a function name, and a result for a call that is not there', () => {
    const base = {
      schema_version: 'ATIF-v1.4',
      session_id: 's',
      agent: { name: 'a', version: '1' },
    };
    expect(
      errorOf(atifAdapter, {
        ...base,
        steps: [
          {
            step_id: 1,
            source: 'agent',
            message: '',
            tool_calls: [{ tool_call_id: 'c', arguments: {} }],
          },
        ],
      }),
    ).toEqual({
      field: 'steps[0].tool_calls[0].function_name',
      problem: 'missing (expected a string, or name)',
    });
    const step = {
      step_id: 1,
      source: 'agent',
      message: '',
      tool_calls: [{ tool_call_id: 'c', function_name: 'f', arguments: {} }],
      observation: { results: [{ source_call_id: 'other', content: 'x' }] },
    };
    expect(errorOf(atifAdapter, { ...base, steps: [step] })).toEqual({
      field: 'steps[0].observation.results[0].source_call_id',
      problem: 'no tool call with id "other" in this or an earlier step',
    });
  });

  it('OpenHands: an event that is neither action nor observation, and a history that is not a list', () => {
    expect(
      errorOf(openHandsEventsAdapter, [
        { id: 0, source: 'user', action: 'message', args: { content: 'hi' } },
        { id: 1 },
      ]),
    ).toEqual({
      field: '[1]',
      problem: 'is neither an action nor an observation event',
    });
    expect(errorOf(openHandsEvalOutputAdapter, { instance_id: 'x', history: 'none' })).toEqual({
      field: 'history',
      problem: 'expected an array, got string',
    });
  });
});

describe('a broken record in a real import', () => {
  it('is quarantined with its line and field while the good records are imported', async () => {
    const good = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    };
    const bad = {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', function: { arguments: '{}' } }],
        },
      ],
    };
    const text = [good, bad, good].map((line) => JSON.stringify(line)).join('\n') + '\n';
    async function* chunks() {
      yield new TextEncoder().encode(text);
    }
    const events = [];
    for await (const event of readTrajectories(chunks(), { fileName: 'chat.jsonl' }))
      events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'format',
      'trajectory',
      'quarantine',
      'trajectory',
    ]);
    const quarantined = events[2];
    expect(quarantined?.type === 'quarantine' ? quarantined.error : null).toEqual({
      file: 'chat.jsonl',
      line: 2,
      byteOffset: JSON.stringify(good).length + 1,
      reason: 'messages[0].tool_calls[0].function.name: missing (expected a string)',
    });
  });
});
