import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { countTransitions, Trajectory, type Step } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { readFile } from './testing/load-records';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    })
    .toSorted();
}

/** Every file read here, with its detected format and the errors it gave (expected: none). */
const readLog: { file: string; format: string | null; problems: string[] }[] = [];

async function load(files: string[]): Promise<Trajectory[]> {
  const results = await Promise.all(files.map((file) => readFile(file)));
  results.forEach((result, i) =>
    readLog.push({ file: files[i] ?? '', format: result.format, problems: result.problems }),
  );
  return results.flatMap((result) => result.trajectories);
}

function totals(trajectories: Trajectory[]) {
  let transitions = 0;
  let byUser = 0;
  for (const trajectory of trajectories) {
    transitions += countTransitions(trajectory);
    byUser += trajectory.steps.filter(
      (step) =>
        step.actor === 'user' && step.observation !== null && step.action.type !== 'message',
    ).length;
  }
  return { trajectories: trajectories.length, transitions, byUser };
}

function byExternalId(trajectories: Trajectory[], id: string): Trajectory {
  const found = trajectories.find((trajectory) => trajectory.externalId === id);
  if (found === undefined) throw new Error(`no trajectory ${id}`);
  return found;
}

function firstToolCall(trajectory: Trajectory): Step {
  const step = trajectory.steps.find((s) => s.action.type === 'tool_call');
  if (step === undefined) throw new Error('no tool call');
  return step;
}

const tau2 = (name: string) => sharedDataPath(`tau2-bench/results/${name}`);
const retail = await load([tau2('gpt-4.1_retail_defautl_gpt-4.1_1trials.json')]);
const telecom = await load([tau2('gpt-4.1_telecom_default_gpt-4.1_1trials.json')]);
const airline = await load([tau2('gpt-4.1_airline_default_gpt-4.1_1trials.json')]);
const tauV1 = await load([
  sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
]);
const sweFiles = filesUnder(sharedDataPath('swe-agent')).filter((file) => file.endsWith('.traj'));
const swe = await load(sweFiles);
// InterCode is read only where ../shared/data has it (its licence keeps it out of the repository).
const HAS_INTERCODE = sharedDataAvailable('intercode');
const intercode = (path: string) => sharedDataPath(`intercode/data/results/${path}`);
const bashFiles = HAS_INTERCODE ? filesUnder(intercode('bash')) : [];
const bash = await load(bashFiles);
const sql = HAS_INTERCODE
  ? await load([intercode('sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json')])
  : [];
const human = HAS_INTERCODE
  ? await load([intercode('sql/human/ic_sql_multiturn_human_10_turns.json')])
  : [];

