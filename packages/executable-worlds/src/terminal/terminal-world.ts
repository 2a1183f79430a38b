import type { Action, JsonValue, Observation, Trajectory } from '@terrarium/schema';
import { actionKey, type Transition, type WorldModel } from '@terrarium/worlds';
import type { Bash } from 'just-bash';
import type {
  BuildTerminalWorldOptions,
  TerminalWorld,
  Workspace,
  WorldSnapshot,
  WorldStepResult,
} from '../world';
import { fallbackAnswer, unansweredText } from '../fallback-answer';
import { CowFs, type CowCapture, type CowEntry } from './cow-fs';
import { bashMessages, planIntercodeAction, redirectMessage } from './intercode-transport';
import { isNotACommand } from './not-a-command';
import { reconstructWorkspace } from './reconstruct';
import { parseLine } from './shell-words';
import {
  CLOSED_EDITOR,
  appliedEdit,
  runSweTool,
  sweDialectOf,
  sweToolOf,
  type EditorState,
  type PathView,
  type SweDialect,
  type SweTool,
} from './swe-tools';

let justBash: Promise<typeof import('just-bash')> | null = null;

/**
 * just-bash, imported when a terminal world first runs a command: importing it takes about as long
 * as the rest of the server's modules together (0.5-1 s here), and most processes that load this
 * package (every CLI command, a server nobody asks for a terminal world) never run one.
 */
function loadJustBash(): Promise<typeof import('just-bash')> {
  justBash ??= import('just-bash');
  return justBash;
}

/**
 * Programs just-bash has no real implementation of (interpreters, VCS, compilers, package managers,
 * network, system state). Their output cannot come from the virtual FS, so they go to the fallback
 * before running: executing them would only print "command not found".
 */
export const UNSUPPORTED_PROGRAMS: ReadonlySet<string> = new Set([
  'python',
  'python3',
  'pip',
  'pip3',
  'git',
  'gcc',
  'g++',
  'cc',
  'make',
  'cargo',
  'go',
  'java',
  'javac',
  'node',
  'npm',
  'yarn',
  'apt',
  'apt-get',
  'yum',
  'curl',
  'wget',
  'ping',
  'dig',
  'nslookup',
  'ssh',
  'sudo',
  'ps',
  'top',
  'kill',
  'mount',
  'df',
  'free',
  'uptime',
  'who',
  'w',
  'last',
  'ifconfig',
  'ip',
  'netstat',
  'systemctl',
  'service',
  'man',
  'pytest',
]);

const DEFAULT_MAX_COMMANDS = 10_000;

/** Paths the world or just-bash provide (devices, command stubs), not part of the workspace. */
const SYSTEM_PATH = /^\/(dev|proc|sys|bin|usr\/bin)(\/|$)/;

/** Recorded observations per action key, in order: identical calls get the recorded answers. */
type RecordedTable = ReadonlyMap<string, readonly Observation[]>;

interface Internal {
  fs: CowCapture;
  cwd: string;
  env: Record<string, string>;
  steps: number;
  recordedUse: Map<string, number>;
  history: Transition[];
  /** SWE-agent's open file and window, which its tools read and move. */
  editor: EditorState;
  /**
   * Whether `fs` holds the command stubs just-bash writes under /bin and /usr/bin when a shell
   * starts: a capture from before any shell ran does not, and a shell finds its programs there
   * through a workspace's PATH.
   */
  stubs: boolean;
}

/** Snapshot internals live here, so the snapshot object itself stays opaque to callers. */
const SNAPSHOTS = new WeakMap<WorldSnapshot, Internal>();

/**
 * The workspace's files, its placeholders marked (`CowFs.markFile`). The mark is held by the
 * bytes object, which a copy or move shares: it follows the stand-in content wherever the world
 * puts it, and a later entry at the same path (an overlay) clears it. What a shell step writes
 * from a placeholder is marked anew after the step (`markShellWrites`).
 */
