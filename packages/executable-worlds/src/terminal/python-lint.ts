/**
 * The verdict of SWE-agent's edit gate (`flake8 --select=F821,F822,F831,E111,E112,E113,E999,E902`)
 * on a Python file, computed without Python. It only answers when it is sure of flake8's message:
 * the errors it can see (an unmatched closing bracket, an unexpected indent or dedent, a name bound
 * nowhere in the file) or none; everything whose wording changed between Python/pycodestyle versions
 * or that needs a real parser (a compound statement without its colon, an unclosed bracket, tabs,
 * `__all__`, soft keywords) makes it answer `null`, and the world then leaves the edit to the fallback.
 *
 * Known approximation: a name counts as defined when the file binds it anywhere, in any scope and
 * at any point (pyflakes also reports a module-level use before the binding, or a function's local
 * used outside it). Grammar errors other than the ones above are not seen.
 */
export interface LintError {
  line: number;
  col: number;
  /** flake8's text after the position, e.g. `E999 IndentationError: unexpected indent`. */
  problem: string;
}

const KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except ' +
    'finally for from global if import in is lambda nonlocal not or pass raise return try while ' +
    'with yield'
  ).split(' '),
);

const BUILTINS = new Set(
  (
    'abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod ' +
    'compile complex copyright credits delattr dict dir divmod enumerate eval exec exit filter ' +
    'float format frozenset getattr globals hasattr hash help hex id input int isinstance ' +
    'issubclass iter len license list locals map max memoryview min next object oct open ord pow ' +
    'print property quit range repr reversed round set setattr slice sorted staticmethod str sum ' +
    'super tuple type vars zip __import__ __build_class__ __debug__ __doc__ __file__ __name__ ' +
    '__package__ __spec__ __loader__ __builtins__ __annotations__ __path__ __class__ ' +
    'NotImplemented Ellipsis ArithmeticError AssertionError AttributeError BaseException ' +
    'BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning ' +
    'ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ' +
    'ConnectionResetError DeprecationWarning EncodingWarning EnvironmentError EOFError Exception ' +
    'ExceptionGroup FileExistsError FileNotFoundError FloatingPointError FutureWarning ' +
    'GeneratorExit ImportError ImportWarning IndentationError IndexError InterruptedError ' +
    'IOError IsADirectoryError KeyboardInterrupt KeyError LookupError MemoryError ' +
    'ModuleNotFoundError NameError NotADirectoryError NotImplementedError OSError ' +
    'OverflowError PendingDeprecationWarning PermissionError ProcessLookupError RecursionError ' +
    'ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration ' +
    'StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError ' +
    'TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError ' +
    'UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError'
  ).split(' '),
);

const COMPOUND = new Set([
  'def',
  'class',
  'if',
  'elif',
  'else',
  'for',
  'while',
  'try',
  'except',
  'finally',
  'with',
]);

const CLOSING: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

interface Token {
  kind: 'name' | 'op' | 'other';
  text: string;
  line: number;
  col: number;
  depth: number;
  /** The innermost open bracket around the token, '' at depth 0. */
  bracket: string;
}

/** Thrown inside the scan when flake8's answer cannot be told: caught by `lintPython`. */
class Unsure extends Error {}

/** A syntax error found: flake8 then reports it alone. */
class Found extends Error {
  constructor(readonly error: LintError) {
    super(error.problem);
  }
}

