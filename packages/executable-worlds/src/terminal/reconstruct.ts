import type { Trajectory } from '@terrarium/schema';
import type { Workspace, WorkspaceEntry } from '../world';
import { normalizePath } from './cow-fs';
import { mayMutate, parseLine, type SimpleCommand } from './shell-words';

type Kind = 'file' | 'dir' | 'unknown';

interface PathFact {
  kind: Kind;
  content: string | null;
}

/** What reconstruction learned and from where, so a report can say why a file is there. */
export interface ReconstructionStats {
  trajectories: number;
  /** Steps read before the first mutating command of their episode. */
  stepsRead: number;
  files: number;
  filesWithContent: number;
  directories: number;
}

export interface ReconstructOptions {
  /** Working directory when no `pwd` was recorded (InterCode runs commands from `/`). */
  defaultCwd?: string;
  env?: Record<string, string>;
}

/** The header of SWE-agent's file viewer: `[File: /abs/path (N lines total)]`. */
const FILE_VIEW = /^\[File: (\/[^\n]*) \((\d+) lines total\)\]\n/;

const MD5_LINE = /^[0-9a-f]{32,64}\s+\*?(\/.*)$/;
const LONG_LS =
  /^([-dlcbps])[-rwxsStT]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+(\d+)\s+\w{3}\s+\d{1,2}\s+[\d:]{4,5}\s+(.+)$/;
const ERROR_LINE = /^[\w.-]+: /;
const FAILURE = /No such file|cannot|denied|not found|invalid|error|Error|missing/;

/**
 * Accumulates facts about the workspace before any agent acted, from the observations of read-only
 * commands: `cat` gives a file's text, `ls` and `find` the directory skeleton, `ls -l` types and
 * sizes, md5sum-style lines file paths, `pwd` the working directory. Episodes of one image (InterCode's
 * `fs_1`…, one SWE repo) can be pooled: each adds what it saw before its first mutating command.
 */
export class WorkspaceReconstruction {
  private readonly facts = new Map<string, PathFact>();
  private cwd: string | null = null;
  private readonly env: Record<string, string>;
  private readonly defaultCwd: string;
  private trajectories = 0;
  private stepsRead = 0;

  constructor(options: ReconstructOptions = {}) {
    this.defaultCwd = options.defaultCwd ?? '/';
    this.env = { ...options.env };
  }

  add(trajectory: Trajectory): this {
    this.trajectories++;
    this.cwd ??= recordedWorkingDir(trajectory);
    for (const step of trajectory.steps) {
      if (step.action.type !== 'command') continue;
      const command = step.action.command;
      if (mayMutate(command)) break;
      this.stepsRead++;
      if (step.observation !== null) this.learn(command, step.observation.content);
    }
    return this;
  }

  private fact(path: string): PathFact {
    const at = normalizePath(path);
    // Kernel file systems are not workspace: the world provides /dev/null itself.
    if (/^\/(dev|proc|sys)(\/|$)/.test(at)) return { kind: 'unknown', content: null };
    let fact = this.facts.get(at);
    if (fact === undefined) {
      fact = { kind: 'unknown', content: null };
      this.facts.set(at, fact);
    }
    return fact;
  }

  private resolve(path: string): string {
    return normalizePath(path.startsWith('/') ? path : `${this.cwd ?? this.defaultCwd}/${path}`);
  }

  private learn(line: string, output: string): void {
    const parsed = parseLine(line);
    if (parsed.complex || parsed.commands.length === 0) return;
    const first = parsed.commands[0];
    if (first === undefined) return;
    const single = parsed.commands.length === 1;
    const program = first.words[0];
    if (single && program === 'pwd' && output.startsWith('/')) {
      this.cwd ??= output.trim();
      return;
    }
    if (single && program === 'cat') this.learnCat(first, output);
    if (single && program === 'open') this.learnFileView(output);
    if (single && program === 'ls') this.learnLs(first, output);
    if (program === 'find') this.learnFind(first, output, single);
    for (const text of output.split('\n')) {
      const md5 = MD5_LINE.exec(text);
      if (md5?.[1] !== undefined) this.markFile(md5[1]);
    }
    this.learnMentionedPaths(parsed.commands, output);
  }

