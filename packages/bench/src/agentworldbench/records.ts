import type {
  BenchItem,
  BenchManifest,
  Domain,
  Observation,
  ObservationKind,
} from '@terrarium/schema';
import { actionText, DEFAULT_TEMPLATES, renderMessages, selectTemplate } from '@terrarium/worlds';
import { z } from 'zod';
import { benchContentHash } from '../build-bench';
import { domainOfBenchmark } from '@terrarium/formats';
import { pythonJson } from './python-json';

/**
 * One AgentWorldBench row. `prompt[i]` are the earlier actions and `response[i]` their real
 * observations; `response` holds one entry more than `prompt`: the real observation of
 * `current_prompt`, which is what a simulator must predict. `turn_idx` is 1-based.
 */
export const AgentWorldBenchRecord = z.object({
  task: z.string(),
  id: z.string(),
  prompt: z.array(z.string()),
  response: z.array(z.string()),
  current_prompt: z.string(),
  system_str: z.string().nullable(),
  turn_idx: z.number().int().positive(),
  total_turns: z.number().int().positive(),
});
export type AgentWorldBenchRecord = z.infer<typeof AgentWorldBenchRecord>;

/** The keys of a row, in the order AgentWorldBench writes them. */
export const AGENTWORLDBENCH_KEYS = [
  'task',
  'id',
  'prompt',
  'response',
  'current_prompt',
  'system_str',
  'turn_idx',
  'total_turns',
] as const;

export interface AgentWorldBenchError {
  file: string;
  /** 1-based line of the JSONL file. */
  line: number;
  /** The field at fault (`response`, `prompt[2]`…), or null when the line is not a JSON object. */
  field: string | null;
  reason: string;
  /** `file:line: field: reason`, ready to print. */
  message: string;
}

export type AgentWorldBenchParse =
  { ok: true; item: BenchItem } | { ok: false; error: AgentWorldBenchError };

function failure(
  file: string,
  line: number,
  field: string | null,
  reason: string,
): AgentWorldBenchParse {
  const where = field === null ? `${file}:${line}` : `${file}:${line}: ${field}`;
  return { ok: false, error: { file, line, field, reason, message: `${where}: ${reason}` } };
}

function fieldName(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) =>
      typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}

function observationKind(content: string, domain: Domain): ObservationKind {
  if (domain === 'terminal') return 'terminal';
  const trimmed = content.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      JSON.parse(content);
      return 'json';
    } catch {
      return 'text';
    }
  }
  return 'text';
}

function observationOf(content: string, domain: Domain): Observation {
  return { kind: observationKind(content, domain), content, callId: null };
}

/**
 * Actions are kept as the row's text, verbatim, so that export writes back the same bytes (a
 * re-serialized tool call would change its spacing). The interpreter follows the domain.
 */
function commandOf(text: string, domain: Domain): BenchItem['action'] {
  const interpreter = domain === 'terminal' ? 'bash' : domain === 'database' ? 'sql' : null;
  return { type: 'command', command: text, interpreter };
}

/**
 * Parses one JSONL line of an AgentWorldBench file into a bench item that keeps the row's `id` and
 * `task`; the last `response` is the real observation. Errors name the file, line and field.
 */
