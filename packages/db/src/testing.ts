/**
 * Test-data builders shaped like the real sources (tau2-bench retail, InterCode bash, SWE-agent).
 * For tests only; product code never imports this module.
 */
import type {
  BenchItem,
  BenchManifest,
  JsonValue,
  Step,
  ToolSchema,
  Trajectory,
} from '@terrarium/schema';

export function buildStep(
  index: number,
  fields: Partial<Omit<Step, 'index'>> & Pick<Step, 'action'>,
): Step {
  return {
    index,
    actor: 'agent',
    observation: null,
    reasoning: null,
    reward: null,
    timing: null,
    metadata: {},
    ...fields,
  };
}

export function buildTrajectory(
  fields: Partial<Trajectory> & Pick<Trajectory, 'externalId'>,
): Trajectory {
  const steps = fields.steps ?? [];
  return {
    sourceFormat: 'openai-messages',
    sourceBenchmark: null,
    domain: 'tool',
    task: null,
    systemPrompt: null,
    tools: [],
    toolsInferred: false,
    agentModel: null,
    outcome: { reward: null, success: null },
    metadata: {},
    source: { file: 'fixture.jsonl', line: null, record: { id: fields.externalId } },
    ...fields,
    steps: steps.map((step, index) => ({ ...step, index })),
  };
}

