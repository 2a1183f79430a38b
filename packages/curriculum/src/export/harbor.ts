import type { TerminalWorld } from '@terrarium/executable-worlds';
import type { SolutionAction, Task, VerifierCheck } from '../tasks/task';
import { describeCheck } from '../tasks/verifier';
import { noiseOf } from '../evolve/world-source';

/** One file of an exported task folder; the caller writes it (this package does no I/O). */
export interface ExportedFile {
  /** Relative to the task folder, e.g. `tests/test.sh`. */
  path: string;
  content: string;
  executable: boolean;
}

export type HarborExport = { ok: true; files: ExportedFile[] } | { ok: false; reason: string };

/**
 * A simulated shell may keep command stubs or device nodes as files; the image has the real ones,
 * and copying stubs over them would break it.
 */
const SYSTEM_PATH = /^\/(bin|sbin|usr\/bin|usr\/sbin|usr\/lib|lib|proc|dev|sys)\//;

/** Where the agent (and solve.sh) leaves its answer for answer checks. */
export const HARBOR_ANSWER_FILE = '/answer.txt';

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Absolute paths under the workspace's own top-level folders get a `$TASK_ROOT` prefix. In
 * Harbor's container TASK_ROOT is empty, so the scripts act on `/` as written; a local check (our
 * test, `bash tests/test.sh` on a laptop) points it at a copy of the workspace instead, so the
 * scripts never touch the host's real `/out` or `/testbed`.
 */