function initialFs(workspace: Workspace): CowFs {
  const fs = new CowFs();
  for (const entry of workspace.entries) {
    if (entry.content === null) {
      fs.mkdirSync(entry.path);
      continue;
    }
    fs.writeFileSync(entry.path, entry.content);
    if (entry.placeholder === true) fs.markFile(entry.path);
  }
  fs.mkdirSync(workspace.cwd);
  // What every Linux box has and shell lines rely on (`2>/dev/null`, scratch files in /tmp).
  fs.mkdirSync('/tmp');
  fs.writeFileSync('/dev/null', '');
  return fs;
}

function recordedTable(trajectory: Trajectory | null): RecordedTable {
  const table = new Map<string, Observation[]>();
  for (const step of trajectory?.steps ?? []) {
    if (step.observation === null) continue;
    const key = actionKey(step.action);
    const list = table.get(key) ?? [];
    list.push(step.observation);
    table.set(key, list);
  }
  return table;
}

/** The first program of each simple command of a line, for the unsupported check and reports. */
export function programsOf(command: string): string[] {
  return parseLine(command).commands.map((simple) => programOf(simple.words));
}

/**
 * The program a simple command runs: its first word after the assignments, or for an assignment
 * from a command substitution (`load=$(cat /proc/loadavg`, as the line parser splits it), the
 * substituted command's program: `cat`, not the word after it.
 */
function programOf(words: readonly string[]): string {
  for (const [index, word] of words.entries()) {
    const assignment = /^[A-Za-z_][A-Za-z0-9_]*=(.*)$/s.exec(word);
    if (assignment === null) return word;
    const substituted = /^(?:\$\(|`)(.*)$/s.exec(assignment[1] ?? '');
    if (substituted === null) continue;
    const program = (substituted[1] ?? '').replace(/[)`]+$/, '');
    return program === '' ? (words[index + 1] ?? '') : program;
  }
  return '';
}

