import type {
  BenchItem,
  BenchManifest,
  Domain,
  Observation,
  ObservationKind,
} from '@terrarium/schema';
import {
  actionPrompt,
  actionText,
  canonicalJson,
  currentAction,
  hashText,
  DEFAULT_TEMPLATES,
  evaluatedTurn,
  historyLength,
  observationResponse,
  promptFolderKey,
  stripObservationMarker,
  renderMessages,
  selectTemplate,
} from '@terrarium/worlds';
import { z } from 'zod';
import { benchContentHash } from '../build-bench';
import { domainOfBenchmark } from '@terrarium/formats';
import { pythonJson } from './python-json';
import { topLevelValueText } from './raw-value';

/**
 * One AgentWorldBench row as Terrarium writes it: `prompt` and `response` hold the trajectory's
 * turns from the first through at least the evaluated one (all of them when known, as in the
 * official files), `current_prompt` is `prompt[turn_idx - 1]` and `response[turn_idx - 1]` its real
 * observation; `turn_idx` is 1-based and `total_turns` the trajectory's length, which the lists
 * fall short of when later turns are not known. `task` ends in the official domain after its last
 * `/`. `id` is text here; a numeric id from a file is written back as the number it was.
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
  /**
   * Terrarium's own key, last and only when the item has a task text: the official files have no
   * place for it, and the official script reads only the keys above. Without it a bench imported
   * back would lose what retrieval leaves out (the item's own task, so sibling trials of it are
   * not copied) and ranks by, and score differently under the same content hash.
   */
  task_text: z.string().optional(),
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

/**
 * A row as the official script accepts it: `prompt`/`response` lists of any length or bare
 * strings, `current_prompt` possibly empty, `turn_idx` 1 and `task` `mcp` when absent.
 */
const TurnList = z.union([z.string().transform((text) => [text]), z.array(z.string())]);
const OfficialRow = z.object({
  task: z.string().default('mcp'),
  id: z.union([z.number(), z.string().min(1)]),
  prompt: TurnList.default([]),
  response: TurnList.default([]),
  current_prompt: z.string().nullish(),
  system_str: z.string().nullish(),
  turn_idx: z.number().int().default(1),
  total_turns: z.number().int().positive().nullish(),
  task_text: z.string().nullish(),
});

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
  // The kind is the content's, not the marker's that official rows put in front of it.
  return { kind: observationKind(stripObservationMarker(content), domain), content, callId: null };
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
  const result = OfficialRow.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    return failure(
      fileName,
      lineNumber,
      issue === undefined ? null : fieldName(issue.path),
      issue === undefined
        ? 'invalid row'
        : valueAt(parsed, issue.path) === undefined
          ? 'missing (every official row has it)'
          : issue.message,
    );
  }
  const row = result.data;
  // Ids above 2^53 lose digits in JSON.parse: numeric ids are taken from the line's text.
  const id =
    typeof row.id === 'number' ? (topLevelValueText(line, 'id') ?? String(row.id)) : row.id;
  if (typeof row.id === 'number' && !/^-?\d+$/.test(id)) {
    return failure(fileName, lineNumber, 'id', `expected an integer or a string, got ${id}`);
  }
  const protocol = {
    systemPrompt: row.system_str ?? null,
    prompts: row.prompt,
    responses: row.response,
    currentPrompt: row.current_prompt ?? '',
    turnIdx: row.turn_idx,
  };
  const turn = evaluatedTurn(protocol);
  const action = currentAction(protocol);
  if (action === '') {
    return failure(
      fileName,
      lineNumber,
      'current_prompt',
      `is empty and prompt has no entry ${turn + 1} (turn_idx ${row.turn_idx})`,
    );
  }
  const real = row.response[turn];
  if (real === undefined) {
    return failure(
      fileName,
      lineNumber,
      'response',
      `has ${row.response.length} entries; turn_idx ${row.turn_idx} needs entry ${turn + 1} (the real observation)`,
    );
  }
  const { task, domain } = taskAndDomain(row.task);
  const history = row.prompt.slice(0, historyLength(protocol)).map((prompt, i) => ({
    action: commandOf(prompt, domain),
    observation: observationOf(row.response[i] ?? '', domain),
  }));
  const item: BenchItem = {
    id,
    task,
    domain,
    split: 'test',
    // No dataset: the row is its own source. The trajectory names the row's turn lists, which
    // every row of one trajectory shares in the official files, so the export can write them back.
    origin: {
      dataset: null,
      trajectory: `agentworldbench:${hashText(canonicalJson([row.task, row.prompt, row.response]))}`,
      stepIndex: null,
    },
    turnIndex: history.length,
    totalTurns: Math.max(
      row.total_turns ?? 0,
      row.prompt.length,
      row.response.length,
      history.length + 1,
    ),
    context: { task: row.task_text ?? null, systemPrompt: protocol.systemPrompt, tools: [] },
    history,
    action: commandOf(action, domain),
    real: observationOf(real, domain),
  };
  return { ok: true, item };
}

export interface AgentWorldBenchImport {
  items: BenchItem[];
  errors: AgentWorldBenchError[];
}

/**
 * Reads rows of one or more files (a folder of `{domain}_test.jsonl`) one line at a time; a bad row
 * or an id repeated in any file is an error naming file, line and field, never fatal.
 */
export function createAgentWorldBenchReader() {
  const items: BenchItem[] = [];
  const errors: AgentWorldBenchError[] = [];
  const seen = new Set<string>();
  return {
    items,
    errors,
    /** One line of `fileName` (1-based `lineNumber`); blank lines are skipped. */
    add(line: string, lineNumber: number, fileName: string): void {
      if (line.trim() === '') return;
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
    },
  };
}

