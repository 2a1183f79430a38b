import type { TerminalWorld, WorldSnapshot, WorldStepResult } from '@terrarium/executable-worlds';
import type { Action, JsonValue, Observation } from '@terrarium/schema';

/**
 * A tiny deterministic shell over an in-memory file map: `echo` (with `>`/`>>`), `cat`, `ls`
 * (`-l -a -A -1`), `rm`, `pwd`, `cd`, `wc -l`, `true`, one command per line. It is the reference
 * world of the environment server (no reconstruction needed, cheap enough for 1,000 sessions) and
 * the world the Python benchmark ports, so both servers do identical work per step (the port
 * answers the benchmark's commands alike; `ls` options and this shell's refusals are not ported).
 */
export interface ScratchWorldOptions {
  /** Distractor files `/data/file-<i>.txt`, filled from the seed. */
  files?: number;
  seed?: number;
  /** Extra files placed as given. */
  extra?: Record<string, string>;
}

interface ScratchState {
  files: Map<string, string>;
  cwd: string;
  /** Set when a snapshot or fork holds `files` too: the next write copies first. */
  shared: boolean;
}

interface ScratchSnapshot extends WorldSnapshot {
  readonly kind: 'terminal';
  readonly files: ReadonlyMap<string, string>;
  readonly cwd: string;
}

const SNAPSHOTS = new WeakSet<object>();

interface ShellResult {
  output: string;
  exitCode: number;
}

/** An `ls` entry; directories exist only as prefixes of file paths, so they get coreutils' 4096. */
interface LsEntry {
  name: string;
  directory: boolean;
  size: number;
}

/**
 * Lists, pipes and background jobs are refused rather than run: splitting on them would need
 * stdin and a separate stderr in every command, and reading them as words made `cd /data;` a path
 * and `| cat` text for echo, so the agent saw a success for a line that did not do what it said.
 */
const ONE_AT_A_TIME =
  'scratch: this shell runs one command at a time (no ;, &&, ||, |, & or newlines)\n';
const LS_HELP = "Try 'ls --help' for more information.\n";
const encoder = new TextEncoder();

/** mulberry32: a seeded PRNG small enough to port exactly to Python. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];

export function scratchInitialFiles(options: ScratchWorldOptions): Map<string, string> {
  const random = seededRandom(options.seed ?? 0);
  const files = new Map<string, string>();
  for (let i = 0; i < (options.files ?? 3); i += 1) {
    const lines: string[] = [];
    const count = 1 + Math.floor(random() * 4);
    for (let l = 0; l < count; l += 1) lines.push(WORDS[Math.floor(random() * WORDS.length)] ?? '');
    files.set(`/data/file-${i}.txt`, `${lines.join('\n')}\n`);
  }
  for (const [path, content] of Object.entries(options.extra ?? {})) files.set(path, content);
  return files;
}

export function createScratchWorld(id: string, options: ScratchWorldOptions = {}): TerminalWorld {
  const initial = scratchInitialFiles(options);
  return new ScratchWorld(id, { files: initial, cwd: '/', shared: true }, initial, 0);
}

/** Said to the agent in its bash tool's description: a policy should not try `tail` or pipes. */
export const SCRATCH_SHELL_HELP =
  'A minimal shell: one command per line (no pipes, ;, &&, || or &); COMMAND > FILE or >> FILE ' +
  'writes its output. Commands: ls [-aAl1] [PATH...], cat FILE..., wc -l FILE, echo [-n] TEXT, ' +
  'cd DIR, pwd, rm [-f] [-r] PATH..., true.';

class ScratchWorld implements TerminalWorld {
  readonly kind = 'terminal';
  readonly shellHelp = SCRATCH_SHELL_HELP;
  constructor(
    readonly id: string,
    private current: ScratchState,
    private readonly initial: ReadonlyMap<string, string>,
    private stepCount: number,
  ) {}

  get steps(): number {
    return this.stepCount;
  }