/** A step already taken from the same state: its answer and what it changed. */
interface Memo {
  result: WorldStepResult;
  changes: readonly (readonly [string, CowEntry | null])[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * Actions whose output depends on more than the state (clock, randomness, process ids): never
 * memoized. Everything else the shell runs is a function of (files, cwd, env, command).
 */
const NONDETERMINISTIC =
  /\b(date|shuf|mktemp|uptime|sleep|time|timeout|hostname)\b|\$(RANDOM|SRANDOM|BASHPID|SECONDS|EPOCH\w*|\$)|\/dev\/u?random|\/proc\//;

/** Bound on memoized transitions per world lineage (each holds one answer and one change list). */
const MAX_MEMOS = 200_000;

/** Transitions kept as context for the world-model fallback. */
const MAX_HISTORY = 64;

interface Shared {
  id: string;
  initial: CowCapture;
  workspace: Workspace;
  recorded: RecordedTable;
  fallback: WorldModel | null;
  trajectory: Trajectory | null;
  maxCommandCount: number;
  transport: NonNullable<BuildTerminalWorldOptions['transport']>;
  /** Shared by a world and all its forks: same state + same action = same transition. */
  memos: Map<string, Memo> | null;
  /** Per distinct action line: the first program the shell cannot run, or null. */
  unsupported: Map<string, string | null>;
  /** The SWE-agent harness the recording used, whose tools the world runs; null for none. */
  dialect: SweDialect | null;
}

class JustBashTerminalWorld implements TerminalWorld {
  readonly kind = 'terminal';
  private bash: Bash | null = null;
  private fs: CowFs;
  private currentCwd: string;
  private currentEnv: Record<string, string>;
  private stepCount: number;
  private recordedUse: Map<string, number>;
  private history: Transition[];
  private editor: EditorState;
  private stubs: boolean;

  constructor(
    private readonly shared: Shared,
    from: Internal,
  ) {
    this.fs = new CowFs(from.fs);
    this.currentCwd = from.cwd;
    this.currentEnv = { ...from.env };
    this.stepCount = from.steps;
    this.recordedUse = new Map(from.recordedUse);
    this.history = [...from.history];
    this.editor = from.editor;
    this.stubs = from.stubs;
  }

  get id(): string {
    return this.shared.id;
  }

  get steps(): number {
    return this.stepCount;
  }

  /** Created on first use: a fork that never steps costs no shell (fork cost stays a Map copy). */
  private async shell(): Promise<Bash> {
    if (this.bash !== null) return this.bash;
    const { Bash } = await loadJustBash();
    this.bash ??= new Bash({
      fs: this.fs,
      cwd: this.currentCwd,
      env: this.currentEnv,
      executionLimits: { maxCommandCount: this.shared.maxCommandCount, maxLoopIterations: 10_000 },
      // `sleep` must not wait for real: steps are in-process and a rollout runs millions of them.
      sleep: () => Promise.resolve(),
    });
    this.stubs = true;
    return this.bash;
  }

  async reset(): Promise<Observation> {
    this.restoreInternal({
      fs: this.shared.initial,
      cwd: this.shared.workspace.cwd,
      env: this.shared.workspace.env,
      steps: 0,
      recordedUse: new Map(),
      history: [],
      editor: CLOSED_EDITOR,
      stubs: false,
    });
    return { kind: 'terminal', content: '', callId: null };
  }

  async step(action: Action): Promise<WorldStepResult> {
    const result = await this.run(action);
    this.stepCount++;
    this.history.push({ action, observation: result.observation });
    if (this.history.length > MAX_HISTORY)
      this.history.splice(0, this.history.length - MAX_HISTORY);
    return result;
  }

  private async run(action: Action): Promise<WorldStepResult> {
    const command =
      action.type === 'command'
        ? action.command
        : action.type === 'keystrokes'
          ? action.keys
          : null;
    // SWE-agent's importer marks its tools' calls `aci`; a model may also send them as bash.
    const tool =
      action.type !== 'command' ||
      !['aci', 'bash', null].includes(action.interpreter) ||
      this.shared.dialect === null ||
      this.shared.transport !== 'shell'
        ? null
        : sweToolOf(action.command);
    if (tool !== null) return this.runTool(tool, action);
    // Any other action breaks a run of scrolls, as SWE-agent's `LAST_ACTION` tells its tools.
    if (this.editor.kind === 'open' && this.editor.scrolls !== undefined)
      this.editor = { kind: 'open', file: this.editor.file, line: this.editor.line };
    if (
      command === null ||
      (action.type === 'command' && action.interpreter !== null && action.interpreter !== 'bash')
    ) {
      return this.fallbackFor(action, 'not-a-shell-command');
    }
    let script = command;
    let cwd = this.currentCwd;
    let nextCwd: string | null = null;
    let arg0 = 'bash';
    const intercode = this.shared.transport === 'intercode';
    if (intercode) {
      const plan = planIntercodeAction(command, this.currentCwd);
      if (plan.kind === 'malformed') {
        const observation: Observation = {
          kind: 'terminal',
          content: 'Malformed command',
          callId: null,
        };
        return {
          observation,
          exitCode: null,
          provenance: 'executed',
          detail: { reason: 'harness-split-failed' },
        };
      }
      ({ script, cwd, nextCwd, arg0 } = plan);
    }
    const unsupported = this.unsupportedIn(script);
    if (unsupported !== undefined)
      return this.fallbackFor(action, `unsupported-command:${unsupported}`);
    const memos = this.shared.memos;
    const memoKey =
      memos !== null && !NONDETERMINISTIC.test(script) ? this.memoKey(script, cwd) : null;
    if (memoKey !== null) {
      const memo = memos?.get(memoKey);
      if (memo !== undefined) {
        this.fs.applyChanges(memo.changes);
        this.currentCwd = memo.cwd;
        if (memo.env !== this.currentEnv) this.envKey = null;
        this.currentEnv = memo.env;
        return memo.result;
      }
    }
    const result = await this.execute(script, cwd, nextCwd, arg0, action);
    if (memoKey !== null && memos !== null && result.memo !== null) {
      if (memos.size >= MAX_MEMOS) memos.clear();
      memos.set(memoKey, result.memo);
    }
    return result.step;
  }

  private envKey: string | null = null;

  /**
   * An output as the recording's harness handed it to the agent: the EnIGMA harness drops its
   * final newline, the shell's as its tools' (walk 52: `pwd` counted a mismatch for that newline
   * alone). The agent of such a world saw no newline there, so neither does a policy here.
   */
  private handedOver(output: string): string {
    return this.shared.dialect === 'enigma' && output.endsWith('\n') ? output.slice(0, -1) : output;
  }

  /**
   * One of SWE-agent's tools, run on the world's files and editor state. Not memoized: its answer
   * depends on the editor state, which memo keys do not hold, and it costs no shell.
   */
  private async runTool(tool: SweTool, action: Action): Promise<WorldStepResult> {
    const dialect = this.shared.dialect ?? 'classic';
    const before = this.editor;
    const outcome = runSweTool(tool, {
      cwd: this.currentCwd,
      editor: before,
      dialect,
      look: (path) => this.look(path),
      realpath: (path) => this.fs.realpathSync(path),
      // A reconstructed tree holds only what the recording listed; no world here has more.
      filesUnder: () => null,
    });
    this.editor = outcome.editor;
    if (outcome.kind === 'fallback') {
      const answer = await this.fallbackFor(action, outcome.reason);
      if (tool.name === 'edit' && before.kind === 'open')
        this.settleEdit(tool, before.file, answer);
      return answer;
    }
    for (const write of outcome.writes) this.fs.writeFileSync(write.path, write.text);
    const content = this.handedOver(outcome.output);
    return {
      observation: { kind: 'terminal', content, callId: null },
      exitCode: 0,
      provenance: 'executed',
    };
  }

  /**
   * The world's copy of a file after an `edit` the world left to the fallback, so that later tools
   * do not run on text the real container no longer has. A recorded answer saying the edit was
   * applied is applied; one saying the gate refused it leaves the file; any other answer (a world
   * model's, an unknown wording) leaves the content unknown.
   */
  private settleEdit(tool: SweTool, file: string, answer: WorldStepResult): void {
    const said = answer.provenance === 'recorded' ? answer.observation.content : '';
    if (said.includes('Your changes have NOT been applied')) return;
    const view = this.look(file);
    if (view.kind !== 'file') return;
    const applied = said.includes('File updated.') ? appliedEdit(tool, view.text) : null;
    if (applied === null) {
      this.markUnseen(file);
      return;
    }
    this.fs.writeFileSync(file, applied.text);
    this.editor = { kind: 'open', file, line: applied.line };
  }

  /** Makes a file's content the world's no longer (a mark on it alone); its entry after. */
  private markUnseen(path: string): CowEntry | undefined {
    this.fs.markFile(path);
    return this.fs.entrySync(path);
  }

  /**
   * After a shell step, marks what it wrote from content the world never saw: a file that was a
   * placeholder before the step (`>>`, `sed -i`, `tee -a` keep the stand-in's bytes in it), and
   * every file written by a step that read a placeholder or names one on its line (`cat
   * placeholder > other`). Conservative: a write that replaced the stand-in whole stays marked
   * too, until SWE-agent's `create`/`edit` make it known. Returns the changes as they now are.
   */
  private markShellWrites(
    script: string,
    changes: readonly (readonly [string, CowEntry | null])[],
    wasUnseen: ReadonlySet<string>,
    readUnseen: boolean,
  ): (readonly [string, CowEntry | null])[] {
    const written = changes.filter(
      ([, entry]) => entry?.type === 'file' && !this.fs.isMarked(entry.bytes),
    );
    if (written.length === 0) return [...changes];
    const taints = readUnseen || this.namesUnseen(script, wasUnseen);
    const marked = new Map<string, CowEntry | undefined>();
    for (const [path] of written)
      if (taints || wasUnseen.has(path)) marked.set(path, this.markUnseen(path));
    if (marked.size === 0) return [...changes];
    return changes.map(([path, entry]) => [
      path,
      marked.has(path) ? (marked.get(path) ?? null) : entry,
    ]);
  }

  /** Whether a command line names, by path or file name, a file that was a placeholder before it. */
  private namesUnseen(script: string, wasUnseen: ReadonlySet<string>): boolean {
    const words = new Set(script.split(/[\s'"`<>|;&()=,]+/).filter((word) => word !== ''));
    if (words.size === 0) return false;
    const named = (path: string) =>
      words.has(path) || words.has(path.slice(path.lastIndexOf('/') + 1));
    for (const path of wasUnseen) if (named(path)) return true;
    for (const path of this.fs.getAllPaths()) {
      const entry = this.fs.entrySync(path);
      if (entry?.type === 'file' && this.fs.isMarked(entry.bytes) && named(path)) return true;
    }
    return false;
  }

  private look(path: string): PathView {
    const entry = this.fs.entrySync(path);
    if (entry === undefined) return { kind: 'missing' };
    if (entry.type === 'directory') return { kind: 'directory' };
    if (entry.type !== 'file' || this.fs.isMarked(entry.bytes)) return { kind: 'unseen' };
    return { kind: 'file', text: this.fs.readTextSync(path) ?? '' };
  }

  /** The first program the shell cannot run, parsed once per distinct line (rollouts repeat lines). */
  private unsupportedIn(script: string): string | undefined {
    const cache = this.shared.unsupported;
    if (cache.has(script)) return cache.get(script) ?? undefined;
    const found = programsOf(script).find((program) => UNSUPPORTED_PROGRAMS.has(program));
    if (cache.size >= MAX_MEMOS) cache.clear();
    cache.set(script, found ?? null);
    return found;
  }

  private memoKey(script: string, cwd: string): string {
    const print = this.fs.fingerprint();
    // The env only changes on `export`/assignments: serialized once per change, not per step.
    this.envKey ??= JSON.stringify(this.currentEnv);
    return `${print.a}:${print.b}\u0001${cwd}\u0001${this.envKey}\u0001${script}`;
  }

  private async execute(
    script: string,
    cwd: string,
    nextCwd: string | null,
    arg0: string,
    action: Action,
  ): Promise<{ step: WorldStepResult; memo: Memo | null }> {
    const intercode = this.shared.transport === 'intercode';
    const shell = await this.shell();
    let out;
    const fs = this.fs;
    const wasUnseen = new Set<string>();
    let readUnseen = false;
    this.fs.startRecording({
      read: (bytes) => {
        if (fs.isMarked(bytes)) readUnseen = true;
      },
      replaced: (path, old) => {
        if (old?.type === 'file' && fs.isMarked(old.bytes)) wasUnseen.add(path);
      },
    });
    try {
      // One stream, as a terminal shows it: stderr lines interleave with stdout in the order
      // written (`exec 2>&1` does, a `{ …; } 2>&1` group does not in just-bash). Same line, so
      // line numbers in messages stay those of the action.
      out = await shell.exec(`exec 2>&1; ${script}`, {
        cwd,
        env: this.shared.transport === 'intercode' ? this.shared.workspace.env : this.currentEnv,
        replaceEnv: true,
      });
    } catch (error) {
      // A file-system error a just-bash command did not catch: shown the way a shell would.
      const message = error instanceof Error ? error.message : String(error);
      const content = this.handedOver(redirectMessage(message, arg0) ?? `${arg0}: ${message}\n`);
      this.markShellWrites(script, this.fs.stopRecording(), wasUnseen, readUnseen);
      const step: WorldStepResult = {
        observation: { kind: 'terminal', content, callId: null },
        exitCode: 1,
        provenance: 'executed',
        detail: { reason: 'uncaught-error' },
      };
      return { step, memo: null };
    }
    const changes = this.markShellWrites(script, this.fs.stopRecording(), wasUnseen, readUnseen);
    if (out.exitCode === 127 && /command not (found|available)/.test(out.stdout + out.stderr)) {
      // Prose a model sent as its action (`Great! If you…`) is no program the shell lacks: it is
      // named as what it is, as an action of another kind is. Only once the shell found nothing
      // to run, so a line that runs is never taken for prose.
      const reason = isNotACommand(script) ? 'not-a-shell-command' : 'command-not-found';
      return { step: await this.fallbackFor(action, reason), memo: null };
    }
    if (this.shared.transport === 'intercode') {
      // A fresh process per action: only the harness's own `cd` bookkeeping survives it.
      if (nextCwd !== null && out.exitCode === 0) this.currentCwd = nextCwd;
    } else {
      this.currentEnv = { ...out.env };
      this.envKey = null;
      this.currentCwd = out.env['PWD'] ?? this.currentCwd;
    }
    const printed = out.stdout + out.stderr;
    const step: WorldStepResult = {
      observation: {
        kind: 'terminal',
        content: intercode ? bashMessages(printed, script, arg0) : this.handedOver(printed),
        callId: null,
      },
      exitCode: out.exitCode,
      provenance: 'executed',
    };
    return { step, memo: { result: step, changes, cwd: this.currentCwd, env: this.currentEnv } };
  }

  /**
   * The file-system effect of SWE-agent's `create FILE` (an ACI tool, not a shell program): the
   * file exists afterwards, so later `ls`/`rm`/`cat` in the shell see it. Its answer still comes
   * from the fallback; its content (none yet) needs no guess. Only in worlds whose tool version
   * the world does not run (SWE-agent 1.x, the cursor configurations).
   */
  private applyToolEffect(action: Action): void {
    // Where the world runs SWE-agent's tools, a `create` it left to the fallback had a reason.
    if (action.type !== 'command' || this.shared.dialect !== null) return;
    const words = parseLine(action.command).commands[0]?.words ?? [];
    const target = words[1];
    if (words[0] !== 'create' || words.length !== 2 || target === undefined) return;
    const path = this.fs.resolvePath(this.currentCwd, target);
    if (this.fs.readTextSync(path) === null) this.fs.writeFileSync(path, '');
  }

  private async fallbackFor(action: Action, reason: string): Promise<WorldStepResult> {
    this.applyToolEffect(action);
    const key = actionKey(action);
    const recorded = this.shared.recorded.get(key);
    const used = this.recordedUse.get(key) ?? 0;
    const detail: { [key: string]: JsonValue } = { reason };
    if (recorded !== undefined && recorded.length > 0) {
      this.recordedUse.set(key, used + 1);
      const observation = recorded[Math.min(used, recorded.length - 1)];
      if (observation !== undefined)
        return { observation, exitCode: null, provenance: 'recorded', detail };
    }
    const model = this.shared.fallback;
    if (model === null) {
      const content = `${unansweredText(reason, action)}\n`;
      return {
        observation: { kind: 'error', content, callId: null },
        exitCode: null,
        provenance: 'world-model',
        detail,
      };
    }
    const trajectory = this.shared.trajectory;
    const prediction = await model.predict(
      {
        domain: trajectory?.domain ?? 'terminal',
        task: trajectory?.task ?? null,
        systemPrompt: trajectory?.systemPrompt ?? null,
        tools: trajectory?.tools ?? [],
      },
      this.history,
      action,
    );
    return fallbackAnswer(prediction, reason, action);
  }

  private internal(): Internal {
    return {
      fs: this.fs.capture(),
      cwd: this.currentCwd,
      env: { ...this.currentEnv },
      steps: this.stepCount,
      recordedUse: new Map(this.recordedUse),
      history: [...this.history],
      editor: this.editor,
      stubs: this.stubs,
    };
  }

  private restoreInternal(from: Internal): void {
    this.fs.restoreEntries(from.fs);
    // Back to files from before any shell ran, the shell's stubs are gone with the rest: the next
    // step starts a shell again, which writes them. Else, where a recording listed /usr/bin and
    // the PATH names it, the shell finds no `grep` there after a reset or a return to the world's
    // first snapshot.
    if (!from.stubs) this.bash = null;
    this.stubs = from.stubs;
    this.currentCwd = from.cwd;
    this.currentEnv = { ...from.env };
    this.envKey = null;
    this.stepCount = from.steps;
    this.recordedUse = new Map(from.recordedUse);
    this.history = [...from.history];
    this.editor = from.editor;
  }

  snapshot(): WorldSnapshot {
    const snapshot: WorldSnapshot = Object.freeze({
      kind: 'terminal',
      worldId: this.id,
      steps: this.stepCount,
    });
    SNAPSHOTS.set(snapshot, this.internal());
    return snapshot;
  }

  restore(snapshot: WorldSnapshot): void {
    const internal = SNAPSHOTS.get(snapshot);
    if (internal === undefined || snapshot.worldId !== this.id) {
      throw new Error(`snapshot of world ${snapshot.worldId} cannot restore world ${this.id}`);
    }
    this.restoreInternal(internal);
  }

  fork(): TerminalWorld {
    return new JustBashTerminalWorld(this.shared, this.internal());
  }

  state(): { [key: string]: JsonValue } {
    return {
      id: this.id,
      cwd: this.currentCwd,
      steps: this.stepCount,
      // Both over the workspace's files: the stubs of /bin and /dev are the world's, not the task's.
      files: this.files().length,
      bytes: this.fs.totalBytes((path) => !SYSTEM_PATH.test(path)),
    };
  }

  cwd(): string {
    return this.currentCwd;
  }

  env(): Record<string, string> {
    return { ...this.currentEnv };
  }

  files(): string[] {
    return this.fs
      .getAllPaths()
      .filter((path) => !SYSTEM_PATH.test(path) && this.fs.readTextSync(path) !== null);
  }

  directories(): string[] {
    return this.fs.directoriesSync().filter((path) => !SYSTEM_PATH.test(path));
  }

  readFile(path: string): string | null {
    return this.fs.readTextSync(path);
  }
}

function open(
  id: string,
  workspace: Workspace,
  trajectory: Trajectory | null,
  options: BuildTerminalWorldOptions,
): TerminalWorld {
  const fs = initialFs(workspace);
  const dialect = sweDialectOf(trajectory);
  const initial = fs.capture();
  const shared: Shared = {
    id,
    initial,
    workspace,
    recorded: recordedTable(trajectory),
    fallback: options.fallback ?? null,
    trajectory,
    maxCommandCount: options.maxCommandCount ?? DEFAULT_MAX_COMMANDS,
    transport: options.transport ?? 'shell',
    memos: options.memoize === false ? null : new Map(),
    unsupported: new Map(),
    dialect,
  };
  return new JustBashTerminalWorld(shared, {
    fs: initial,
    cwd: workspace.cwd,
    env: workspace.env,
    steps: 0,
    recordedUse: new Map(),
    history: [],
    editor: CLOSED_EDITOR,
    stubs: false,
  });
}

/** Reconstruct a terminal/SWE trajectory's starting workspace and open a world on it. */
export function buildTerminalWorld(
  trajectory: Trajectory,
  options: BuildTerminalWorldOptions = {},
): TerminalWorld {
  const workspace = options.workspace ?? reconstructWorkspace(trajectory);
  return open(trajectory.externalId, workspace, trajectory, options);
}

/** Open a terminal world on a given workspace (tasks, sampled parameters, tests). */
export function createTerminalWorld(
  id: string,
  workspace: Workspace,
  options: Omit<BuildTerminalWorldOptions, 'workspace'> = {},
): TerminalWorld {
  return open(id, workspace, null, options);
}
