import { fileURLToPath } from 'node:url';
import { countTransitions, Trajectory } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { readFile } from './testing/load-records';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

async function read(name: string, format: string): Promise<Trajectory[]> {
  const result = await readFile(FIXTURES + name);
  expect(result.format).toBe(format);
  expect(result.problems).toEqual([]);
  for (const trajectory of result.trajectories)
    expect(Trajectory.safeParse(trajectory).success).toBe(true);
  return result.trajectories;
}

describe('OpenAI chat-messages JSONL', () => {
  it('pairs parallel calls with results that arrive in another order, and keeps the given tools', async () => {
    const [weather, issues] = await read('openai-messages.jsonl', 'openai-messages');
    expect(weather?.externalId).toBe('openai-messages.jsonl:1');
    expect(weather?.task).toBe('What is the weather in Paris and in Oslo right now?');
    expect(weather?.systemPrompt).toBe('You are a weather assistant. Use the tools.');
    expect(weather?.toolsInferred).toBe(false);
    expect(weather?.tools[0]?.function.description).toBe('Current weather for a city');
    expect(
      weather?.steps.map((step) => [step.action.type, step.observation?.content ?? null]),
    ).toEqual([
      ['message', null],
      ['tool_call', '{"temperature": 11.5, "conditions": "cloudy"}'],
      ['tool_call', '{"temperature": -3, "conditions": "snow"}'],
      ['message', null],
    ]);
    expect(weather?.steps[2]?.action).toEqual({
      type: 'tool_call',
      name: 'get_weather',
      arguments: { city: 'Oslo', unit: 'celsius' },
      callId: 'call_oslo',
    });
    expect(weather?.steps[2]?.observation?.kind).toBe('json');
    expect(issues === undefined ? null : countTransitions(issues)).toBe(2);
  });

  it('reads a bare message array and infers tool schemas from the calls', async () => {
    const [, issues] = await read('openai-messages.jsonl', 'openai-messages');
    expect(issues?.steps[1]?.action).toEqual({ type: 'message', text: 'Let me look that up.' });
    expect(issues?.steps[2]?.observation).toEqual({
      kind: 'error',
      content: 'Error: rate limit exceeded, retry in 30s',
      callId: 'call_1',
    });
    expect(issues?.toolsInferred).toBe(true);
    expect(issues?.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'search_issues',
          parameters: {
            type: 'object',
            properties: {
              assignee: { type: 'string' },
              state: { type: 'string' },
              limit: { type: 'integer' },
            },
            required: ['assignee', 'state'],
          },
        },
      },
    ]);
  });
});

describe('ShareGPT', () => {
  it('reads function_call / observation turns and the tools given as a JSON string', async () => {
    const [calc, hello] = await read('sharegpt.jsonl', 'sharegpt');
    expect(calc?.systemPrompt).toBe('You can call tools to compute answers.');
    expect(calc?.steps[1]?.action).toEqual({
      type: 'tool_call',
      name: 'calculator',
      arguments: { expression: '17*23' },
      callId: null,
    });
    expect(calc?.steps[1]?.observation).toEqual({ kind: 'text', content: '391', callId: null });
    expect(calc?.tools[0]?.function.name).toBe('calculator');
    expect(calc?.toolsInferred).toBe(false);
    expect(hello?.systemPrompt).toBe('You are a helpful assistant.');
    expect(hello === undefined ? null : countTransitions(hello)).toBe(0);
  });

  it('reads the same records from a JSON array', async () => {
    const fromArray = await read('sharegpt-array.json', 'sharegpt');
    expect(fromArray.map((t) => t.externalId)).toEqual([
      'sharegpt-array.json#0',
      'sharegpt-array.json#1',
    ]);
    expect(fromArray[0]?.steps.map((step) => step.action)).toEqual(
      (await read('sharegpt.jsonl', 'sharegpt'))[0]?.steps.map((step) => step.action),
    );
  });
});