  async reset(): Promise<Observation> {
    this.current = { files: new Map(this.initial), cwd: '/', shared: false };
    this.stepCount = 0;
    return { kind: 'terminal', content: '', callId: null };
  }

  async step(action: Action): Promise<WorldStepResult> {
    this.stepCount += 1;
    const line = commandOf(action);
    const callId = action.type === 'tool_call' ? action.callId : null;
    if (line === null) {
      return {
        observation: {
          kind: 'error',
          content: `scratch: cannot run a ${action.type} action`,
          callId,
        },
        exitCode: 2,
        provenance: 'executed',
      };
    }
    const { output, exitCode } = this.run(line);
    return {
      observation: { kind: 'terminal', content: output, callId },
      exitCode,
      provenance: 'executed',
    };
  }

  snapshot(): WorldSnapshot {
    this.current.shared = true;
    const snapshot: ScratchSnapshot = {
      kind: 'terminal',
      worldId: this.id,
      steps: this.stepCount,
      files: this.current.files,
      cwd: this.current.cwd,
    };
    SNAPSHOTS.add(snapshot);
    return snapshot;
  }

  restore(snapshot: WorldSnapshot): void {
    if (!isScratchSnapshot(snapshot) || snapshot.worldId !== this.id) {
      throw new Error(`snapshot of world ${snapshot.worldId} cannot restore ${this.id}`);
    }
    this.current = { files: new Map(snapshot.files), cwd: snapshot.cwd, shared: false };
    this.stepCount = snapshot.steps;
  }

  fork(): TerminalWorld {
    this.current.shared = true;
    return new ScratchWorld(
      this.id,
      { files: this.current.files, cwd: this.current.cwd, shared: true },
      this.initial,
      this.stepCount,
    );
  }

  state(): { [key: string]: JsonValue } {
    let bytes = 0;
    for (const content of this.current.files.values()) bytes += content.length;
    return { cwd: this.current.cwd, files: this.current.files.size, bytes, steps: this.stepCount };
  }

  cwd(): string {
    return this.current.cwd;
  }

  env(): Record<string, string> {
    return {};
  }

  files(): string[] {
    return [...this.current.files.keys()].toSorted();
  }

