import type { Trajectory } from '@terrarium/schema';
import { lintPython, newLintErrors } from './python-lint';
import { parseLine } from './shell-words';

/**
 * SWE-agent's own ACI tools (`open`, `goto`, `scroll_*`, `create`, `edit`, `search_file`,
 * `find_file`, `search_dir`) as commands of the terminal world, printing what the 0.x shell tools
 * print (the window of the open file, the edit gate's verdict…), learnt from the recordings. A tool
 * is answered only from what the world knows: a file whose content it never saw, a tree it only
 * partly knows, or a verdict of the Python linter it cannot tell leave the answer to the fallback,
 * with the reason.
 */

/**
 * How the recording's harness prints: `classic` (SWE-agent 0.x: outputs end with their newline,
 * the edit gate says "Please understand the fixes…"), `enigma` (the EnIGMA CTF demonstrations: the
 * final newline of an output dropped, the gate says "Please read this error message carefully…").
 */
export type SweDialect = 'classic' | 'enigma';

/** The open file and window of SWE-agent's editor (its CURRENT_FILE and CURRENT_LINE). */
export type EditorState =
  | { readonly kind: 'closed' }
  /**
   * `line` is null when the file was opened without the world seeing its length; `scrolls`
   * counts the scrolls in a row that led here (absent after any other action).
   */
  | {
      readonly kind: 'open';
      readonly file: string;
      readonly line: number | null;
      readonly scrolls?: number;
    }
  /** A tool the world could not run may or may not have opened a file. */
  | { readonly kind: 'unknown' };

export const CLOSED_EDITOR: EditorState = { kind: 'closed' };

/** What the world knows of a path (absolute, links resolved). */
export type PathView =
  | { kind: 'file'; text: string }
  | { kind: 'directory' }
  | { kind: 'missing' }
  /** A file the recording never showed whole: its content is not the world's to tell. */
  | { kind: 'unseen' };

export interface ToolContext {
  cwd: string;
  editor: EditorState;
  dialect: SweDialect;
  look(path: string): PathView;
  /**
   * The path as `realpath` prints it (the tools' headers do), links resolved; null when the
   * world cannot tell (a loop of links).
   */
  realpath(path: string): string | null;
  /**
   * Every file under a directory, when the world knows the whole tree there; null otherwise (a
   * reconstruction only knows what the recording listed).
   */
  filesUnder(dir: string): string[] | null;
}

export type ToolOutcome =
  | {
      kind: 'executed';
      output: string;
      editor: EditorState;
      writes: readonly { path: string; text: string }[];
    }
  | { kind: 'fallback'; reason: string; editor: EditorState };

export interface SweTool {
  name: string;
  args: string[];
  /** The replacement lines of an `edit`, between its first line and `end_of_edit`. */
  body: string[] | null;
}

/** SWE-agent's defaults of the recorded versions: a 100-line window, scrolls overlapping by 2. */
const WINDOW = 100;
const OVERLAP = 2;

const TOOLS = new Set([
  'open',
  'goto',
  'scroll_up',
  'scroll_down',
  'create',
  'edit',
  'search_file',
  'find_file',
  'search_dir',
]);

/**
 * The harness version a SWE-agent recording was made with, or null when its tools are not the 0.x
 * shell tools (another source, or SWE-agent 1.x, whose answers use `\r\n` and other formats). Read
 * once per trajectory from how its outputs end, as the transport of an InterCode recording is.
 */
export function sweDialectOf(trajectory: Trajectory | null): SweDialect | null {
  if (trajectory?.sourceFormat !== 'swe-agent') return null;
  const outputs = trajectory.steps.flatMap((step) =>
    step.observation === null ? [] : [step.observation.content],
  );
  if (outputs.some((output) => output.includes('\r\n'))) return null;
  // The cursor configurations frame every window with cursor marks, kept by `set_cursors`.
  if (outputs.some((output) => output.includes('<<<<< START CURSOR >>>>>'))) return null;
  const windows = outputs.filter((output) => output.startsWith('[File: '));
  if (windows.length > 0)
    return windows.every((output) => !output.endsWith('\n')) ? 'enigma' : 'classic';
  // No file window to tell by (a CTF solved in the shell alone, as EnIGMA's `eps`): the shell's
  // outputs tell, since EnIGMA drops the final newline of each and 0.x keeps it. Not `submit`'s,
  // which the harness prints itself, and at least two, as one `printf` may end without a newline.
  const shell = trajectory.steps.flatMap((step) =>
    step.observation === null ||
    step.observation.content === '' ||
    (step.action.type === 'command' && /^submit(?:\s|$)/.test(step.action.command.trim()))
      ? []
      : [step.observation.content],
  );
  return shell.length >= 2 && shell.every((output) => !output.endsWith('\n'))
    ? 'enigma'
    : 'classic';
}