describe('AgentWorldBench JSONL', () => {
  it('turns prompt/response pairs into transitions and the current action into a last step without observation', async () => {
    const [terminal, retail] = await read('agentworldbench.jsonl', 'agentworldbench');
    expect(terminal?.domain).toBe('terminal');
    expect(terminal?.systemPrompt).toBe(
      'You are simulating a Linux terminal. Reply with exactly what the terminal prints.',
    );
    expect(terminal?.metadata).toEqual({ benchmark: 'terminal_bench', turnIdx: 3, totalTurns: 5 });
    expect(terminal?.steps).toHaveLength(3);
    expect(terminal?.steps[1]?.observation?.content).toBe(
      'Create hello.txt containing Hello, world!\n',
    );
    expect(terminal?.steps[2]?.action).toEqual({
      type: 'command',
      command: "echo 'Hello, world!' > /app/hello.txt && cat /app/hello.txt",
      interpreter: 'bash',
    });
    expect(terminal?.steps[2]?.observation).toBeNull();
    expect(terminal === undefined ? null : countTransitions(terminal)).toBe(2);
    expect(retail?.domain).toBe('tool');
    expect(retail?.steps[0]?.action).toEqual({
      type: 'tool_call',
      name: 'find_user_id_by_email',
      arguments: { email: 'isabella.lopez3271@example.com' },
      callId: null,
    });
  });

  it('gives the current step the last response as its observation when the row has one more response than prompts', async () => {
    const [terminal, retail, failed] = await read(
      'agentworldbench-answered.jsonl',
      'agentworldbench',
    );
    expect(terminal?.steps).toHaveLength(3);
    expect(terminal?.steps[1]?.observation?.content).toBe(
      'Create hello.txt containing Hello, world!\n',
    );
    expect(terminal?.steps[2]?.observation).toEqual({
      kind: 'terminal',
      content: 'Hello, world!\n',
      callId: null,
    });
    expect(terminal?.steps[2]?.metadata).toEqual({ current: true });
    expect(terminal === undefined ? null : countTransitions(terminal)).toBe(3);
    expect(retail?.steps.map((step) => step.observation)).toEqual([
      { kind: 'text', content: 'isabella_lopez_3271', callId: null },
      {
        kind: 'json',
        content: '{"user_id": "isabella_lopez_3271", "orders": ["#W4000001"]}',
        callId: null,
      },
    ]);
    expect(retail?.steps[1]?.action).toEqual({
      type: 'tool_call',
      name: 'get_user_details',
      arguments: { user_id: 'isabella_lopez_3271' },
      callId: null,
    });
    expect(failed?.systemPrompt).toBeNull();
    expect(failed?.metadata).toEqual({
      benchmark: 'tau2_bench_retail',
      turnIdx: 1,
      totalTurns: 9,
    });
    expect(failed?.steps).toHaveLength(1);
    expect(failed?.steps[0]?.observation).toEqual({
      kind: 'error',
      content: 'Error: order #W0000000 not found',
      callId: null,
    });
  });
});