function rooted(command: string, roots: ReadonlySet<string>): string {
  return command.replace(
    /(^|[\s=<>|;&("'`])\/([A-Za-z0-9._-]+)(?=\/|$|[\s;&|)"'`])/g,
    (match, before: string, top: string) =>
      roots.has(top) ? `${before}\${TASK_ROOT}/${top}` : match,
  );
}

function topFolders(paths: Iterable<string>): Set<string> {
  const tops = new Set<string>();
  for (const path of paths) {
    const top = path.split('/')[1];
    if (top) tops.add(top);
  }
  return tops;
}

function checkPaths(task: Task): string[] {
  const paths: string[] = [HARBOR_ANSWER_FILE];
  for (const { check } of task.verifier.checks) if ('path' in check) paths.push(check.path);
  return paths;
}

function solveScript(task: Task, roots: ReadonlySet<string>, cwd: string): string {
  const lines = [
    '#!/usr/bin/env bash',
    `# Oracle solution of ${task.id}, exported by Terrarium (it passes tests/test.sh).`,
    `cd "\${TASK_ROOT}"${shellQuote(cwd)}`,
    'LAST="$(mktemp)"',
  ];
  const answerFile = `"\${TASK_ROOT}${HARBOR_ANSWER_FILE}"`;
  for (const action of task.oracle) lines.push(...solveLines(action, roots, answerFile));
  return `${lines.join('\n')}\n`;
}

function solveLines(
  action: SolutionAction,
  roots: ReadonlySet<string>,
  answerFile: string,
): string[] {
  if (typeof action !== 'string') {
    if (action.tool !== 'submit') return [rooted(String(action.arguments['command'] ?? ''), roots)];
    const answer = action.arguments['answer'];
    return typeof answer === 'string' ? [`printf '%s' ${shellQuote(answer)} > ${answerFile}`] : [];
  }
  const submit = /^submit(?:\s+([\s\S]*))?$/.exec(action.trim());
  if (submit)
    return submit[1] === undefined ? [] : [`printf '%s' ${shellQuote(submit[1])} > ${answerFile}`];
  // The last command's output is the answer when nothing is submitted, as in the live session.
  // Braces, not a subshell: a `cd` carries over to the next action as in the live session.
  return [`{ ${rooted(action, roots)}\n} > "$LAST" 2>&1; cp "$LAST" ${answerFile}`];
}

function checkScript(
  check: VerifierCheck,
  expectedFile: string,
  roots: ReadonlySet<string>,
  cwd: string,
): string {
  const answer = `"\${TASK_ROOT}${HARBOR_ANSWER_FILE}"`;
  switch (check.kind) {
    case 'file-equals':
      return `cmp -s "\${TASK_ROOT}"${shellQuote(check.path)} "${expectedFile}"`;
    case 'file-contains':
      return `grep -qF -- "$(cat "${expectedFile}")" "\${TASK_ROOT}"${shellQuote(check.path)}`;
    case 'file-exists':
      return check.exists
        ? `[ -e "\${TASK_ROOT}"${shellQuote(check.path)} ]`
        : `[ ! -e "\${TASK_ROOT}"${shellQuote(check.path)} ]`;
    case 'command-output':
      return `cmp -s <(cd "\${TASK_ROOT}"${shellQuote(cwd)} && ${rooted(check.command, roots)} 2>&1) "${expectedFile}"`;
    case 'answer-equals':
      if (check.normalize === 'exact')
        return `cmp -s <(cat ${answer} 2>/dev/null) "${expectedFile}"`;
      return check.normalize === 'trim'
        ? `[ "$( (cat ${answer} 2>/dev/null) | trim)" = "$(trim < "${expectedFile}")" ]`
        : `[ "$( (cat ${answer} 2>/dev/null) | lines)" = "$(lines < "${expectedFile}")" ]`;
    case 'answer-contains':
      return `grep -qF -- "$(cat "${expectedFile}")" ${answer} 2>/dev/null`;
    case 'sql-rows':
    case 'code':
    case 'record-equals':
      return 'false';
  }
}

function expectedContent(check: VerifierCheck): string | null {
  switch (check.kind) {
    case 'file-equals':
      return check.content;
    case 'file-contains':
    case 'answer-contains':
      return check.text;
    case 'command-output':
    case 'answer-equals':
      return check.expected;
    default:
      return null;
  }
}

function testScript(task: Task, roots: ReadonlySet<string>, cwd: string): string {
  const lines = [
    '#!/usr/bin/env bash',
    `# Verifier of ${task.id}, exported by Terrarium: writes reward = Σ weight·passed / Σ weight.`,
    'HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
    'REWARD_DIR="${REWARD_DIR:-/logs/verifier}"',
    'mkdir -p "$REWARD_DIR"',
    'earned=0',
    'total=0',
    '# The normalizations of answer checks, as in the live verifier.',
    'trim() { local s; s="$(cat; printf x)"; s="${s%x}"; s="${s#"${s%%[![:space:]]*}"}"; printf "%s" "${s%"${s##*[![:space:]]}"}"; }',
    "lines() { sed -e 's/[[:space:]]*$//' | trim; }",
    'check() { # weight, name, command…',
    '  local weight=$1 name=$2',
    '  shift 2',
    '  total=$(awk "BEGIN{print $total+$weight}")',
    '  if eval "$@"; then earned=$(awk "BEGIN{print $earned+$weight}"); echo "pass  $name"; else echo "FAIL  $name"; fi',
    '}',
  ];
  task.verifier.checks.forEach(({ check, weight, name }, index) => {
    const expectedFile = `$HERE/expected/${index}`;
    lines.push(
      `check ${weight} ${shellQuote(name ?? describeCheck(check))} ${shellQuote(checkScript(check, expectedFile, roots, cwd))}`,
    );
  });
  lines.push(
    'reward=$(awk "BEGIN{print ($total == 0) ? 0 : $earned / $total}")',
    'echo "$reward" > "$REWARD_DIR/reward.txt"',
    `echo "reward $reward (passes at ${task.verifier.passThreshold})"`,
  );
  return `${lines.join('\n')}\n`;
}

/** Whether any of `paths` lies inside `directory`. */
function covered(directory: string, paths: Iterable<string>): boolean {
  for (const path of paths) if (path.startsWith(`${directory}/`)) return true;
  return false;
}

/**
 * The directories `mkdir -p` must make for the world's empty ones to exist: those no file is
 * under and no other such directory is under (its `-p` makes the parents).
 */
function leafDirectories(directories: string[], files: string[]): string[] {
  return directories.filter(
    (directory) =>
      directory !== '/' && !covered(directory, files) && !covered(directory, directories),
  );
}

function tomlString(text: string): string {
  return JSON.stringify(text);
}

/** Facts an export adds about where a task came from (a curriculum's run, lineage, tier…). */
export type TaskMetadata = Record<string, string | number>;

/** TOML keys are bare words here: the exporter names them, never the data. */
function tomlMetadata(metadata: TaskMetadata): string[] {
  return Object.entries(metadata).map(
    ([key, value]) => `${key} = ${typeof value === 'number' ? String(value) : tomlString(value)}`,
  );
}

/**
 * A curriculum's noise axis shows the policy spurious lines; that happens in Terrarium's sessions,
 * not in the world, so a container runs the task without them. Said where a reader of the task sees it.
 */
function noiseLines(task: Task): string[] {
  const level = noiseOf(task.world);
  if (level === 0) return [];
  return [
    '# Terrarium shows the agent a spurious line after each output line with this chance;',
    '# a Harbor container runs the task without that noise.',
    `observation_noise = ${level}`,
  ];
}

/**
 * A Harbor task folder for a task on a terminal world: instruction.md, task.toml (provenance in
 * [metadata]), environment/ (a Dockerfile copying the initial workspace), tests/test.sh writing the
 * reward to /logs/verifier/reward.txt, solution/solve.sh (the oracle).
 */
export function exportHarborTask(
  task: Task,
  initialWorld: TerminalWorld,
  metadata: TaskMetadata = {},
): HarborExport {
  if (task.verifier.checks.some(({ check }) => check.kind === 'sql-rows')) {
    return { ok: false, reason: `${task.id}: SQL checks have no shell form yet` };
  }
  if (task.verifier.checks.some(({ check }) => check.kind === 'code')) {
    return { ok: false, reason: `${task.id}: code verifiers run in Terrarium's sandbox only` };
  }
  const workspace = initialWorld
    .files()
    .filter((path) => !SYSTEM_PATH.test(path))
    .map((path) => ({ path, content: initialWorld.readFile(path) ?? '' }));
  const emptyDirectories = leafDirectories(
    initialWorld.directories().filter((path) => !SYSTEM_PATH.test(`${path}/`)),
    workspace.map((file) => file.path),
  );
  const roots = topFolders([
    ...workspace.map((file) => file.path),
    ...emptyDirectories,
    ...checkPaths(task),
  ]);
  const cwd = initialWorld.cwd();
  const usesAnswer = task.verifier.checks.some(({ check }) => check.kind.startsWith('answer-'));
  const files: ExportedFile[] = [
    {
      path: 'instruction.md',
      content: `${task.goal}\n${usesAnswer ? `\nWhen you are done, write your final answer to \`${HARBOR_ANSWER_FILE}\`.\n` : ''}`,
      executable: false,
    },
    {
      path: 'task.toml',
      content: [
        'version = "1.0"',
        '',
        '[metadata]',
        `name = ${tomlString(task.id)}`,
        'author_name = "Terrarium export"',
        'category = "terminal"',
        `source = ${tomlString(task.provenance.source)}`,
        `source_trajectory = ${tomlString(task.provenance.trajectory ?? '')}`,
        `source_steps = [${task.provenance.steps.join(', ')}]`,
        ...tomlMetadata(metadata),
        ...noiseLines(task),
        '',
        '[verifier]',
        'timeout_sec = 120.0',
        '',
        '[agent]',
        'timeout_sec = 600.0',
        '',
        '[environment]',
        'build_timeout_sec = 600.0',
        'allow_internet = false',
        '',
      ].join('\n'),
      executable: false,
    },
    {
      path: 'environment/Dockerfile',
      // Docker refuses COPY of a missing folder: a world with no files of its own copies nothing.
      content: [
        'FROM ubuntu:24.04',
        ...(workspace.length > 0 ? ['COPY workspace/ /'] : []),
        // Directories no file is in: a copy cannot carry them, and a command may look for them.
        ...(emptyDirectories.length > 0
          ? [`RUN mkdir -p ${emptyDirectories.map(shellQuote).join(' ')}`]
          : []),
        `WORKDIR ${cwd}`,
        '',
      ].join('\n'),
      executable: false,
    },
    ...workspace.map((file) => ({
      path: `environment/workspace${file.path}`,
      content: file.content,
      executable: false,
    })),
    { path: 'tests/test.sh', content: testScript(task, roots, cwd), executable: true },
    { path: 'solution/solve.sh', content: solveScript(task, roots, cwd), executable: true },
  ];
  task.verifier.checks.forEach(({ check }, index) => {
    const expected = expectedContent(check);
    if (expected !== null)
      files.push({ path: `tests/expected/${index}`, content: expected, executable: false });
  });
  return { ok: true, files };
}

/**
 * One JSONL line per task: the task itself plus the tools an agent gets (for dataset loaders), and
 * the export's facts about it under `metadata` when there are any.
 */
export function taskJsonLine(task: Task, tools: unknown[], metadata: TaskMetadata = {}): string {
  const extra = Object.keys(metadata).length > 0 ? { metadata } : {};
  return JSON.stringify({ ...task, instruction: task.goal, tools, ...extra });
}