  /**
   * Paths printed under a path the command named (`du` sizes, `grep -r` hits, `wc` counts, `find
   * -exec` results): each exists. Only tokens below a named root count, and never on lines that
   * report a failure, so an error message cannot invent a file.
   */
  private learnMentionedPaths(commands: SimpleCommand[], output: string): void {
    const roots = commands
      .flatMap((command) => command.words.slice(1))
      .filter(
        (word) =>
          (word.startsWith('/') || word.startsWith('./') || word === '.') &&
          !/[*?[\]{}$]/.test(word),
      )
      .map((word) => this.resolve(word))
      .filter((root) => root !== '/' && !/^\/(dev|proc|sys)(\/|$)/.test(root));
    if (roots.length === 0) return;
    for (const text of output.split('\n')) {
      if (FAILURE.test(text)) continue;
      for (const token of text.split(/[\s:]+/)) {
        if (!(token.startsWith('/') || token.startsWith('./'))) continue;
        const path = this.resolve(token);
        if (roots.some((root) => path === root || path.startsWith(`${root}/`))) this.fact(path);
      }
    }
  }

  private markFile(path: string): void {
    const fact = this.fact(this.resolve(path));
    if (fact.kind === 'unknown') fact.kind = 'file';
  }

  private markDir(path: string): void {
    this.fact(this.resolve(path)).kind = 'dir';
  }

  private learnCat(command: SimpleCommand, output: string): void {
    const args = command.words.slice(1);
    const file = args[0];
    if (args.length !== 1 || file === undefined || file.startsWith('-')) return;
    if (output.startsWith('cat: ')) return;
    const fact = this.fact(this.resolve(file));
    fact.kind = 'file';
    fact.content ??= output;
  }

  /**
   * A whole file in SWE-agent's viewer (`open` of a file no longer than its window): every line
   * numbered from 1 to N and no "more lines" marker. Its text is those lines, each ended by a
   * newline (the viewer cannot show whether the last one had one; source files do). Some harnesses
   * drop the output's final newline, so the lines may end without one.
   */
  private learnFileView(output: string): void {
    const header = FILE_VIEW.exec(output);
    if (header === null || output.includes('\r')) return;
    const total = Number(header[2]);
    const lines = output.slice(header[0].length).split('\n');
    if (lines.length === total + 1 && lines.at(-1) === '') lines.pop();
    if (lines.length !== total) return;
    const text: string[] = [];
    for (const [index, line] of lines.entries()) {
      const prefix = `${index + 1}:`;
      if (!line.startsWith(prefix)) return;
      text.push(line.slice(prefix.length));
    }
    const fact = this.fact(header[1] ?? '');
    fact.kind = 'file';
    fact.content ??= text.map((line) => `${line}\n`).join('');
  }

