import type { Action, Domain, JsonValue } from '@terrarium/schema';
import { RecordError, type FormatAdapter } from '../adapter';
import { domainOfBenchmark } from './domains';
import {
  expectArray,
  expectId,
  expectObject,
  expectString,
  isJsonObject,
  metadataOf,
  optionalNumber,
  optionalString,
  toJsonValue,
} from './json-guards';
import { topLevelValueText } from '../raw-value';
import { rowActionText, rowObservationText } from './agentworldbench-layout';
import { observationOf } from './observation-kind';
import { buildTrajectory, stepDraft } from './trajectory-builder';

/** A numeric id from the line's digits: `JSON.parse` rounds ids above 2^53 (the official ones are). */
function exactId(value: unknown, text: (() => string) | undefined): string {
  const parsed = expectId(value, 'id');
  if (typeof value !== 'number' || text === undefined) return parsed;
  const digits = topLevelValueText(text(), 'id');
  return digits !== null && /^-?\d+$/.test(digits) ? digits : parsed;
}

/** Turns are usually text; structured ones are kept as their JSON text. */
function turnText(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(toJsonValue(value, path));
}

function parsedToolCall(text: string): { name: string; arguments: JsonValue } | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return null;
  }
  if (!isJsonObject(parsed) || typeof parsed.name !== 'string') return null;
  const args = parsed.arguments ?? parsed.parameters ?? parsed.args ?? {};
  return { name: parsed.name, arguments: args };
}

/**
 * An AgentWorldBench action: a JSON `{name, arguments}` is a tool call; otherwise the text is a command,
 * for bash in terminal domains, SQL in database ones, and for no named interpreter elsewhere.
 */
function actionOf(text: string, domain: Domain): Action {
  const call = parsedToolCall(text);
  if (call !== null)
    return { type: 'tool_call', name: call.name, arguments: call.arguments, callId: null };
  const interpreter = domain === 'terminal' ? 'bash' : domain === 'database' ? 'sql' : null;
  return { type: 'command', command: text, interpreter };
}

function turnList(value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  return expectArray(value, path).map((turn, i) => turnText(turn, `${path}[${i}]`));
}

/**
 * AgentWorldBench JSONL: one turn-level sample per line, read as the official script reads it.
 * `prompt`/`response` are the trajectory's action prompts and real observations (all turns, fewer,
 * or a bare string); the evaluated turn is `turn_idx` (1-based), its action `current_prompt` or,
 * when that is empty, `prompt[turn_idx - 1]`, its real observation `response[turn_idx - 1]` (none
 * when the list is shorter). Steps are the earlier turns, the evaluated one (`metadata.current`)
 * and any later turns the lists hold; the official markers are taken off actions and observations.
 */
export const agentWorldBenchAdapter: FormatAdapter = {
  format: 'agentworldbench',
  layout: { kind: 'jsonl' },
  sniff({ head }) {
    return (
      /^\s*\{/.test(head) &&
      /"current_prompt"\s*:/.test(head) &&
      /"system_str"\s*:/.test(head) &&
      /"total_turns"\s*:/.test(head)
    );
  },
  convert(record, context) {
    const sample = expectObject(record, '');
    const task = sample.task === undefined ? 'mcp' : expectString(sample.task, 'task');
    const benchmark = task.split('/').at(-1) ?? task;
    const domain = domainOfBenchmark(benchmark);
    const prompts = turnList(sample.prompt, 'prompt');
    const responses = turnList(sample.response, 'response');
    const turnIdx = optionalNumber(sample.turn_idx, 'turn_idx') ?? 1;
    const turn = Math.max(Math.trunc(turnIdx) - 1, 0);
    const given =
      sample.current_prompt === undefined || sample.current_prompt === null
        ? ''
        : turnText(sample.current_prompt, 'current_prompt');
    const current = given !== '' ? given : (prompts[turn] ?? '');
    if (current === '') {
      throw new RecordError(
        'current_prompt',
        `is empty and prompt has no entry ${turn + 1} (turn_idx ${turnIdx})`,
      );
    }
    const hints = { shellOutput: domain === 'terminal' };
    const observationAt = (i: number) => {
      const response = responses[i];
      return response === undefined
        ? null
        : observationOf(rowObservationText(response), null, hints);
    };
    const step = (prompt: string, i: number, metadata: Record<string, JsonValue> = {}) =>
      stepDraft({
        actor: 'agent',
        action: actionOf(rowActionText(prompt), domain),
        observation: observationAt(i),
        metadata,
      });
    const before = Math.min(turn, prompts.length, responses.length);
    const steps = prompts.slice(0, before).map((prompt, i) => step(prompt, i));
    steps.push(step(current, before, { current: true }));
    // Later turns of the full lists (the documented shape) complete the trajectory.
    for (let i = before + 1; i < Math.min(prompts.length, responses.length); i++) {
      steps.push(step(prompts[i] ?? '', i));
    }
    return [
      buildTrajectory(
        {
          externalId: exactId(sample.id, context.text),
          sourceFormat: 'agentworldbench',
          sourceBenchmark: `agentworldbench/${benchmark}`,
          domain,
          // Terrarium's exports add the task text (`task_text`); official files have none.
          task: optionalString(sample.task_text, 'task_text'),
          systemPrompt: optionalString(sample.system_str, 'system_str'),
          tools: null,
          agentModel: optionalString(sample.model, 'model'),
          outcome: { reward: null, success: null },
          steps,
          metadata: metadataOf({
            benchmark,
            turnIdx: optionalNumber(sample.turn_idx, 'turn_idx') ?? undefined,
            totalTurns: optionalNumber(sample.total_turns, 'total_turns') ?? undefined,
          }),
        },
        record,
        context,
      ),
    ];
  },
};