/** Every row of a JSONL file (blank lines skipped); a bad row or a repeated id is an error, not fatal. */
export function benchItemsFromAgentWorldBench(
  lines: Iterable<string>,
  fileName = 'agentworldbench.jsonl',
): AgentWorldBenchImport {
  const reader = createAgentWorldBenchReader();
  let lineNumber = 0;
  for (const line of lines) reader.add(line, ++lineNumber, fileName);
  return { items: reader.items, errors: reader.errors };
}

function isImported(item: BenchItem): boolean {
  return item.origin.dataset === null;
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

/** True for an item read from an AgentWorldBench file: its texts are the file's, verbatim. */
export function isImportedItem(item: BenchItem): boolean {
  return isImported(item);
}

/** One turn as an official row writes it: the action prompt and the observation response. */
export interface RowTurn {
  prompt: string;
  response: string;
}

/**
 * An item's turns (history, then its own) in the official row layout. Imported items keep their
 * file's texts; built ones get the official markers (`### Turn N` / `**Action:**`, and
 * `**Environment Observation:**`), so the official script reads them as it reads its own files.
 */
export function itemRowTurns(item: BenchItem): RowTurn[] {
  const turns = [...item.history, { action: item.action, observation: item.real }];
  if (isImported(item)) {
    return turns.map((turn) => ({
      prompt: actionText(turn.action),
      response: turn.observation.content,
    }));
  }
  return turns.map((turn, i) => ({
    prompt: actionPrompt(i + 1, actionText(turn.action)),
    response: observationResponse(turn.observation.content),
  }));
}

/** The value at a zod issue's path in what was parsed (undefined when a key on it is absent). */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = Object.entries(at).find(([name]) => name === String(key))?.[1];
  }
  return at;
}

/**
 * The official domain a Terrarium domain is scored as: the folder of the official `prompts/` that
 * Terrarium's own protocol takes for it (function calling is `mcp`), else the domain's own name
 * (database and text-game have no counterpart in the release). Asked with the domain as the task,
 * so a task's own last part never overrides the domain the item's content is of.
 */
export function officialSubtask(domain: Domain): string {
  return promptFolderKey(domain, domain);
}

/**
 * The task and domain of a row's `task`. The official script takes the domain from the part after
 * the last `/`, and so does this; the task is the row's, whole, so a stratum in front
 * (`tau2-bench/airline/mcp`, as the export writes) keeps airline and retail apart, and a bench read
 * back exports to the same bytes.
 */
export function taskAndDomain(rowTask: string): { task: string; domain: Domain } {
  return { task: rowTask, domain: domainOfBenchmark(rowTask.slice(rowTask.lastIndexOf('/') + 1)) };
}

/**
 * The `task` of an item's row. The official script reads only the part after the last `/` (its
 * subtask): it picks the judge's system prompt and the domain line of the report, and a name it
 * does not know gets an empty judge system prompt. So that part is the official domain of the
 * item's domain; Terrarium's stratum stays in front (`tau2-bench/airline/mcp`), where the script
 * does not look, unless it already ends in that domain (`mcp`, `swe-agent/swe`). Read back, the
 * last part gives the same domain, for every domain.
 */
export function agentWorldBenchTask(item: Pick<BenchItem, 'task' | 'domain'>): string {
  const subtask = officialSubtask(item.domain);
  if (item.task === '') return subtask;
  return item.task.split('/').at(-1) === subtask ? item.task : `${item.task}/${subtask}`;
}

/**
 * The row of an item, keys in AgentWorldBench's order. `trajectory` are the turns of the
 * trajectory as far as they are known (they must begin with the item's own turns), so `prompt`
 * and `response` hold every turn as the official files do when the whole run is known; else they
 * end at the last known turn, never before the item's own. `total_turns` stays the trajectory's
 * length either way: it is what the field counts in the official files, the official script never
 * reads it nor any turn after `turn_idx`, and a bench read back keeps each item's place in its run.
 */
export function toAgentWorldBenchRecord(
  item: BenchItem,
  trajectory?: readonly RowTurn[],
): AgentWorldBenchRecord {
  const own = itemRowTurns(item);
  const full =
    trajectory !== undefined &&
    trajectory.length >= own.length &&
    own.every(
      (turn, i) =>
        trajectory[i]?.prompt === turn.prompt && trajectory[i]?.response === turn.response,
    )
      ? trajectory
      : own;
  const current = own.at(-1);
  return {
    task: agentWorldBenchTask(item),
    id: item.id,
    prompt: full.map((turn) => turn.prompt),
    response: full.map((turn) => turn.response),
    current_prompt: current?.prompt ?? '',
    system_str: simulatorSystemPrompt(item),
    turn_idx: own.length,
    total_turns: Math.max(item.totalTurns, full.length),
    ...(item.context.task === null ? {} : { task_text: item.context.task }),
  };
}

/** One JSONL line, written as Python's `json.dumps` writes it (the official files' style). */
export function formatAgentWorldBenchLine(
  record: AgentWorldBenchRecord,
  options: { numericId?: boolean } = {},
): string {
  const line = pythonJson(record);
  if (options.numericId !== true || !/^-?\d+$/.test(record.id)) return line;
  // The official ids are JSON numbers (some above 2^53): written from their digits, unquoted.
  const quoted = `"id": ${pythonJson(record.id)}`;
  return line.replace(quoted, `"id": ${record.id}`);
}

/** The line of an item: an imported item's numeric id stays a number. */
export function agentWorldBenchLine(item: BenchItem, trajectory?: readonly RowTurn[]): string {
  return formatAgentWorldBenchLine(toAgentWorldBenchRecord(item, trajectory), {
    numericId: isImported(item),
  });
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