describe('tau2-bench results', () => {
  it('counts trajectories and transitions per domain, with the telecom user’s own tool calls', () => {
    expect(totals(retail)).toEqual({ trajectories: 40, transitions: 299, byUser: 0 });
    expect(totals(telecom)).toEqual({ trajectories: 40, transitions: 689, byUser: 482 });
    expect(totals(airline)).toEqual({ trajectories: 20, transitions: 148, byUser: 0 });
  });

  it('produces trajectories that satisfy the canonical schema', () => {
    for (const trajectory of [...retail, ...telecom, ...airline])
      expect(Trajectory.safeParse(trajectory).success).toBe(true);
  });

  it('reads a retail simulation: task from the header, first call, its result, reward', () => {
    const simulation = byExternalId(retail, '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae');
    expect(simulation.sourceBenchmark).toBe('tau2-bench/retail');
    expect(simulation.domain).toBe('tool');
    expect(simulation.agentModel).toBe('gpt-4.1');
    expect(simulation.task).toBe(
      'Domain:\nretail\n\nReason for call:\nYou want to know how much balance does your gift card have. Also, for your recent order, whether you used your visa, mastercard, or amex credit card. You also wonder if you can apply the gift card balance to the order. If not, you want to change your payment method to visa, because the other two cards have a lot of balance.\n\nKnown info:\nYou are Isabella Lopez, and your email address is isabella.lopez3271@example.com.\n\nTask instructions:\nYou are a young college student under the pressure of final exams and student loans, so you are a bit anxious and want to get things done quickly.',
    );
    expect(simulation.outcome).toEqual({ reward: 1, success: true });
    expect(simulation.metadata.taskId).toBe('40');
    const call = firstToolCall(simulation);
    expect(call.action).toEqual({
      type: 'tool_call',
      name: 'find_user_id_by_email',
      arguments: { email: 'isabella.lopez3271@example.com' },
      callId: 'call_2xzbrH6DkKxcu4GnAB2Rdipb',
    });
    expect(call.observation).toEqual({
      kind: 'text',
      content: 'isabella_lopez_6490',
      callId: 'call_2xzbrH6DkKxcu4GnAB2Rdipb',
    });
    expect(simulation.systemPrompt?.startsWith('# Retail agent policy')).toBe(true);
    expect(simulation.toolsInferred).toBe(true);
  });

  it('marks a telecom call made by the simulated user with actor user', () => {
    const simulation = byExternalId(telecom, '53759db8-5657-4a7b-b6fa-18c09fd8b859');
    const userCall = simulation.steps.find(
      (step) => step.actor === 'user' && step.action.type === 'tool_call',
    );
    expect(userCall?.action).toEqual({
      type: 'tool_call',
      name: 'check_status_bar',
      arguments: {},
      callId: 'call_SG1e1ds4ybEbge2F9J6KruDG',
    });
    expect(userCall?.observation?.content).toBe('Status Bar: ✈️ Airplane Mode | 🔋 80%');
    expect(userCall?.timing?.startedAt).toBe('2025-08-01T16:23:35.692768');
  });
});

describe('tau-bench v1 historical trajectories', () => {
  it('counts 200 trajectories and 1,164 transitions', () => {
    expect(totals(tauV1)).toEqual({ trajectories: 200, transitions: 1164, byUser: 0 });
  });

  it('reads task 0 trial 0: instruction, system prompt, first call with parsed arguments, its JSON result', () => {
    const first = byExternalId(tauV1, 'task-0-trial-0');
    expect(Trajectory.safeParse(first).success).toBe(true);
    expect(first.sourceBenchmark).toBe('tau-bench/airline');
    expect(first.agentModel).toBe('gpt-4o');
    expect(
      first.task?.startsWith(
        'You are mia_li_3668. You want to fly from New York to Seattle on May 20 (one way).',
      ),
    ).toBe(true);
    expect(first.systemPrompt?.startsWith('# Airline Agent Policy')).toBe(true);
    expect(first.outcome).toEqual({ reward: 0, success: false });
    expect(first.steps[0]?.action).toEqual({
      type: 'message',
      text: "Hi! I'm looking to book a flight from New York to Seattle on May 20th.",
    });
    expect(first.steps[0]?.actor).toBe('user');
    const call = firstToolCall(first);
    expect(call.index).toBe(5);
    expect(call.action).toEqual({
      type: 'tool_call',
      name: 'get_user_details',
      arguments: { user_id: 'mia_li_3668' },
      callId: 'call_oIHazX6yQrB8hUwl4cRilFKj',
    });
    expect(call.observation?.kind).toBe('json');
    expect(
      call.observation?.content.startsWith('{"name": {"first_name": "Mia", "last_name": "Li"}'),
    ).toBe(true);
    expect(first.tools.find((tool) => tool.function.name === 'get_user_details')).toEqual({
      type: 'function',
      function: {
        name: 'get_user_details',
        parameters: {
          type: 'object',
          properties: { user_id: { type: 'string' } },
          required: ['user_id'],
        },
      },
    });
  });

  it('numbers steps from 0 in order and keeps the record whole', () => {
    const first = byExternalId(tauV1, 'task-0-trial-0');
    expect(first.steps.map((step) => step.index)).toEqual(first.steps.map((_, i) => i));
    expect(first.source.file.endsWith('gpt-4o-airline.json')).toBe(true);
    const record = first.source.record;
    expect(
      record !== null && typeof record === 'object' && !Array.isArray(record) && record.task_id,
    ).toBe(0);
  });
});