/** The tool a command line calls, or null when it is a shell line. */
export function sweToolOf(command: string): SweTool | null {
  const [first = '', ...rest] = command.replace(/\n$/, '').split('\n');
  const parsed = parseLine(first);
  const words = parsed.commands[0]?.words ?? [];
  const name = words[0] ?? '';
  if (!TOOLS.has(name) || parsed.commands.length !== 1 || parsed.operators.length > 0) return null;
  if (name !== 'edit') return rest.length === 0 ? { name, args: words.slice(1), body: null } : null;
  const body = rest.at(-1) === 'end_of_edit' ? rest.slice(0, -1) : null;
  return { name, args: words.slice(1), body };
}

/** A file's lines as awk and mapfile see them: a final line without newline still counts. */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function textOf(lines: readonly string[]): string {
  // `printf "%s\n"` of no arguments still prints one newline.
  return lines.length === 0 ? '\n' : lines.map((line) => `${line}\n`).join('');
}

/** The window line after SWE-agent keeps it at least half a window from both ends. */
function constrain(line: number, total: number, window: number): number {
  const half = Math.floor(window / 2);
  return Math.max(Math.min(line, total - half), half);
}

/** The editor's view of a file around `line` (already constrained), as its `_print` shows it. */
export function renderWindow(
  path: string,
  lines: readonly string[],
  line: number,
  window = WINDOW,
): string[] {
  const total = lines.length;
  const above = Math.floor(Math.max(0, line - window / 2));
  const below = Math.round(Math.max(0, total - line - window / 2));
  const last = Math.floor(Math.max(line + window / 2, window / 2));
  const first = Math.max(1, last - window + 1);
  const out = [`[File: ${path} (${total} lines total)]`];
  if (above > 0) out.push(`(${above} more lines above)`);
  for (let at = first; at <= Math.min(last, total); at++) out.push(`${at}:${lines[at - 1] ?? ''}`);
  if (below > 0) out.push(`(${below} more lines below)`);
  return out;
}