export function parseAgentWorldBenchLine(
  line: string,
  lineNumber: number,
  fileName: string,
): AgentWorldBenchParse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return failure(fileName, lineNumber, null, `not JSON: ${reason}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return failure(fileName, lineNumber, null, 'not a JSON object');
  }
  const result = AgentWorldBenchRecord.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    return failure(
      fileName,
      lineNumber,
      issue === undefined ? null : fieldName(issue.path),
      issue?.message ?? 'invalid row',
    );
  }
  const row = result.data;
  if (row.response.length !== row.prompt.length + 1) {
    return failure(
      fileName,
      lineNumber,
      'response',
      `has ${row.response.length} observations for ${row.prompt.length} earlier actions; ` +
        `expected ${row.prompt.length + 1} (the last is the real observation of current_prompt)`,
    );
  }
  const domain = domainOfBenchmark(row.task);
  const real = row.response[row.prompt.length];
  if (real === undefined) return failure(fileName, lineNumber, 'response', 'is empty');
  const item: BenchItem = {
    id: row.id,
    task: row.task,
    domain,
    split: 'test',
    origin: { dataset: null, trajectory: null, stepIndex: null },
    turnIndex: row.turn_idx - 1,
    totalTurns: row.total_turns,
    context: { task: null, systemPrompt: row.system_str, tools: [] },
    history: row.prompt.map((action, i) => ({
      action: commandOf(action, domain),
      observation: observationOf(row.response[i] ?? '', domain),
    })),
    action: commandOf(row.current_prompt, domain),
    real: observationOf(real, domain),
  };
  return { ok: true, item };
}

export interface AgentWorldBenchImport {
  items: BenchItem[];
  errors: AgentWorldBenchError[];
}

/** Every row of a JSONL file (blank lines skipped); a bad row or a repeated id is an error, not fatal. */
export function benchItemsFromAgentWorldBench(
  lines: Iterable<string>,
  fileName = 'agentworldbench.jsonl',
): AgentWorldBenchImport {
  const items: BenchItem[] = [];
  const errors: AgentWorldBenchError[] = [];
  const seen = new Set<string>();
  let lineNumber = 0;
  for (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    const parsed = parseAgentWorldBenchLine(line, lineNumber, fileName);
    if (!parsed.ok) {
      errors.push(parsed.error);
    } else if (seen.has(parsed.item.id)) {
      const reason = `repeats the id of an earlier row`;
      errors.push({
        file: fileName,
        line: lineNumber,
        field: 'id',
        reason,
        message: `${fileName}:${lineNumber}: id: ${reason}`,
      });
    } else {
      seen.add(parsed.item.id);
      items.push(parsed.item);
    }
  }
  return { items, errors };
}

function isImported(item: BenchItem): boolean {
  return item.origin.dataset === null && item.origin.trajectory === null;
}

/**
 * The system prompt a simulator gets for an item. Imported rows keep their `system_str`; items built
 * here get the world-model system prompt of packages/worlds' template for their domain (their
 * `context.systemPrompt` is the agent's, which the template embeds).
 */
export function simulatorSystemPrompt(item: BenchItem): string | null {
  if (isImported(item)) return item.context.systemPrompt;
  const template = selectTemplate(DEFAULT_TEMPLATES, item.domain);
  const messages = renderMessages(
    template,
    { domain: item.domain, ...item.context },
    [],
    item.action,
  );
  return messages[0]?.content ?? null;
}

/** The row of an item, keys in AgentWorldBench's order; actions as the agent wrote them. */
export function toAgentWorldBenchRecord(item: BenchItem): AgentWorldBenchRecord {
  return {
    task: item.task,
    id: item.id,
    prompt: item.history.map((turn) => actionText(turn.action)),
    response: [...item.history.map((turn) => turn.observation.content), item.real.content],
    current_prompt: actionText(item.action),
    system_str: simulatorSystemPrompt(item),
    turn_idx: item.turnIndex + 1,
    total_turns: item.totalTurns,
  };
}

/** One JSONL line, written as Python's `json.dumps` writes it (the official files' style). */
export function formatAgentWorldBenchLine(record: AgentWorldBenchRecord): string {
  return pythonJson(record);
}

/** A manifest for a bench imported from a file: its items as they are, AgentWorldBench's sampling. */
export function importedBenchManifest(
  items: readonly BenchItem[],
  options: { name: string; version: number; createdAt: string; fileName: string },
): BenchManifest {
  const byTask: Record<string, number> = {};
  for (const item of items) byTask[item.task] = (byTask[item.task] ?? 0) + 1;
  return {
    name: options.name,
    version: options.version,
    createdAt: options.createdAt,
    sampling: { kind: 'agentworld' },
    seed: 0,
    sources: [options.fileName],
    devFraction: 0,
    itemCount: items.length,
    duplicatesDropped: 0,
    byTask,
    contentHash: benchContentHash(items),
  };
}