describe('SWE-agent .traj files', () => {
  it('counts 22 trajectories and 232 transitions, empty outputs included', () => {
    expect(sweFiles).toHaveLength(22);
    expect(totals(swe)).toEqual({ trajectories: 22, transitions: 232, byUser: 0 });
  });

  it('reads a live GPT-4 run: task from the issue, first command, its output, thought as reasoning', () => {
    const run = swe.find((t) => t.externalId.endsWith('pydicom__pydicom-1458.traj'));
    expect(run?.domain).toBe('swe');
    expect(
      run?.task?.startsWith(
        "We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\n",
      ),
    ).toBe(true);
    expect(run?.steps[0]?.action).toEqual({
      type: 'command',
      command: 'create reproduce_bug.py\n',
      interpreter: 'aci',
    });
    expect(run?.steps[0]?.observation).toEqual({
      kind: 'text',
      content: '[File: /pydicom__pydicom/reproduce_bug.py (1 lines total)]\n1:\n',
      callId: null,
    });
    expect(
      run?.steps[0]?.reasoning?.startsWith(
        "First, I'll create a new Python script to reproduce the bug",
      ),
    ).toBe(true);
  });

  it('keeps an observation for a command with empty output', () => {
    const run = swe.find((t) => t.externalId.endsWith('pydicom__pydicom-1458.traj'));
    expect(run?.steps[10]?.action).toEqual({
      type: 'command',
      command: 'rm reproduce_bug.py\n',
      interpreter: 'bash',
    });
    expect(run?.steps[10]?.observation).toEqual({ kind: 'terminal', content: '', callId: null });
  });

  it('reads the history-only file from its actions and the observation messages after them', () => {
    const simple = swe.find((t) => t.externalId.endsWith('function_calling_simple.traj'));
    expect(
      simple?.steps.map((step) => (step.action.type === 'command' ? step.action.command : null)),
    ).toEqual([
      'find_file missing_colon.py',
      'open "tests/missing_colon.py"',
      "edit 'def division(a: float, b: float) -> float' 'def division(a: float, b: float) -> float:'",
      'python tests/missing_colon.py',
      'submit',
    ]);
    expect(simple?.steps[3]?.observation?.content).toBe(
      '8.2\n(Open file: /SWE-agent__test-repo/tests/missing_colon.py)\n(Current directory: /SWE-agent__test-repo)\nbash-$',
    );
    expect(simple?.steps[3]?.observation?.callId).toBe('call_5O339epJ3rKjEal3Kuvpj9bM');
    expect(simple?.systemPrompt).toBe(
      "SETTING: You are an autonomous programmer, and you're working directly in the command line with a special interface.",
    );
  });

  it('files the CTF demonstrations under the terminal domain', () => {
    const ctf = swe.filter((t) => t.sourceBenchmark === 'swe-agent/ctf');
    expect(ctf).toHaveLength(9);
    expect(new Set(ctf.map((t) => t.domain))).toEqual(new Set(['terminal']));
    expect(swe.filter((t) => t.domain === 'swe')).toHaveLength(13);
  });
});