describe('ATIF trajectories', () => {
  it('merges a Terminus keystroke batch that shares one terminal capture', async () => {
    const [trajectory] = await read('atif-terminus.trajectory.json', 'atif');
    expect(trajectory?.externalId).toBe('hello-world__fixture-0001');
    expect(trajectory?.domain).toBe('terminal');
    expect(trajectory?.agentModel).toBe('openai/gpt-5');
    expect(trajectory?.systemPrompt).toBe(
      'You are an AI assistant tasked with solving command-line tasks in a Linux environment.',
    );
    expect(trajectory?.steps.map((step) => step.action)).toEqual([
      {
        type: 'message',
        text: 'Create a file called hello.txt in /app with "Hello, world!" as the content.\n\nCurrent terminal state:\nroot@container:/app# ',
      },
      { type: 'keystrokes', keys: "echo 'Hello, world!' > hello.txt\ncat hello.txt\n" },
      {
        type: 'tool_call',
        name: 'mark_task_complete',
        arguments: {},
        callId: 'call_2_task_complete',
      },
    ]);
    expect(trajectory?.steps[1]?.observation?.kind).toBe('terminal');
    expect(trajectory?.steps[1]?.observation?.content).toBe(
      "New Terminal Output:\n\nroot@container:/app# echo 'Hello, world!' > hello.txt\nroot@container:/app# cat hello.txt\nHello, world!\nroot@container:/app# ",
    );
    expect(trajectory?.steps[1]?.reasoning).toBe(
      'A single echo redirect creates the file.\n\nAnalysis: The terminal is empty at /app.\nPlan: Write the file, then print it to check.',
    );
    expect(trajectory?.steps[1]?.timing).toEqual({
      startedAt: '2025-10-20T10:00:05Z',
      durationMs: null,
    });
  });

  it('answers parallel calls by source_call_id', async () => {
    const [trajectory] = await read('atif-multi-tool.trajectory.json', 'atif');
    expect(trajectory?.domain).toBe('tool');
    expect(trajectory?.steps.map((step) => step.observation?.content ?? null)).toEqual([
      null,
      'GOOGL is currently trading at $185.35 (Close: 10/11/2025)',
      'GOOGL volume: 1.5M shares traded.',
      null,
    ]);
    expect(trajectory?.steps[3]?.action.type).toBe('message');
  });
});

describe('OpenHands', () => {
  it('links observations to actions by cause in an event stream', async () => {
    const [trajectory] = await read('openhands-events.json', 'openhands');
    expect(trajectory?.task).toBe(
      "Create a file called hello.txt with 'Hello, world!' as the content.",
    );
    expect(trajectory?.systemPrompt?.startsWith('You are OpenHands agent')).toBe(true);
    expect(trajectory?.tools.map((tool) => tool.function.name)).toEqual([
      'execute_bash',
      'str_replace_editor',
      'finish',
    ]);
    expect(trajectory?.toolsInferred).toBe(false);
    expect(trajectory?.agentModel).toBe('claude-3-5-sonnet-20241022');
    expect(trajectory?.steps.map((step) => step.action.type)).toEqual([
      'message',
      'tool_call',
      'command',
      'command',
      'tool_call',
    ]);
    expect(trajectory?.steps[2]?.action).toEqual({
      type: 'command',
      command: 'cat /workspace/hello.txt',
      interpreter: 'bash',
    });
    expect(trajectory?.steps[2]?.observation).toEqual({
      kind: 'terminal',
      content: 'Hello, world!',
      callId: 'toolu_02',
    });
    expect(trajectory?.steps[2]?.reasoning).toBe('Let me check the content.');
    expect(trajectory?.steps[4]?.observation).toBeNull();
    expect(trajectory?.metadata.skippedStateEvents).toBe(2);
    expect(trajectory === undefined ? null : countTransitions(trajectory)).toBe(3);
  });

  it('reads evaluation output JSONL: instance, instruction, model, resolved', async () => {
    const [trajectory] = await read('openhands-output.jsonl', 'openhands');
    expect(trajectory?.externalId).toBe('astropy__astropy-12907');
    expect(trajectory?.domain).toBe('swe');
    expect(trajectory?.agentModel).toBe('anthropic/claude-3-5-sonnet-20241022');
    expect(trajectory?.outcome).toEqual({ reward: 1, success: true });
    expect(trajectory?.task?.startsWith('<uploaded_files>')).toBe(true);
    expect(
      trajectory?.steps[2]?.observation?.content.startsWith(
        '   240\t    if isinstance(right, Model):',
      ),
    ).toBe(true);
    expect(trajectory === undefined ? null : countTransitions(trajectory)).toBe(2);
  });
});
