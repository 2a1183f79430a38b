/**
 * How InterCode's bash harness handed each action to the container, so that a reconstructed world
 * sees the same command the recorded one did. Facts from its `bash_env.py` (our own code):
 * - the action is trimmed and wrapped as `/bin/bash -c "<action>"` and that string is split into
 *   argv the way Python's `shlex.split` does (docker's `exec_run` with a string). The action's own
 *   double quotes therefore close and reopen the wrapper's: `echo "a b"` runs `echo a` with `b` as
 *   `$0`, and backslashes outside quotes vanish;
 * - a split that fails (an unclosed quote) answers `Malformed command` without running anything;
 * - every action is a fresh process: exported variables do not survive it;
 * - an action starting with `cd` is rewritten: the rest of the line after `cd ` is resolved as a
 *   path against the harness's working directory, the command `cd <path>` runs from `/`, and on
 *   success that path becomes the working directory of later actions.
 */
export class ShlexError extends Error {}

/** POSIX-mode `shlex.split`: whitespace splits; quotes group; backslash escapes (not in '…'). */
export function shlexSplit(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (c === '\\') {
      if (i + 1 >= text.length) throw new ShlexError('No escaped character');
      word += text.charAt(++i);
      inWord = true;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new ShlexError('No closing quotation');
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text.charAt(j) !== '"'; j++) {
        // In double quotes shlex only lets a backslash escape `"` and `\`.
        const next = text.charAt(j + 1);
        if (text.charAt(j) === '\\' && (next === '"' || next === '\\')) j++;
        word += text.charAt(j);
      }
      if (j >= text.length) throw new ShlexError('No closing quotation');
      inWord = true;
      i = j;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The harness's path arithmetic for `cd`: segments joined, `..` pops, `.` and empties dropped. */
export function simplifyPath(current: string, changed: string): string {
  if (changed === '') return current;
  const base = changed.startsWith('/') ? '' : current;
  const path: string[] = [];
  for (const segment of `${base}/${changed}`.split('/')) {
    if (segment === '..') path.pop();
    else if (segment !== '' && segment !== '.') path.push(segment);
  }
  return `/${path.join('/')}`;
}

export type HarnessPlan =
  | { kind: 'malformed' }
  /** Run `script` from `cwd`; when `nextCwd` is set it becomes the working directory on success. */
  | {
      kind: 'run';
      script: string;
      /** What bash names itself in messages: `$0`, i.e. the word after the script, else its path. */
      arg0: string;
      cwd: string;
      nextCwd: string | null;
    };

export function planIntercodeAction(action: string, workdir: string): HarnessPlan {
  let line = action;
  let cwd = workdir;
  let nextCwd: string | null = null;
  if (line.startsWith('cd')) {
    const at = line.indexOf('cd ');
    // Python's `index` raises when `cd ` is absent (e.g. `cdx`): the harness then fails the step.
    if (at < 0) return { kind: 'malformed' };
    nextCwd = simplifyPath(workdir, line.slice(at + 3).trim());
    line = `cd ${nextCwd}`;
    cwd = '/';
  }
  let argv: string[];
  try {
    argv = shlexSplit(`/bin/bash -c "${line.trim()}"`);
  } catch (error) {
    if (error instanceof ShlexError) return { kind: 'malformed' };
    throw error;
  }
  return { kind: 'run', script: argv[2] ?? '', arg0: argv[3] ?? '/bin/bash', cwd, nextCwd };
}

const PARSE_ERROR = /^bash: syntax error: Parse error at \d+:\d+: (.*)$/;

/**
 * just-bash's shell-level messages in the words GNU bash prints for `bash -c` (`$0: -c: line 1: …`,
 * `$0: line 1: x: command not found`). Only for one-line scripts, where the line is always 1.
 */
export function bashMessages(output: string, script: string, arg0: string): string {
  if (script.includes('\n')) return output;
  return output
    .split('\n')
    .map((line) => {
      const parse = PARSE_ERROR.exec(line);
      if (parse?.[1] !== undefined) {
        const message = parse[1];
        if (message.startsWith('unexpected EOF')) {
          return `${arg0}: -c: line 1: ${message}\n${arg0}: -c: line 2: syntax error: unexpected end of file`;
        }
        return `${arg0}: -c: line 1: ${message}\n${arg0}: -c: line 1: \`${script}'`;
      }
      const missing = /^bash: (.*: command not found)$/.exec(line);
      if (missing?.[1] !== undefined) return `${arg0}: line 1: ${missing[1]}`;
      const quote = /^bash: line 1: (unexpected EOF while looking for matching .*)$/.exec(line);
      if (quote?.[1] !== undefined) {
        return `${arg0}: -c: line 1: ${quote[1]}\n${arg0}: -c: line 2: syntax error: unexpected end of file`;
      }
      return line;
    })
    .join('\n');
}

/** A file-system error that escaped a redirection, as bash reports it (`bash: line 1: f: …`). */
export function redirectMessage(message: string, prefix: string): string | null {
  const match = /^(ENOENT|ENOTDIR|EISDIR): [^,]*, \w+ '(.*)'$/.exec(message);
  if (match === null) return null;
  const reason =
    match[1] === 'EISDIR'
      ? 'Is a directory'
      : match[1] === 'ENOTDIR'
        ? 'Not a directory'
        : 'No such file or directory';
  return `${prefix}: line 1: ${match[2] ?? ''}: ${reason}\n`;
}