describe.skipIf(!HAS_INTERCODE)(`InterCode results ${UNSHIPPED_DATA_REASON}`, () => {
  it('counts bash 400 / 2,077, SQL 1,034 / 5,867 and human SQL 15 / 112', () => {
    expect(bashFiles).toHaveLength(8);
    expect(totals(bash)).toEqual({ trajectories: 400, transitions: 2077, byUser: 0 });
    expect(totals(sql)).toEqual({ trajectories: 1034, transitions: 5867, byUser: 0 });
    expect(totals(human)).toEqual({ trajectories: 15, transitions: 112, byUser: 0 });
  });

  it('reads a GPT-4 bash episode with its per-step rewards and outcome', () => {
    const episode = byExternalId(bash, 'ic_bash_multiturn_gpt-4_10_turns_fs_1.json#0');
    expect(episode.domain).toBe('terminal');
    expect(episode.agentModel).toBe('gpt-4');
    expect(episode.task).toBe(
      'Calculate a list of duplicate md5 sum hashes for all the ".java" files in the /testbed directory',
    );
    expect(episode.steps.map((step) => step.reward)).toEqual([0.8, 0.81, 1]);
    expect(episode.steps[0]?.action).toEqual({
      type: 'command',
      command: 'find /testbed -type f -name "*.java" -exec md5sum {} + | sort | uniq -d -w 32',
      interpreter: 'bash',
    });
    expect(episode.steps[0]?.observation).toEqual({
      kind: 'terminal',
      content: 'f32a3a97638afeb2ee2a15cfe335ab72  /testbed/Hello.java\n',
      callId: null,
    });
    expect(episode.outcome).toEqual({ reward: 1, success: true });
  });

  it('unwraps ReAct execute[...] actions, keeps thoughts and treats submit as InterCode’s own action', () => {
    const episode = byExternalId(bash, 'ic_bash_react_10_turns_fs_4.json#0');
    expect(episode.agentModel).toBe('gpt-3.5');
    expect(episode.steps.map((step) => step.action)).toEqual([
      { type: 'command', command: 'uname -r', interpreter: 'bash' },
      { type: 'command', command: "uname -r | cut -d'-' -f2", interpreter: 'bash' },
      { type: 'command', command: "uname -r | cut -d'-' -f1", interpreter: 'bash' },
      { type: 'command', command: 'submit', interpreter: null },
    ]);
    expect(episode.steps[0]?.reasoning).toBe(
      'I can use the `uname` command to get the kernel version.',
    );
    expect(episode.steps[0]?.metadata.rawAction).toBe('execute[uname -r]');
    expect(episode.outcome).toEqual({ reward: 0.67, success: false });
  });

  it('reads a SQL episode: query, action, error observation, hardness', () => {
    const episode = byExternalId(sql, 'ic_sql_multiturn_gpt-4_10_turns.json#0');
    expect(episode.domain).toBe('database');
    expect(episode.sourceBenchmark).toBe('intercode/sql');
    expect(episode.task).toBe(
      'What are the names of poker players, ordered ascending by the number of final tables they have made?',
    );
    expect(episode.steps[0]?.action).toEqual({
      type: 'command',
      command: 'SELECT player_name FROM poker_players ORDER BY final_tables ASC',
      interpreter: 'sql',
    });
    expect(episode.steps[0]?.observation).toEqual({
      kind: 'error',
      content: "Error executing query: Table 'poker_player.poker_players' doesn't exist",
      callId: null,
    });
    expect(episode.steps[1]?.observation).toEqual({
      kind: 'text',
      content: "[('people',), ('poker_player',)]",
      callId: null,
    });
    expect(typeof episode.metadata.hardness).toBe('string');
  });

  it('reads the human SQL file', () => {
    const episode = byExternalId(human, 'ic_sql_multiturn_human_10_turns.json#953');
    expect(episode.sourceFormat).toBe('intercode-human-sql');
    expect(episode.agentModel).toBe('human');
    expect(episode.task).toBe(
      'find the id, name and age for visitors who visited some museums more than once.',
    );
    expect(episode.steps).toHaveLength(8);
    expect(episode.steps[0]?.action).toEqual({
      type: 'command',
      command: 'show tables;',
      interpreter: 'sql',
    });
    expect(episode.steps[0]?.observation?.content).toBe("('museum',)('visit',)('visitor',)");
    expect(episode.outcome).toEqual({ reward: 1, success: true });
    expect(human.filter((t) => t.outcome.success === true)).toHaveLength(13);
  });
});

function formatOf(file: string): string {
  if (file.includes('/tau2-bench/')) return 'tau2-bench';
  if (file.endsWith('/gpt-4o-airline.json')) return 'tau-bench-v1';
  if (file.includes('/swe-agent/')) return 'swe-agent';
  return file.includes('/human/') ? 'intercode-human-sql' : 'intercode';
}

describe('reading the real files through the streaming reader', () => {
  it('detects each file’s format and quarantines nothing', () => {
    expect(readLog).toHaveLength(3 + 1 + 22 + (HAS_INTERCODE ? 8 + 1 + 1 : 0));
    for (const entry of readLog)
      expect(entry).toEqual({ file: entry.file, format: formatOf(entry.file), problems: [] });
  });
});