  /** The scratch shell has no mkdir: its directories are the parents of its files. */
  directories(): string[] {
    const directories = new Set<string>(['/']);
    for (const path of this.current.files.keys())
      for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1))
        directories.add(path.slice(0, at));
    return [...directories].toSorted();
  }

  readFile(path: string): string | null {
    return this.current.files.get(this.resolve(path)) ?? null;
  }

  private writable(): Map<string, string> {
    if (this.current.shared) {
      this.current = { ...this.current, files: new Map(this.current.files), shared: false };
    }
    return this.current.files;
  }

  private resolve(path: string): string {
    const absolute = path.startsWith('/') ? path : `${this.current.cwd.replace(/\/$/, '')}/${path}`;
    const parts: string[] = [];
    for (const part of absolute.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') parts.pop();
      else parts.push(part);
    }
    return `/${parts.join('/')}`;
  }

  private run(line: string): ShellResult {
    // Quoted text is left out, the way splitWords groups it: `echo "a | b"` prints `a | b`.
    if (/[;&|\n]/.test(line.replace(/"[^"]*"|'[^']*'/g, '')))
      return { output: ONE_AT_A_TIME, exitCode: 2 };
    const redirect = /^(.*?)\s*(>>?)\s*(\S+)\s*$/.exec(line);
    const [commandLine, mode, target] = redirect
      ? [redirect[1] ?? '', redirect[2] ?? '>', redirect[3] ?? '']
      : [line, null, null];
    const words = splitWords(commandLine);
    const [name = '', ...args] = words;
    const result = this.runWords(name, args);
    if (mode === null || target === null || result.exitCode !== 0) return result;
    const path = this.resolve(target);
    const files = this.writable();
    files.set(path, mode === '>>' ? (files.get(path) ?? '') + result.output : result.output);
    return { output: '', exitCode: 0 };
  }

  /** A directory exists while a file lies under it; `/` and the cwd always do. */
  private isDirectory(path: string): boolean {
    if (path === '/' || path === this.current.cwd) return true;
    for (const file of this.current.files.keys()) if (file.startsWith(`${path}/`)) return true;
    return false;
  }

  private runWords(name: string, args: string[]): ShellResult {
    switch (name) {
      case '':
      case 'true':
        return { output: '', exitCode: 0 };
      case 'echo':
        return args[0] === '-n'
          ? { output: args.slice(1).join(' '), exitCode: 0 }
          : { output: `${args.join(' ')}\n`, exitCode: 0 };
      case 'pwd':
        return { output: `${this.current.cwd}\n`, exitCode: 0 };
      case 'cd': {
        const [target = '/', ...rest] = args;
        if (rest.length > 0) return { output: 'cd: too many arguments\n', exitCode: 1 };
        const path = this.resolve(target);
        if (this.current.files.has(path))
          return { output: `cd: ${target}: Not a directory\n`, exitCode: 1 };
        if (!this.isDirectory(path))
          return { output: `cd: ${target}: No such file or directory\n`, exitCode: 1 };
        this.current = { ...this.current, cwd: path };
        return { output: '', exitCode: 0 };
      }
      case 'cat': {
        let output = '';
        for (const arg of args) {
          const content = this.current.files.get(this.resolve(arg));
          if (content === undefined)
            return { output: `cat: ${arg}: No such file or directory\n`, exitCode: 1 };
          output += content;
        }
        return { output, exitCode: 0 };
      }
      case 'wc': {
        const path = args[args.length - 1] ?? '';
        const content = this.current.files.get(this.resolve(path));
        if (args[0] !== '-l' || content === undefined)
          return { output: `wc: ${path}: cannot count\n`, exitCode: 1 };
        return { output: `${content.split('\n').length - 1} ${path}\n`, exitCode: 0 };
      }
      case 'ls':
        return this.ls(args);
      case 'rm': {
        // Options as coreutils reads them: -f quiet about missing paths, -r/-R directories too.
        let force = false;
        let recursive = false;
        const paths: string[] = [];
        for (const arg of args) {
          if (!arg.startsWith('-') || arg === '-' || paths.length > 0) {
            paths.push(arg);
            continue;
          }
          for (const flag of arg.slice(1)) {
            if (flag === 'f') force = true;
            else if (flag === 'r' || flag === 'R') recursive = true;
            else return { output: `rm: invalid option -- '${flag}'\n`, exitCode: 1 };
          }
        }
        if (paths.length === 0 && !force) return { output: 'rm: missing operand\n', exitCode: 1 };
        let output = '';
        for (const arg of paths) {
          const path = this.resolve(arg);
          if (this.current.files.has(path)) {
            this.writable().delete(path);
          } else if (this.isDirectory(path)) {
            if (!recursive) {
              output += `rm: cannot remove '${arg}': Is a directory\n`;
              continue;
            }
            const files = this.writable();
            const prefix = path === '/' ? '/' : `${path}/`;
            // A Map's iterator survives deletions of entries it has passed.
            for (const file of files.keys()) if (file.startsWith(prefix)) files.delete(file);
          } else if (!force) {
            output += `rm: cannot remove '${arg}': No such file or directory\n`;
          }
        }
        return { output, exitCode: output === '' ? 0 : 1 };
      }
      default:
        return { output: `scratch: ${name}: command not found\n`, exitCode: 127 };
    }
  }

  /**
   * `ls [-aAl1] [path…]` in coreutils' layout: errors first, then file operands, then each
   * directory (under a `dir:` header when there are several operands). Output is never a tty, so
   * it is one name per line and `-1` changes nothing.
   */
  private ls(args: string[]): ShellResult {
    const flags = new Set<string>();
    const operands: string[] = [];
    let options = true;
    for (const arg of args) {
      if (options && arg === '--') options = false;
      else if (options && arg.startsWith('--'))
        return { output: `ls: unrecognized option '${arg}'\n${LS_HELP}`, exitCode: 2 };
      else if (options && arg.length > 1 && arg.startsWith('-')) {
        const unknown = Array.from(arg.slice(1)).find((flag) => !'aAl1'.includes(flag));
        if (unknown !== undefined)
          return { output: `ls: invalid option -- '${unknown}'\n${LS_HELP}`, exitCode: 2 };
        for (const flag of arg.slice(1)) flags.add(flag);
      } else operands.push(arg);
    }
    let errors = '';
    const files: LsEntry[] = [];
    const dirs: string[] = [];
    for (const operand of operands.length > 0 ? operands : ['.']) {
      const path = this.resolve(operand);
      const content = this.current.files.get(path);
      if (content !== undefined) files.push(fileEntry(operand, content));
      else if (this.isDirectory(path)) dirs.push(operand);
      else errors += `ls: cannot access '${operand}': No such file or directory\n`;
    }
    const long = flags.has('l');
    const blocks = files.length > 0 ? [listing(byName(files), long)] : [];
    for (const dir of dirs.toSorted()) {
      const entries = this.lsEntries(this.resolve(dir), flags);
      const header = operands.length > 1 ? `${dir}:\n` : '';
      // `total` counts 1K blocks as coreutils does on a 4K-block file system.
      const total = long
        ? `total ${entries.reduce((sum, entry) => sum + Math.ceil(entry.size / 4096) * 4, 0)}\n`
        : '';
      blocks.push(`${header}${total}${listing(entries, long)}`);
    }
    // 2 as coreutils: a command-line operand it could not access is "serious trouble".
    return { output: errors + blocks.join('\n'), exitCode: errors === '' ? 0 : 2 };
  }

  /** The entries of a directory; dot names only with `-a`/`-A`, and `.` and `..` with `-a`. */
  private lsEntries(dir: string, flags: ReadonlySet<string>): LsEntry[] {
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const found = new Map<string, LsEntry>();
    for (const [path, content] of this.current.files) {
      if (!path.startsWith(prefix)) continue;
      const [name = '', ...below] = path.slice(prefix.length).split('/');
      found.set(name, below.length > 0 ? dirEntry(name) : fileEntry(name, content));
    }
    const shown = byName(
      [...found.values()].filter(
        (entry) => !entry.name.startsWith('.') || flags.has('a') || flags.has('A'),
      ),
    );
    return flags.has('a') ? [dirEntry('.'), dirEntry('..'), ...shown] : shown;
  }
}

function fileEntry(name: string, content: string): LsEntry {
  return { name, directory: false, size: encoder.encode(content).length };
}

function dirEntry(name: string): LsEntry {
  return { name, directory: true, size: 4096 };
}

function byName(entries: LsEntry[]): LsEntry[] {
  return entries.toSorted((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * One name a line; `-l` adds coreutils' columns. The world has no modes, owners or times, so those
 * are fixed (`root`, 1 Jan 00:00) and only the type and the size in bytes carry information.
 */
function listing(entries: LsEntry[], long: boolean): string {
  const width = Math.max(0, ...entries.map((entry) => String(entry.size).length));
  return entries
    .map((entry) => {
      if (!long) return `${entry.name}\n`;
      const mode = entry.directory ? 'drwxr-xr-x' : '-rw-r--r--';
      return `${mode} 1 root root ${String(entry.size).padStart(width)} Jan  1 00:00 ${entry.name}\n`;
    })
    .join('');
}

function isScratchSnapshot(snapshot: WorldSnapshot): snapshot is ScratchSnapshot {
  return SNAPSHOTS.has(snapshot);
}

function commandOf(action: Action): string | null {
  if (action.type === 'command') return action.command;
  if (action.type === 'keystrokes') return action.keys.replace(/\n$/, '');
  if (action.type === 'tool_call') {
    const args = action.arguments;
    if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
      const command = args['command'];
      if (typeof command === 'string') return command;
    }
  }
  return null;
}

/** Whitespace-separated words; single and double quotes group (no escapes: the port stays exact). */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}
