/**
 * Just enough shell lexing to read facts off recorded commands: splits a line into simple commands
 * (on unquoted `|`, `;`, `&&`, `||`) and words (quotes and backslashes removed). Anything it cannot
 * read plainly (command substitution, here-docs, subshells) marks the line `complex`, and
 * reconstruction then learns nothing from it: a wrong fact costs more than a missing one.
 */
export interface SimpleCommand {
  words: string[];
  /** Redirection targets of `>`/`>>` (not `/dev/null`, not `>&2`). */
  writes: string[];
}

export interface ParsedLine {
  commands: SimpleCommand[];
  /** Operators between commands, e.g. `['|']`. */
  operators: string[];
  complex: boolean;
}

const COMPLEX = /\$\(|`|<<|<\(|>\(|^\s*[({]|\b(?:for|while|until|if|case|function)\b/;

export function parseLine(line: string): ParsedLine {
  const result: ParsedLine = { commands: [], operators: [], complex: COMPLEX.test(line) };
  let words: string[] = [];
  let writes: string[] = [];
  let word = '';
  let inWord = false;
  let pendingRedirect = false;
  const endWord = () => {
    if (!inWord) return;
    if (pendingRedirect) {
      if (word !== '/dev/null') writes.push(word);
      pendingRedirect = false;
    } else words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (operator: string) => {
    endWord();
    result.commands.push({ words, writes });
    result.operators.push(operator);
    words = [];
    writes = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { ...result, complex: true };
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line.charAt(j) !== '"'; j++) {
        if (line.charAt(j) === '\\' && '"\\$`'.includes(line.charAt(j + 1))) j++;
        word += line.charAt(j);
      }
      if (j >= line.length) return { ...result, complex: true };
      inWord = true;
      i = j;
    } else if (c === '\\') {
      word += line.charAt(i + 1);
      inWord = true;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      endWord();
    } else if (c === '|' || c === ';' || c === '&') {
      const two = line.slice(i, i + 2);
      if (c === '&' && line.charAt(i + 1) === '>') {
        endWord();
        pendingRedirect = true;
        i++;
        continue;
      }
      const operator = two === '||' || two === '&&' ? two : c;
      i += operator.length - 1;
      endCommand(operator);
    } else if (c === '>') {
      // `2>&1`, `>&2`: descriptor duplication, not a file write.
      if (line.charAt(i + 1) === '&') {
        if (inWord && /^\d$/.test(word)) {
          word = '';
          inWord = false;
        }
        i += 2;
        while (i + 1 < line.length && /\d/.test(line.charAt(i + 1))) i++;
        continue;
      }
      if (inWord && /^\d$/.test(word)) {
        word = '';
        inWord = false;
      }
      endWord();
      if (line.charAt(i + 1) === '>') i++;
      pendingRedirect = true;
    } else if (c === '<') {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endWord();
  result.commands.push({ words, writes });
  result.commands = result.commands.filter((command) => command.words.length > 0);
  return result;
}

/** Programs that change the file system (or may, through their arguments). */
const MUTATORS = new Set([
  'rm',
  'rmdir',
  'mv',
  'cp',
  'mkdir',
  'touch',
  'chmod',
  'chown',
  'chgrp',
  'ln',
  'tar',
  'unzip',
  'zip',
  'gzip',
  'gunzip',
  'bzip2',
  'xz',
  'truncate',
  'dd',
  'tee',
  'install',
  'patch',
  'split',
  'csplit',
  'shred',
  'rsync',
  'git',
  'pip',
  'apt-get',
  'apt',
  'make',
  'python',
  'python3',
  'sudo',
  'mount',
  'cd',
  'export',
  'unset',
  'source',
  '.',
  // SWE-agent's tools that write files.
  'create',
  'edit',
  'insert',
]);

/**
 * Whether a line may change the workspace (files, cwd or env). Reconstruction stops learning the
 * initial state of an episode at the first such line, so what the agent created is never mistaken
 * for what was there before it acted.
 */
export function mayMutate(line: string): boolean {
  const parsed = parseLine(line);
  if (parsed.complex) return true;
  return parsed.commands.some((command) => {
    const program = command.words[0] ?? '';
    if (command.writes.length > 0 || MUTATORS.has(program) || program.includes('=')) return true;
    if (program === 'sed' && command.words.some((word) => /^-[a-zA-Z]*i/.test(word))) return true;
    if (
      program === 'find' &&
      command.words.some((word) => ['-delete', '-exec', '-execdir', '-ok'].includes(word))
    ) {
      // find -exec of a read-only program (md5sum, cat, grep, ls, wc…) does not mutate.
      const execAt = command.words.findIndex((word) => word.startsWith('-exec') || word === '-ok');
      return command.words.includes('-delete') || MUTATORS.has(command.words[execAt + 1] ?? '');
    }
    if (program === 'xargs') return command.words.slice(1).some((word) => MUTATORS.has(word));
    return false;
  });
}