function resolve(cwd: string, path: string): string {
  const parts: string[] = [];
  for (const part of (path.startsWith('/') ? path : `${cwd}/${path}`).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

const NUMBER = /^[0-9]+$/;

/** The path a tool argument names, as SWE-agent's `realpath` prints it; null when unknown. */
function realPathOf(context: ToolContext, target: string): string | null {
  return context.realpath(resolve(context.cwd, target));
}

function done(
  output: readonly string[],
  editor: EditorState,
  writes: readonly { path: string; text: string }[] = [],
): ToolOutcome {
  return { kind: 'executed', output: output.map((line) => `${line}\n`).join(''), editor, writes };
}

function fallback(reason: string, editor: EditorState): ToolOutcome {
  return { kind: 'fallback', reason, editor };
}

/** The open file's lines, or the fallback that a tool needing them gives. */
function openLines(
  context: ToolContext,
): { file: string; line: number | null; lines: string[] } | ToolOutcome {
  const editor = context.editor;
  if (editor.kind === 'unknown') return fallback('unknown-open-file', editor);
  if (editor.kind === 'closed') return done(['No file open. Use the open command first.'], editor);
  const view = context.look(editor.file);
  if (view.kind !== 'file') return fallback(`unknown-content:${editor.file}`, editor);
  return { file: editor.file, line: editor.line, lines: linesOf(view.text) };
}

function openFile(args: readonly string[], context: ToolContext): ToolOutcome {
  const [target, lineArg] = args;
  // The usage text names the container's repository root, which the world does not know.
  if (target === undefined || target === '' || (lineArg !== undefined && !NUMBER.test(lineArg)))
    return fallback('usage-text', context.editor);
  const path = realPathOf(context, target);
  if (path === null) return fallback('unknown-realpath', { kind: 'unknown' });
  const view = context.look(path);
  if (view.kind === 'directory' && lineArg === undefined)
    return done(
      [
        `Error: ${target} is a directory. You can only open files. Use cd or ls to navigate directories.`,
      ],
      context.editor,
    );
  if (view.kind === 'unseen')
    return fallback(`unknown-content:${path}`, { kind: 'open', file: path, line: null });
  // A path the reconstruction does not have may still exist in the real container.
  if (view.kind !== 'file') return fallback(`unknown-path:${path}`, { kind: 'unknown' });
  const lines = linesOf(view.text);
  const out: string[] = [];
  let line = WINDOW / 2;
  if (lineArg !== undefined) {
    const asked = Number(lineArg);
    if (asked > lines.length) {
      out.push(
        `Warning: <line_number> (${asked}) is greater than the number of lines in the file (${lines.length})`,
        `Warning: Setting <line_number> to ${lines.length}`,
      );
      line = lines.length;
    } else if (asked < 1) {
      out.push(
        `Warning: <line_number> (${asked}) is less than 1`,
        'Warning: Setting <line_number> to 1',
      );
      line = 1;
    } else line = Math.max(Math.floor(asked + WINDOW / 2 - Math.floor(WINDOW / 6)), 1);
  }
  const current = constrain(line, lines.length, WINDOW);
  out.push(...renderWindow(path, lines, current));
  return done(out, { kind: 'open', file: path, line: current });
}

function gotoLine(args: readonly string[], context: ToolContext): ToolOutcome {
  if (args.length > 1) return done(['goto allows only one line number at a time.'], context.editor);
  const open = openLines(context);
  if ('kind' in open) return open;
  const [target] = args;
  if (target === undefined || target === '') return done(['Usage: goto <line>'], context.editor);
  if (!NUMBER.test(target))
    return done(['Usage: goto <line>', 'Error: <line> must be a number'], context.editor);
  const asked = Number(target);
  if (asked > open.lines.length)
    return done(
      [`Error: <line> must be less than or equal to ${open.lines.length}`],
      context.editor,
    );
  const line = constrain(
    Math.max(Math.floor(asked + WINDOW / 2 - Math.floor(WINDOW / 6)), 1),
    open.lines.length,
    WINDOW,
  );
  return done(renderWindow(open.file, open.lines, line), { kind: 'open', file: open.file, line });
}

/**
 * From this scroll in a row on, some recorded versions (the EnIGMA defaults) append a warning
 * ("Scrolling many times in a row is very inefficient…"). Which versions do, and how their
 * `LAST_ACTION` counts other actions, the recordings never show: such a scroll is left to the
 * fallback, its window still moved.
 */
const SCROLL_WARNING_FROM = 3;

function scroll(direction: 1 | -1, context: ToolContext): ToolOutcome {
  const open = openLines(context);
  if ('kind' in open) return open;
  const editor = context.editor;
  const scrolls = (editor.kind === 'open' ? (editor.scrolls ?? 0) : 0) + 1;
  if (open.line === null)
    return fallback('unknown-window', { kind: 'open', file: open.file, line: null, scrolls });
  const line = constrain(open.line + direction * (WINDOW - OVERLAP), open.lines.length, WINDOW);
  const moved: EditorState = { kind: 'open', file: open.file, line, scrolls };
  if (scrolls >= SCROLL_WARNING_FROM) return fallback('unverified-scroll-warning', moved);
  return done(renderWindow(open.file, open.lines, line), moved);
}

function createFile(args: readonly string[], context: ToolContext): ToolOutcome {
  const [target] = args;
  if (target === undefined || target === '')
    return done(['Usage: create <filename>'], context.editor);
  const path = realPathOf(context, target);
  if (path === null) return fallback('unknown-realpath', { kind: 'unknown' });
  const view = context.look(path);
  if (view.kind === 'missing') {
    const parent = path.slice(0, path.lastIndexOf('/')) || '/';
    // Without its folder the shell's `printf > FILE` fails, in words the world does not have.
    if (context.look(parent).kind !== 'directory')
      return fallback(`unknown-path:${parent}`, { kind: 'unknown' });
    const lines = [''];
    const line = constrain(WINDOW / 2, lines.length, WINDOW);
    return done(renderWindow(path, lines, line), { kind: 'open', file: path, line }, [
      { path, text: '\n' },
    ]);
  }
  const opened = openFile([target], context);
  if (opened.kind === 'fallback') return opened;
  return { ...opened, output: `Error: File '${target}' already exists.\n${opened.output}` };
}

const GATE_HEADER: Record<SweDialect, string> = {
  classic:
    'Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.',
  enigma:
    'Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.',
};

const RULE = '-'.repeat(49);

/**
 * The lines an `edit start:end` body leaves in a file, as SWE-agent's `mapfile`/array slicing
 * writes them, or null for a range it handles otherwise: a start before line 1 makes bash fail
 * on a negative slice length, and an end before `start - 1` (which repeats lines in both bash
 * and here) no recording verifies. `end = start - 1` inserts the body before `start`.
 */
export function linesAfterEdit(
  lines: readonly string[],
  start: number,
  end: number,
  body: readonly string[],
): string[] | null {
  if (start < 1 || end < start - 1) return null;
  return [...lines.slice(0, start - 1), ...body, ...lines.slice(end)];
}

/** The range and body of a line-range `edit`, or null for another form. */
export function editRange(
  tool: SweTool,
): { start: number; end: number; body: readonly string[] } | null {
  const range = /^(\d+):(\d+)$/.exec(tool.args[0] ?? '');
  if (tool.name !== 'edit' || tool.body === null || range === null) return null;
  return { start: Number(range[1]), end: Number(range[2]), body: tool.body };
}

/**
 * A file's text after an applied `edit`, and the window line the editor is left on (the one
 * "File updated." shows); null when the edit's range is not one the world writes.
 */
export function appliedEdit(tool: SweTool, text: string): { text: string; line: number } | null {
  const range = editRange(tool);
  if (range === null) return null;
  const edited = linesAfterEdit(linesOf(text), range.start, range.end, range.body);
  if (edited === null) return null;
  const written = textOf(edited);
  return { text: written, line: constrain(range.start - 1, linesOf(written).length, WINDOW) };
}

function editFile(tool: SweTool, context: ToolContext): ToolOutcome {
  const range = editRange(tool);
  // The cursor form (`edit` after `set_cursors`) and an unterminated body are other tools' business.
  if (range === null) return fallback('unsupported-edit-form', context.editor);
  // Its wording differs between the recorded versions, and none of them shows it.
  if (context.editor.kind === 'closed') return fallback('no-open-file', context.editor);
  const open = openLines(context);
  if ('kind' in open) return open;
  const { start, end, body } = range;
  const edited = linesAfterEdit(open.lines, start, end, body);
  if (edited === null) return fallback('unverified-edit-range', context.editor);
  const text = textOf(edited);
  const editedLines = linesOf(text);
  let errors: string[] = [];
  if (open.file.endsWith('.py')) {
    const after = lintPython(text);
    if (after === null) return fallback(`unverifiable-lint:${open.file}`, context.editor);
    if (after.length > 0) {
      const before = lintPython(textOf(open.lines));
      if (before === null) return fallback(`unverifiable-lint:${open.file}`, context.editor);
      errors = newLintErrors(before, after, { start, end }, body.length).map(
        (error) => `- ${error.problem}`,
      );
    }
  }
  if (errors.length === 0) {
    const line = constrain(start - 1, editedLines.length, WINDOW);
    return done(
      [
        ...renderWindow(open.file, editedLines, line),
        'File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.',
      ],
      { kind: 'open', file: open.file, line },
      [{ path: open.file, text }],
    );
  }
  const appliedWindow = body.length + 10;
  const appliedLine = constrain(
    Math.floor(body.length / 2) + start - 1,
    editedLines.length,
    appliedWindow,
  );
  const originalWindow = end - start + 1 + 10;
  const originalLine = constrain(
    Math.floor((end - start + 2) / 2) + start - 1,
    open.lines.length,
    originalWindow,
  );
  return done(
    [
      GATE_HEADER[context.dialect],
      '',
      'ERRORS:',
      ...errors,
      '',
      'This is how your edit would have looked if applied',
      RULE,
      ...renderWindow(open.file, editedLines, appliedLine, appliedWindow),
      RULE,
      '',
      'This is the original code before your edit',
      RULE,
      ...renderWindow(open.file, open.lines, originalLine, originalWindow),
      RULE,
      'Your changes have NOT been applied. Please fix your edit command and try again.',
      'You either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.',
      'DO NOT re-run the same failed edit command. Running it again will lead to the same error.',
    ],
    context.editor,
  );
}

/**
 * A grep basic regular expression as a JS one, for the plain terms agents search for (literal
 * text, `.`, a leading `^`, a trailing `$`); null for any other syntax, left to the fallback.
 * In a BRE, `^` and `$` anchor only at the ends of the pattern and stand for themselves inside
 * it (`$x`, `${HOME}`, `a^b`), and `+?(){}|` are literal. `u`: `.` matches a character, as grep
 * does in a UTF-8 locale, not half of a surrogate pair.
 */
export function basicRegex(term: string): RegExp | null {
  const body = term.replace(/^\^/, '').replace(/\$$/, '');
  if (/[\\[\]*]/.test(body)) return null;
  const source = body.replace(/[+?(){}|$^]/g, '\\$&');
  return new RegExp(
    `${term.startsWith('^') ? '^' : ''}${source}${term.endsWith('$') ? '$' : ''}`,
    'u',
  );
}

/** Outside ASCII, what grep's `.` matches depends on the container's locale, which no recording shows. */
const NON_ASCII = /\P{ASCII}/u;

function searchFile(args: readonly string[], context: ToolContext): ToolOutcome {
  const [term, target] = args;
  if (term === undefined || term === '')
    return done(['Usage: search_file <search_term> [<file>]'], context.editor);
  let file: string;
  let lines: string[];
  if (target !== undefined && target !== '') {
    const real = realPathOf(context, target);
    if (real === null) return fallback('unknown-realpath', context.editor);
    file = real;
    const view = context.look(file);
    if (view.kind === 'unseen') return fallback(`unknown-content:${file}`, context.editor);
    if (view.kind === 'missing') return fallback(`unknown-path:${file}`, context.editor);
    if (view.kind === 'directory')
      return done(
        [
          'Usage: search_file <search_term> [<file>]',
          `Error: File name ${target} not found. Please provide a valid file name.`,
        ],
        context.editor,
      );
    lines = linesOf(view.text);
  } else {
    const open = openLines(context);
    if ('kind' in open) return open;
    file = open.file;
    lines = open.lines;
  }
  const pattern = basicRegex(term);
  if (pattern === null) return fallback('unsupported-pattern', context.editor);
  if (term.includes('.') && lines.some((line) => NON_ASCII.test(line)))
    return fallback('locale-dependent-pattern', context.editor);
  const hits = lines.flatMap((line, index) => (pattern.test(line) ? [index + 1] : []));
  if (hits.length === 0) return done([`No matches found for "${term}" in ${file}`], context.editor);
  return done(
    [
      `Found ${hits.length} matches for "${term}" in ${file}:`,
      ...hits.map((at) => `Line ${at}:${lines[at - 1] ?? ''}`),
      `End of matches for "${term}" in ${file}`,
    ],
    context.editor,
  );
}

/** `find -name` globbing for `*` and `?`; other glob syntax is left to the fallback. */
function globRegex(name: string): RegExp | null {
  if (/[[\]\\]/.test(name)) return null;
  const source = name
    .replace(/[.+^${}()|]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`);
}

function findFile(args: readonly string[], context: ToolContext): ToolOutcome {
  const [name, target] = args;
  if (name === undefined || args.length > 2)
    return done(['Usage: find_file <file_name> [<dir>]'], context.editor);
  const dir = realPathOf(context, target ?? '.');
  if (dir === null) return fallback('unknown-realpath', context.editor);
  const files = context.filesUnder(dir);
  if (files === null) return fallback(`unknown-tree:${dir}`, context.editor);
  if (context.look(dir).kind !== 'directory')
    return done([`Directory ${target ?? '.'} not found`], context.editor);
  const pattern = globRegex(name);
  if (pattern === null) return fallback('unsupported-pattern', context.editor);
  const matches = files.filter((file) => pattern.test(file.slice(file.lastIndexOf('/') + 1)));
  if (matches.length === 0)
    return done([`No matches found for "${name}" in ${dir}`], context.editor);
  // `find` lists in the directory order of the real file system, which the world does not have.
  if (matches.length > 1) return fallback('unknown-listing-order', context.editor);
  return done([`Found 1 matches for "${name}" in ${dir}:`, ...matches], context.editor);
}

/** Runs one of SWE-agent's tools against what the world knows. */
export function runSweTool(tool: SweTool, context: ToolContext): ToolOutcome {
  switch (tool.name) {
    case 'open':
      return openFile(tool.args, context);
    case 'goto':
      return gotoLine(tool.args, context);
    case 'scroll_down':
      return scroll(1, context);
    case 'scroll_up':
      return scroll(-1, context);
    case 'create':
      return createFile(tool.args, context);
    case 'edit':
      return editFile(tool, context);
    case 'search_file':
      return searchFile(tool.args, context);
    case 'find_file':
      return findFile(tool.args, context);
    default:
      // search_dir: its output format changed across versions and no recording shows one.
      return fallback(`unverified-format:${tool.name}`, context.editor);
  }
}