/** tau2 retail's user lookup, as its results files declare it (properties in its order). */
export const RETAIL_TOOLS: ToolSchema[] = [
  {
    type: 'function',
    function: {
      name: 'find_user_id_by_name_zip',
      description: 'Find user id by first name, last name, and zip code.',
      parameters: {
        type: 'object',
        properties: {
          first_name: { type: 'string' },
          last_name: { type: 'string' },
          zip: { type: 'string' },
        },
        required: ['first_name', 'last_name', 'zip'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_user_details',
      description: 'Get the details of a user, including their orders.',
      parameters: {
        type: 'object',
        properties: { user_id: { type: 'string' } },
        required: ['user_id'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_order_details',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } } },
    },
  },
];

/**
 * A tau2-bench retail conversation: 7 steps, 3 of them transitions (tool call + result).
 * `n` varies the user, order and outcome so filters and search have something to tell apart.
 */
export function retailTrajectory(n: number): Trajectory {
  const userId = n === 0 ? 'mia_li_3668' : `user_${n}_${1000 + n}`;
  const orderId = `#W${4000 + n}`;
  const success = n % 3 === 0 ? true : n % 3 === 1 ? false : null;
  const userDetails: JsonValue = {
    user_id: userId,
    name: { first_name: n === 0 ? 'Mia' : `First${n}`, last_name: n === 0 ? 'Li' : `Last${n}` },
    address: { city: 'Austin', zip: '78701' },
    orders: [orderId],
  };
  return buildTrajectory({
    externalId: `retail_task_${n}_trial_0`,
    sourceFormat: 'tau2-bench',
    sourceBenchmark: 'tau2-bench/retail',
    domain: 'tool',
    task: `You want to exchange the mechanical keyboard in order ${orderId} for a quieter model.`,
    systemPrompt: 'You are a customer service agent for an online retail store.',
    tools: RETAIL_TOOLS,
    agentModel: 'gpt-4.1-2025-04-14',
    outcome: { reward: success === null ? null : success ? 1 : 0, success },
    metadata: { simulationId: `sim-${n}`, seed: 300 + n },
    source: {
      file: 'tau2-bench/retail/results.json',
      line: null,
      // Key order differs from alphabetical on purpose: export must keep it.
      record: {
        task_id: String(n),
        trial: 0,
        reward_info: { reward: success ? 1 : 0 },
        messages: [],
      },
    },
    steps: [
      buildStep(0, {
        actor: 'user',
        action: {
          type: 'message',
          text: `Hi! I'd like to exchange a keyboard from my order ${orderId}.`,
        },
        timing: { startedAt: '2025-06-01T10:00:00.000Z', durationMs: null },
      }),
      buildStep(1, {
        action: {
          type: 'message',
          text: 'I can help with that. Could you give me your name and zip code?',
        },
      }),
      buildStep(2, {
        actor: 'user',
        action: {
          type: 'message',
          text: `Sure, I'm ${n === 0 ? 'Mia Li' : `First${n} Last${n}`}, zip 78701.`,
        },
      }),
      buildStep(3, {
        action: {
          type: 'tool_call',
          name: 'find_user_id_by_name_zip',
          arguments: {
            first_name: n === 0 ? 'Mia' : `First${n}`,
            last_name: n === 0 ? 'Li' : `Last${n}`,
            zip: '78701',
          },
          callId: `call_${n}_1`,
        },
        observation: { kind: 'text', content: userId, callId: `call_${n}_1` },
        timing: { startedAt: '2025-06-01T10:00:05.000Z', durationMs: 120 },
      }),
      buildStep(4, {
        action: {
          type: 'tool_call',
          name: 'get_user_details',
          arguments: { user_id: userId },
          callId: `call_${n}_2`,
        },
        observation: { kind: 'json', content: JSON.stringify(userDetails), callId: `call_${n}_2` },
        reasoning: 'Look up the orders before touching anything.',
      }),
      buildStep(5, {
        action: {
          type: 'tool_call',
          name: 'get_order_details',
          arguments: { order_id: orderId },
          callId: `call_${n}_3`,
        },
        observation:
          n % 4 === 3
            ? { kind: 'error', content: `Error: order ${orderId} not found`, callId: `call_${n}_3` }
            : {
                kind: 'json',
                content: JSON.stringify({ order_id: orderId, status: 'delivered' }),
                callId: `call_${n}_3`,
              },
        metadata: { turn: 3 },
      }),
      buildStep(6, {
        action: {
          type: 'message',
          text: `Your order ${orderId} is delivered.\nI have started the exchange for the keyboard; you will receive an email shortly with all the details of the return label.`,
        },
        reward: success === null ? null : success ? 1 : 0,
      }),
    ],
  });
}

/** An InterCode bash episode: `commands.length` shell commands, each with terminal output. */
export function bashTrajectory(
  n: number,
  commands: { command: string; output: string }[],
): Trajectory {
  return buildTrajectory({
    externalId: `intercode-bash-${n}`,
    sourceFormat: 'intercode',
    sourceBenchmark: 'intercode/bash',
    domain: 'terminal',
    task: `Count the number of files under /testbed/dir${n} that contain the word TODO.`,
    agentModel: 'gpt-3.5-turbo',
    outcome: { reward: n % 2 === 0 ? 1 : 0, success: n % 2 === 0 },
    source: {
      file: 'intercode/ic_bash.json',
      line: n + 1,
      record: { query: `task ${n}`, turns: commands.length },
    },
    steps: commands.map(({ command, output }, index) =>
      buildStep(index, {
        action: { type: 'command', command, interpreter: 'bash' },
        observation: { kind: 'terminal', content: output, callId: null },
      }),
    ),
  });
}

/**
 * A terminal trajectory of `stepCount` commands whose outputs are `observationBytes` long each,
 * shaped like a build log; step i's output starts with `marker-i` and ends with `exit-status-i`.
 */
export function largeTerminalTrajectory(stepCount: number, observationBytes: number): Trajectory {
  const line =
    'drwxr-xr-x  2 root root  4096 Jun  1 10:00 node_modules/.pnpm/vite@8.3.8/dist/chunks\n';
  const body = line.repeat(Math.ceil(observationBytes / line.length));
  const steps: Step[] = [];
  for (let i = 0; i < stepCount; i++) {
    const head = `marker-${i}\n`;
    const tail = `\nexit-status-${i}\n`;
    const content = head + body.slice(0, observationBytes - head.length - tail.length) + tail;
    steps.push(
      buildStep(i, {
        action: {
          type: 'command',
          command: `ls -la /srv/build/step-${i} && echo done`,
          interpreter: 'bash',
        },
        observation: { kind: 'terminal', content, callId: null },
        timing: { startedAt: null, durationMs: i },
      }),
    );
  }
  return buildTrajectory({
    externalId: 'huge-terminal-run',
    sourceFormat: 'atif',
    sourceBenchmark: 'terminal-bench',
    domain: 'terminal',
    task: 'Build the project and list every output folder.',
    steps,
  });
}

/**
 * A bench item shaped like a tau2 retail lookup: `n` earlier turns of history, then a
 * `get_order_details` call whose real observation names order `#W000000n`.
 */
export function buildBenchItem(n: number, fields: Partial<BenchItem> = {}): BenchItem {
  const orderId = `#W${String(n).padStart(7, '0')}`;
  return {
    id: `item-${n}`,
    task: 'tau2-bench/retail',
    domain: 'tool',
    split: 'test',
    origin: { dataset: 'tau2 retail', trajectory: `sim-${n}`, stepIndex: 3 },
    turnIndex: 1,
    totalTurns: 3,
    context: {
      task: 'Cancel my pending order',
      systemPrompt: 'You are a retail agent.',
      tools: [],
    },
    history: [
      {
        action: {
          type: 'tool_call',
          name: 'find_user_id_by_name_zip',
          arguments: { first_name: 'Mia', last_name: 'Li', zip: '94108' },
          callId: `call_find_${n}`,
        },
        observation: { kind: 'text', content: 'mia_li_3668', callId: `call_find_${n}` },
      },
    ],
    action: {
      type: 'tool_call',
      name: 'get_order_details',
      arguments: { order_id: orderId },
      callId: `call_order_${n}`,
    },
    real: {
      kind: 'json',
      content: JSON.stringify({ order_id: orderId, user_id: 'mia_li_3668', status: 'pending' }),
      callId: `call_order_${n}`,
    },
    ...fields,
  };
}

/** The manifest a builder would write for these items (version is the store's to assign). */
export function buildBenchManifest(
  name: string,
  items: readonly BenchItem[],
): Omit<BenchManifest, 'version'> {
  const byTask: Record<string, number> = {};
  for (const item of items) byTask[item.task] = (byTask[item.task] ?? 0) + 1;
  return {
    name,
    createdAt: '2026-11-29T21:00:00.000Z',
    sampling: { kind: 'agentworld' },
    seed: 7,
    sources: ['tau2 retail'],
    devFraction: 0,
    itemCount: items.length,
    duplicatesDropped: 0,
    byTask,
    contentHash: items.map((item) => item.id).join(','),
  };
}

/** A PostgreSQL server for tests: TEST_DATABASE_URL, else a throwaway cluster (outside CI). */
export { postgresForTests, type PostgresForTests } from './test-support/postgres-server';