  private learnLs(command: SimpleCommand, output: string): void {
    const args = command.words.slice(1);
    const flags = args.filter((word) => word.startsWith('-')).join('');
    const targets = args.filter((word) => !word.startsWith('-'));
    if (targets.length > 1 || /[RdR]/.test(flags) || targets.some((t) => /[*?[]/.test(t))) return;
    const dir = this.resolve(targets[0] ?? '.');
    const long = flags.includes('l');
    const lines = output.split('\n').filter((text) => text !== '');
    if (lines.some((text) => text.startsWith('ls: '))) return;
    let sawEntry = false;
    for (const text of lines) {
      if (long) {
        const match = LONG_LS.exec(text);
        if (match === null) continue;
        const [, type, , rawName] = match;
        const name = (rawName ?? '').split(' -> ')[0] ?? '';
        if (name === '.' || name === '..' || name === '') continue;
        sawEntry = true;
        const path = `${dir}/${name}`;
        if (type === 'd') this.markDir(path);
        else this.markFile(path);
      } else {
        const name = text.replace(
          /[/*@=|]$/,
          flags.includes('F') || flags.includes('p') ? '' : '$&',
        );
        if (name === '.' || name === '..' || name.includes('  ')) continue;
        sawEntry = true;
        const path = `${dir}/${name}`;
        if (text.endsWith('/') && (flags.includes('F') || flags.includes('p'))) this.markDir(path);
        else this.fact(this.resolve(path));
      }
    }
    if (sawEntry || lines.length === 0) this.markDir(dir);
  }

  private learnFind(command: SimpleCommand, output: string, single: boolean): void {
    const words = command.words.slice(1);
    const typeAt = words.indexOf('-type');
    const type = typeAt >= 0 ? words[typeAt + 1] : undefined;
    const roots = words.slice(
      0,
      Math.max(
        0,
        words.findIndex((word) => word.startsWith('-') || word === '!' || word === '('),
      ),
    );
    const pathsOnly =
      single &&
      !words.some((word) =>
        ['-exec', '-execdir', '-printf', '-print0', '-ls', '-fprint'].includes(word),
      );
    for (const text of output.split('\n')) {
      if (text === '' || ERROR_LINE.test(text)) continue;
      if (!(text.startsWith('/') || text.startsWith('./') || text === '.')) continue;
      if (!pathsOnly && !roots.some((root) => text.startsWith(root))) continue;
      const path = this.resolve(text);
      if (pathsOnly && type === 'd') this.markDir(path);
      else if (pathsOnly && type === 'f') this.markFile(path);
      else this.fact(path);
    }
  }

  stats(): ReconstructionStats {
    const workspace = this.workspace();
    const files = workspace.entries.filter((entry) => entry.content !== null);
    let withContent = 0;
    for (const [, fact] of this.facts) if (fact.content !== null) withContent++;
    return {
      trajectories: this.trajectories,
      stepsRead: this.stepsRead,
      files: files.length,
      filesWithContent: withContent,
      directories: workspace.entries.length - files.length,
    };
  }

  /**
   * The reconstructed workspace: every path with its ancestors. A file no recording showed whole
   * becomes an empty placeholder: its content is unknown, which tools must not print as the file.
   */
  workspace(): Workspace {
    const dirs = new Set<string>(['/']);
    for (const [path, fact] of this.facts) {
      for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1)) {
        dirs.add(path.slice(0, at));
      }
      if (fact.kind === 'dir') dirs.add(path);
    }
    const entries: WorkspaceEntry[] = [];
    for (const dir of dirs) entries.push({ path: dir, content: null });
    for (const [path, fact] of this.facts) {
      if (dirs.has(path)) continue;
      entries.push(
        fact.content === null
          ? { path, content: '', placeholder: true }
          : { path, content: fact.content },
      );
    }
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { cwd: this.cwd ?? this.defaultCwd, env: { ...this.env }, entries };
  }
}

/**
 * The working directory SWE-agent records in each step's `state` (after the action). The first
 * step's is the starting one unless that step changed directory.
 */
function recordedWorkingDir(trajectory: Trajectory): string | null {
  const first = trajectory.steps[0];
  if (first === undefined) return null;
  const state = first.metadata['state'];
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return null;
  const dir = state['working_dir'];
  const command = first.action.type === 'command' ? first.action.command.trim() : '';
  return typeof dir === 'string' && dir.startsWith('/') && !command.startsWith('cd') ? dir : null;
}

/** Reconstruct one trajectory's starting workspace from its own observations. */
export function reconstructWorkspace(
  trajectory: Trajectory,
  options?: ReconstructOptions,
): Workspace {
  return new WorkspaceReconstruction(options).add(trajectory).workspace();
}