const STRING_START = /^(?:[rRbBuUfF]{0,2})("""|'''|"|')/;

/** Logical lines of tokens; raises `Found` for a syntax error and `Unsure` when it cannot tell. */
function logicalLines(text: string): Token[][] {
  const lines: Token[][] = [];
  let current: Token[] = [];
  const brackets: string[] = [];
  const indents = [0];
  let opensBlock = false;
  let line = 1;
  let lineStart = 0;
  let atLineStart = true;
  let i = 0;
  const push = (kind: Token['kind'], value: string, at: number) =>
    current.push({
      kind,
      text: value,
      line,
      col: at - lineStart + 1,
      depth: brackets.length,
      bracket: brackets.at(-1) ?? '',
    });
  const endLogical = () => {
    if (current.length === 0) return;
    const first = current[0];
    const last = current.at(-1);
    const head = first?.text === 'async' ? current[1]?.text : first?.text;
    opensBlock = last?.text === ':';
    if (
      head !== undefined &&
      COMPOUND.has(head) &&
      !current.some((token) => token.depth === 0 && token.text === ':')
    )
      throw new Unsure('compound statement without colon');
    lines.push(current);
    current = [];
  };
  while (i < text.length) {
    const c = text.charAt(i);
    if (atLineStart && brackets.length === 0) {
      let j = i;
      while (text.charAt(j) === ' ') j++;
      const next = text.charAt(j);
      if (next === '\t' || next === '\f') throw new Unsure('tab indentation');
      if (next === '\n' || next === '#' || next === '\r' || j >= text.length) {
        // A blank or comment-only line opens no logical line.
        i = j;
        atLineStart = false;
        continue;
      }
      const indent = j - i;
      const top = indents.at(-1) ?? 0;
      if (opensBlock) {
        if (indent <= top) throw new Unsure('expected an indented block');
        indents.push(indent);
      } else if (indent > top) {
        throw new Found({
          line,
          col: indent + 1,
          problem: 'E999 IndentationError: unexpected indent',
        });
      } else if (indent < top) {
        while ((indents.at(-1) ?? 0) > indent) indents.pop();
        if ((indents.at(-1) ?? 0) !== indent)
          throw new Found({
            line,
            col: indent + 1,
            problem: 'E999 IndentationError: unindent does not match any outer indentation level',
          });
      }
      // E111/E112/E113 wording differs across pycodestyle versions.
      if (indent % 4 !== 0) throw new Unsure('indentation not a multiple of four');
      opensBlock = false;
      atLineStart = false;
      i = j;
      continue;
    }
    atLineStart = false;
    if (c === '\n') {
      if (brackets.length === 0) endLogical();
      line++;
      i++;
      lineStart = i;
      atLineStart = true;
      continue;
    }
    if (c === ' ' || c === '\r' || c === '\t' || c === '\f') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < text.length && text.charAt(i) !== '\n') i++;
      continue;
    }
    if (c === '\\' && text.charAt(i + 1) === '\n') {
      i += 2;
      line++;
      lineStart = i;
      continue;
    }
    const string = STRING_START.exec(text.slice(i, i + 5));
    if (string !== null) {
      const quote = string[1] ?? '"';
      const prefix = string[0].slice(0, string[0].length - quote.length);
      const start = i;
      let j = i + string[0].length;
      for (;;) {
        if (j >= text.length) throw new Unsure('unterminated string');
        const d = text.charAt(j);
        if (d === '\\') {
          if (text.charAt(j + 1) === '\n') {
            line++;
            lineStart = j + 2;
          }
          j += 2;
          continue;
        }
        if (d === '\n') {
          if (quote.length === 1) throw new Unsure('unterminated string');
          line++;
          lineStart = j + 1;
        }
        if (text.startsWith(quote, j)) break;
        j++;
      }
      const body = text.slice(start + string[0].length, j);
      if (/f/i.test(prefix)) {
        for (const name of formattedNames(body)) push('name', name, start);
      } else push('other', body, start);
      i = j + quote.length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 200));
    if (word !== null) {
      push('name', word[0], i);
      i += word[0].length;
      continue;
    }
    // Prefixed literals first: `0x10` is one number, not `0` and a name `x10`.
    const number = /^(?:0[xXoObB][\da-fA-F_]+|\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?[jJlL]?)/.exec(
      text.slice(i, i + 100),
    );
    if (number !== null && /\d/.test(c)) {
      push('other', number[0], i);
      i += number[0].length;
      continue;
    }
    if ('([{'.includes(c)) {
      push('op', c, i);
      brackets.push(c);
      i++;
      continue;
    }
    const opening = CLOSING[c];
    if (opening !== undefined) {
      const open = brackets.pop();
      if (open === undefined)
        throw new Found({
          line,
          col: i - lineStart + 1,
          problem: `E999 SyntaxError: unmatched '${c}'`,
        });
      if (open !== opening) throw new Unsure('mismatched brackets');
      push('op', c, i);
      i++;
      continue;
    }
    const op = /^(?:\*\*=?|\/\/=?|>>=?|<<=?|->|:=|[-+*/%&|^@<>=!]=|[-+*/%&|^~<>=.,:;@])/.exec(
      text.slice(i, i + 3),
    );
    if (op === null) throw new Unsure(`unexpected character ${c}`);
    push('op', op[0], i);
    i += op[0].length;
  }
  if (brackets.length > 0) throw new Unsure('unclosed bracket at end of file');
  endLogical();
  if (opensBlock) throw new Unsure('block opened at end of file');
  return lines;
}

/** Names an f-string's replacement fields read; unsure of fields with quotes or nested braces. */
function formattedNames(body: string): string[] {
  const names: string[] = [];
  const fields = body.replace(/\{\{|\}\}/g, '').match(/\{[^{}]*\}/g) ?? [];
  if (/[{}]/.test(body.replace(/\{\{|\}\}/g, '').replace(/\{[^{}]*\}/g, '')))
    throw new Unsure('nested braces in an f-string');
  for (const field of fields) {
    const expression = field.slice(1, -1);
    if (/["'\\]/.test(expression)) throw new Unsure('quotes in an f-string field');
    const head = expression.split(/![rsa](?::|$)|:(?![=])/)[0] ?? '';
    for (const match of head.matchAll(/(?<![.\w])[A-Za-z_]\w*(?!\s*=[^=])/g))
      if (!KEYWORDS.has(match[0])) names.push(match[0]);
  }
  return names;
}

interface Names {
  bound: Set<string>;
  uses: Token[];
  starImport: boolean;
}

/** Binding targets of a def's parameter list or a lambda's, from the token after `(`/`lambda`. */
function markParameters(tokens: Token[], from: number, bound: Set<string>, skip: Set<Token>) {
  const seen = new Set<string>();
  const depth = tokens[from]?.depth ?? 0;
  for (let k = from; k < tokens.length; k++) {
    const token = tokens[k];
    if (token === undefined || token.depth < depth) break;
    if (token.depth === depth && token.text === ':' && tokens[from - 1]?.text === 'lambda') break;
    const before = tokens[k - 1]?.text ?? '';
    const after = tokens[k + 1]?.text ?? '';
    if (
      token.kind === 'name' &&
      token.depth === depth &&
      (k === from || [',', '*', '**', '('].includes(before)) &&
      [',', ')', '=', ':'].includes(after)
    ) {
      if (seen.has(token.text)) throw new Unsure('duplicate argument (F831)');
      seen.add(token.text);
      bound.add(token.text);
      skip.add(token);
    }
  }
}

function collectNames(lines: Token[][]): Names {
  const names: Names = { bound: new Set(), uses: [], starImport: false };
  for (const tokens of lines) {
    const head = tokens[0]?.text;
    if (head === 'import' || (head === 'from' && tokens.some((t) => t.text === 'import'))) {
      const from = tokens.findIndex((t) => t.text === 'import');
      let item: Token[] = [];
      const flush = () => {
        const as = item.findIndex((t) => t.text === 'as');
        const name = as >= 0 ? item[as + 1] : item[0];
        if (name?.text === '*') names.starImport = true;
        else if (name !== undefined) names.bound.add(name.text);
        item = [];
      };
      for (const token of tokens.slice(from + 1)) {
        if (token.text === ',') flush();
        else if (token.text !== '(' && token.text !== ')') item.push(token);
      }
      flush();
      continue;
    }
    if (head === 'global' || head === 'nonlocal') {
      for (const token of tokens.slice(1)) if (token.kind === 'name') names.bound.add(token.text);
      continue;
    }
    if (head === 'match' || head === 'case' || head === 'type')
      throw new Unsure('soft keyword statement');
    const skip = new Set<Token>();
    const lastAssign = tokens.findLastIndex((t) => t.depth === 0 && t.text === '=');
    let inTarget: number | null = null;
    for (const [k, token] of tokens.entries()) {
      if (inTarget !== null && token.text === 'in' && token.depth === inTarget) inTarget = null;
      if (token.kind !== 'name' || KEYWORDS.has(token.text)) {
        if (token.text === 'for') inTarget = token.depth;
        if (token.text === 'lambda') markParameters(tokens, k + 1, names.bound, skip);
        continue;
      }
      if (skip.has(token)) continue;
      const before = tokens[k - 1];
      const after = tokens[k + 1];
      if (before?.text === '.') continue;
      if (before?.text === 'def' || before?.text === 'class') {
        names.bound.add(token.text);
        if (before.text === 'def' && after?.text === '(')
          markParameters(tokens, k + 2, names.bound, skip);
        continue;
      }
      if (before?.text === 'as' || after?.text === ':=' || inTarget !== null) {
        names.bound.add(token.text);
        continue;
      }
      if (after?.text === '=' && token.depth > 0 && token.bracket === '(') continue;
      // Only unparenthesized targets (`a, b = …`): a name in brackets before `=` is a subscript.
      const target =
        k < lastAssign && token.depth === 0 && [',', '=', ':'].includes(after?.text ?? '');
      const annotated = k === 0 && after?.text === ':' && !COMPOUND.has(token.text);
      if (target || annotated) {
        names.bound.add(token.text);
        continue;
      }
      if (after !== undefined && /^(?:[-+*/%&|^@]|\*\*|\/\/|>>|<<)=$/.test(after.text))
        names.bound.add(token.text);
      names.uses.push(token);
    }
  }
  return names;
}

/** flake8's errors of the selected codes for a Python file, or null when they cannot be told. */
export function lintPython(text: string): LintError[] | null {
  if (text.includes('__all__')) return null;
  try {
    const names = collectNames(logicalLines(text));
    if (names.starImport) return [];
    return names.uses
      .filter((use) => !names.bound.has(use.text) && !BUILTINS.has(use.text))
      .map((use) => ({
        line: use.line,
        col: use.col,
        problem: `F821 undefined name '${use.text}'`,
      }));
  } catch (error) {
    if (error instanceof Found) return [error.error];
    if (error instanceof Unsure) return null;
    throw error;
  }
}

/**
 * The errors an edit introduced, as SWE-agent's gate keeps them: errors of the old file outside
 * the replaced lines, moved by the lines the edit added, are not new. Compared by line and text
 * (flake8's columns for syntax errors are not reproduced).
 */
export function newLintErrors(
  before: readonly LintError[],
  after: readonly LintError[],
  replaced: { start: number; end: number },
  insertedLines: number,
): LintError[] {
  const shift = insertedLines - (replaced.end - replaced.start + 1);
  const old = before
    .filter((error) => error.line < replaced.start || error.line > replaced.end)
    .map((error) => ({
      line: error.line > replaced.end ? error.line + shift : error.line,
      problem: error.problem,
    }));
  return after.filter(
    (error) => !old.some((known) => known.line === error.line && known.problem === error.problem),
  );
}
