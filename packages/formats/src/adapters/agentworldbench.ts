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
import { observationOf } from './observation-kind';
import { buildTrajectory, stepDraft } from './trajectory-builder';

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

/**
 * AgentWorldBench JSONL: one turn-level sample per line. `prompt[i]` are the earlier actions and
 * `response[i]` their real observations; `current_prompt` is the action to predict, so it is the last
 * step. Rows come in two shapes: with one `response` per `prompt`, the current step has no
 * observation; with one more (as the official files and Terrarium's bench export write them), that
 * last response is the real observation of `current_prompt` and becomes the current step's.
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
    const benchmark = expectString(sample.task, 'task');
    const domain = domainOfBenchmark(benchmark);
    const prompts = expectArray(sample.prompt, 'prompt');
    const responses = expectArray(sample.response, 'response');
    const answered = responses.length === prompts.length + 1;
    if (responses.length !== prompts.length && !answered) {
      throw new RecordError(
        'response',
        `has ${responses.length} observations for ${prompts.length} actions ` +
          `(expected ${prompts.length}, or ${prompts.length + 1} with the real observation of current_prompt)`,
      );
    }
    const hints = { shellOutput: domain === 'terminal' };
    const observationAt = (i: number) =>
      observationOf(turnText(responses[i], `response[${i}]`), null, hints);
    const steps = prompts.map((prompt, i) =>
      stepDraft({
        actor: 'agent',
        action: actionOf(turnText(prompt, `prompt[${i}]`), domain),
        observation: observationAt(i),
      }),
    );
    if (sample.current_prompt === undefined || sample.current_prompt === null) {
      throw new RecordError('current_prompt', 'is missing');
    }
    steps.push(
      stepDraft({
        actor: 'agent',
        action: actionOf(turnText(sample.current_prompt, 'current_prompt'), domain),
        observation: answered ? observationAt(prompts.length) : null,
        metadata: { current: true },
      }),
    );
    return [
      buildTrajectory(
        {
          externalId: expectId(sample.id, 'id'),
          sourceFormat: 'agentworldbench',
          sourceBenchmark: `agentworldbench/${benchmark}`,
          domain,
          task: null,
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
