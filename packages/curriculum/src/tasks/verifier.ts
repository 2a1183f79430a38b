import type { World } from '@terrarium/executable-worlds';
import type { CustomRuleInput, CustomRuleResult } from '@terrarium/rubrics';
import type { JsonValue } from '@terrarium/schema';
import { isSqlWorld, isTerminalWorld, isToolWorld } from '../worlds/world-kinds';
import type { VerifierCheck, Verifier } from './task';

export type CodeCheck = Extract<VerifierCheck, { kind: 'code' }>;

/**
 * Runs a code check's `score(item)` in the sandbox custom rules use (the API layer passes the
 * rubrics' QuickJS worker pool; tests may run QuickJS in process). Rejects when the code fails
 * (time or memory limit, an error of its own): the check then fails with that message.
 */
export type CodeRunner = (check: CodeCheck, item: CustomRuleInput) => Promise<CustomRuleResult>;

export interface VerifierOptions {
  runCode?: CodeRunner;
}

export interface CheckResult {
  name: string;
  weight: number;
  passed: boolean;
  /** Why it failed (expected vs actual, shortened), empty when it passed. */
  detail: string;
}

export interface Evaluation {
  /** Σ weight·passed / Σ weight, in [0, 1]. */
  reward: number;
  passed: boolean;
  breakdown: CheckResult[];
}

const DETAIL_CHARS = 200;

function shorten(text: string): string {
  return text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS)}…` : text;
}

export function describeCheck(check: VerifierCheck): string {
  switch (check.kind) {
    case 'file-equals':
      return `file ${check.path} has the expected content`;
    case 'file-contains':
      return `file ${check.path} contains ${JSON.stringify(shorten(check.text))}`;
    case 'file-exists':
      return check.exists ? `file ${check.path} exists` : `file ${check.path} does not exist`;
    case 'command-output':
      return `\`${shorten(check.command)}\` prints the expected output`;
    case 'sql-rows':
      return `\`${shorten(check.query)}\` returns the expected rows`;
    case 'answer-equals':
      return 'the answer is the expected one';
    case 'answer-contains':
      return `the answer contains ${JSON.stringify(shorten(check.text))}`;
    case 'code':
      return `the ${check.language} verifier scores at least ${check.passAt}`;
    case 'record-equals':
      return `${check.table}/${check.key}${check.field.map((p) => `.${p}`).join('')} is ${shorten(JSON.stringify(check.expected))}`;
  }
}

/** What a code check's `item.reference` carries: what it asked to see of the final world. */
async function codeReference(check: CodeCheck, world: World): Promise<string> {
  const files: { [path: string]: JsonValue } = {};
  if (isTerminalWorld(world)) for (const path of check.files) files[path] = world.readFile(path);
  const outputs: string[] = [];
  for (const command of check.commands) {
    // Forks, as for command-output checks: the verifier cannot change the session.
    const result = await world.fork().step({ type: 'command', command, interpreter: 'bash' });
    outputs.push(result.observation.content);
  }
  const rows: JsonValue[] = [];
  if (isSqlWorld(world)) {
    for (const query of check.queries) {
      const result = world.query(query);
      rows.push(result.error === null ? result.rows : { error: result.error });
    }
  }
  return JSON.stringify({ state: world.state(), files, outputs, rows });
}

async function runCodeCheck(
  check: CodeCheck,
  world: World,
  answer: string,
  runCode: CodeRunner | undefined,
): Promise<string> {
  if (runCode === undefined) return 'this server runs no code verifiers (no sandbox configured)';
  const item: CustomRuleInput = {
    prediction: answer,
    reference: await codeReference(check, world),
    history: [],
    action: '',
    domain: world.kind,
    tool: '',
  };
  let result: CustomRuleResult;
  try {
    result = await runCode(check, item);
  } catch (error) {
    return `the verifier code failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  const detail = result.detail === undefined ? '' : ` (${shorten(result.detail)})`;
  if (result.score === null) return `the verifier code gave no score${detail}`;
  return result.score >= check.passAt
    ? ''
    : `scored ${result.score}, needs ${check.passAt}${detail}`;
}

function normalizeAnswer(text: string, mode: 'exact' | 'trim' | 'lines'): string {
  if (mode === 'exact') return text;
  if (mode === 'trim') return text.trim();
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();
}

function compared(expected: string, actual: string | null): string {
  return `expected ${JSON.stringify(shorten(expected))}, got ${actual === null ? 'nothing' : JSON.stringify(shorten(actual))}`;
}

async function runCheck(
  check: VerifierCheck,
  world: World,
  answer: string,
  options: VerifierOptions,
): Promise<string> {
  switch (check.kind) {
    case 'code':
      return runCodeCheck(check, world, answer, options.runCode);
    case 'record-equals': {
      if (!isToolWorld(world)) return `a ${world.kind} world has no records`;
      let value: JsonValue | undefined = world.record(check.table, check.key);
      for (const step of check.field) {
        if (Array.isArray(value) && typeof step === 'number') value = value[step];
        else if (
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          typeof step === 'string'
        )
          value = value[step];
        else value = undefined;
      }
      const actual = JSON.stringify(value ?? null);
      const expected = JSON.stringify(check.expected);
      return actual === expected ? '' : compared(expected, actual);
    }
    case 'file-equals':
    case 'file-contains':
    case 'file-exists': {
      if (!isTerminalWorld(world)) return `a ${world.kind} world has no files`;
      const content = world.readFile(check.path);
      if (check.kind === 'file-exists') {
        return (content !== null) === check.exists ? '' : check.exists ? 'missing' : 'present';
      }
      if (check.kind === 'file-equals')
        return content === check.content ? '' : compared(check.content, content);
      return content !== null && content.includes(check.text) ? '' : compared(check.text, content);
    }
    case 'command-output': {
      // A fork, so that checking cannot change the state that later checks (or the agent) see.
      const probe = world.fork();
      const result = await probe.step({
        type: 'command',
        command: check.command,
        interpreter: 'bash',
      });
      const actual = result.observation.content;
      return actual === check.expected ? '' : compared(check.expected, actual);
    }
    case 'sql-rows': {
      if (!isSqlWorld(world)) return `a ${world.kind} world has no tables`;
      const result = world.query(check.query);
      if (result.error !== null) return `query failed: ${shorten(result.error)}`;
      const actual = JSON.stringify(result.rows);
      const expected = JSON.stringify(check.expected);
      return actual === expected ? '' : compared(expected, actual);
    }
    case 'answer-equals':
      return normalizeAnswer(answer, check.normalize) ===
        normalizeAnswer(check.expected, check.normalize)
        ? ''
        : compared(check.expected, answer);
    case 'answer-contains':
      return answer.includes(check.text) ? '' : compared(check.text, answer);
  }
}

/** Scores a final world and answer. Never changes the world (probes run on forks). */
export async function evaluateVerifier(
  verifier: Verifier,
  world: World,
  answer: string,
  options: VerifierOptions = {},
): Promise<Evaluation> {
  const breakdown: CheckResult[] = [];
  let total = 0;
  let earned = 0;
  for (const { name, weight, check } of verifier.checks) {
    const detail = await runCheck(check, world, answer, options);
    const passed = detail === '';
    total += weight;
    if (passed) earned += weight;
    breakdown.push({ name: name ?? describeCheck(check), weight, passed, detail });
  }
  const reward = total === 0 ? 0 : earned / total;
  return { reward, passed: reward >= verifier.passThreshold, breakdown };
}
