import { parser } from '@lezer/python';
import type { SyntaxNode } from '@lezer/common';

/**
 * The verdict of SWE-agent's edit gate (`flake8 --select=F821,F822,F831,E111,E112,E113,E999,E902`)
 * on a Python file, computed without Python. A wrong verdict is worse than none, so it answers
 * only when it is sure of flake8's messages, and `null` otherwise (the world then leaves the edit
 * to the fallback):
 * - syntax: the file must parse with lezer's Python grammar and use only constructs every Python 3
 *   the recordings may have run accepts; the three errors whose wording is stable (an unexpected
 *   indent, an unindent matching no outer level, a closing bracket opening a line with nothing
 *   open) are reported when every line before them is valid, any other error gives `null`;
 * - names: pyflakes' undefined-name rules replayed on the tree (`NameCheck`), with `null` where a
 *   rule is not modelled (global/nonlocal, `del` of a name, string annotations, walrus, match).
 */
export interface LintError {
  line: number;
  col: number;
  /** flake8's text after the position, e.g. `E999 IndentationError: unexpected indent`. */
  problem: string;
}

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
      // Names inside f-strings are read from lezer's tree, not from this scan.
      if (/f/i.test(prefix) && /\\[xuUN]/.test(body)) throw new Unsure('escape in an f-string');
      push('other', body, start);
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
      // A stray bracket inside a statement may be reported as another error first.
      if (open === undefined && current.length > 0) throw new Unsure('unmatched bracket mid-line');
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

/**
 * Builtins in `dir(builtins)` of every CPython 3.6–3.13 that may run flake8, plus the names pyflakes
 * adds itself. `Ellipsis`, `True`, `False`, `None` parse as their own nodes, never as names.
 */
const BUILTINS = new Set(
  (
    'ArithmeticError AssertionError AttributeError BaseException BlockingIOError BrokenPipeError ' +
    'BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ' +
    'ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis ' +
    'EnvironmentError Exception FileExistsError FileNotFoundError FloatingPointError FutureWarning ' +
    'GeneratorExit IOError ImportError ImportWarning IndentationError IndexError InterruptedError ' +
    'IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError ' +
    'NameError NotADirectoryError NotImplemented NotImplementedError OSError OverflowError ' +
    'PendingDeprecationWarning PermissionError ProcessLookupError RecursionError ReferenceError ' +
    'ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError ' +
    'SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError ' +
    'UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning ' +
    'UserWarning ValueError Warning ZeroDivisionError __build_class__ __debug__ __doc__ __import__ ' +
    '__loader__ __name__ __package__ __spec__ abs all any ascii bin bool bytearray bytes callable ' +
    'chr classmethod compile complex copyright credits delattr dict dir divmod enumerate eval exec ' +
    'exit filter float format frozenset getattr globals hasattr hash help hex id input int ' +
    'isinstance issubclass iter len license list locals map max memoryview min next object oct open ' +
    'ord pow print property quit range repr reversed round set setattr slice sorted staticmethod ' +
    'str sum super tuple type vars zip __file__ __builtins__ __annotations__ WindowsError'
  ).split(' '),
);

/** Builtins of only some of those Pythons: whether flake8 flags them depends on the one it ran on. */
const VERSION_BUILTINS = new Set(
  'aiter anext breakpoint EncodingWarning BaseExceptionGroup ExceptionGroup PythonFinalizationError _IncompleteInputError __path__'.split(
    ' ',
  ),
);

/** `__future__` features every Python 3 accepts and that change no name or annotation rule. */
const FUTURES = new Set(
  'nested_scopes generators division absolute_import with_statement print_function unicode_literals generator_stop'.split(
    ' ',
  ),
);

/** Calls whose string arguments pyflakes reads as annotations when they come from `typing`. */
const TYPING_CALLS = new Set(
  'cast TypeVar NewType NamedTuple TypedDict ParamSpec TypeVarTuple TypeAliasType'.split(' '),
);

/** Leaves that carry no name: operators, punctuation and keywords. */
const OPERATOR_LEAVES = new Set([
  'AssignOp',
  'UpdateOp',
  'CompareOp',
  'ArithOp',
  'BitOp',
  'LogicOp',
  'At',
  'FormatConversion',
  'Comment',
]);

function isPunctuationOrKeyword(name: string): boolean {
  return OPERATOR_LEAVES.has(name) || /^[a-z]+$/.test(name) || /^[^A-Za-z⚠]+$/.test(name);
}

type ScopeKind = 'module' | 'function' | 'class' | 'comprehension';
type BindingKind = 'value' | 'annotation';

interface Scope {
  kind: ScopeKind;
  names: Map<string, BindingKind>;
  starImport: boolean;
}

interface Candidate {
  line: number;
  col: number;
  name: string;
}

const COMPREHENSIONS = new Set([
  'ComprehensionExpression',
  'ArrayComprehensionExpression',
  'SetComprehensionExpression',
  'DictionaryComprehensionExpression',
]);

/** A node's children without comments, which lezer may place between any two of them. */
const children = (node: SyntaxNode): SyntaxNode[] => {
  const list: SyntaxNode[] = [];
  for (let child = node.firstChild; child !== null; child = child.nextSibling)
    if (child.name !== 'Comment') list.push(child);
  return list;
};

/** Splits a flat child list at the given separator tokens. */
function splitAt(nodes: SyntaxNode[], separator: string): SyntaxNode[][] {
  const parts: SyntaxNode[][] = [[]];
  for (const node of nodes) {
    if (node.name === separator) parts.push([]);
    else parts.at(-1)?.push(node);
  }
  return parts;
}

const hasAny = (node: SyntaxNode, names: ReadonlySet<string>): boolean =>
  names.has(node.name) || children(node).some((child) => hasAny(child, names));

const STRINGS = new Set(['String', 'FormatString', 'ContinuedString']);
const NUMBER =
  /^(?:(?:[1-9](?:_?\d)*|0(?:_?0)*)(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)?[jJ]?|\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)[jJ]?|\d(?:_?\d)*\.(?:\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?[jJ]?|\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?[jJ]?|\d(?:_?\d)*[jJ]|0[xX](?:_?[\da-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+)$/;

/**
 * pyflakes' undefined-name check (pyflakes 3/4 `Checker`), replayed on lezer's tree in the same
 * order: module and class bodies at once, function and lambda bodies deferred to the end with the
 * scope stack of their definition. Throws `Unsure` for syntax lezer accepts and CPython rejects,
 * for syntax some recorded Python versions reject, and for rules it does not model.
 */
class NameCheck {
  readonly candidates: Candidate[] = [];
  /** Names whose verdict depends on rules not modelled (global, nonlocal, annotations). */
  readonly unsureNames = new Set<string>();
  private stack: Scope[] = [{ kind: 'module', names: new Map(), starImport: false }];
  private handlers: string[][] = [[]];
  private readonly deferred: { run: () => void; stack: Scope[] }[] = [];
  private inAnnotation = false;
  private inAsync = false;
  private readonly typingImported: boolean;

  constructor(private readonly text: string) {
    this.typingImported = /\btyping(?:_extensions)?\b/.test(text);
  }

  run(script: SyntaxNode) {
    this.statements(children(script));
    while (this.deferred.length > 0) {
      const next = this.deferred.shift();
      if (next === undefined) break;
      this.stack = next.stack;
      // pyflakes runs deferred bodies after the module, outside any `try`.
      this.handlers = [[]];
      next.run();
    }
  }

  private textOf(node: SyntaxNode): string {
    return this.text.slice(node.from, node.to);
  }

  private get scope(): Scope {
    const top = this.stack.at(-1);
    if (top === undefined) throw new Unsure('no scope');
    return top;
  }

  private bind(name: string, kind: BindingKind = 'value') {
    this.scope.names.set(name, kind);
  }

  private load(node: SyntaxNode) {
    const name = this.textOf(node);
    let classVisible: boolean | null = null;
    let starred = false;
    let skippedAnnotation = false;
    for (const scope of this.stack.toReversed()) {
      if (scope.kind === 'class') {
        if (name === '__class__') return;
        if (classVisible === false) continue;
      }
      const binding = scope.names.get(name);
      if (binding === 'annotation') {
        skippedAnnotation = true;
        continue;
      }
      if (binding === 'value') return;
      starred ||= scope.starImport;
      if (classVisible !== false) classVisible = scope.kind === 'comprehension';
    }
    if (BUILTINS.has(name) || starred) return;
    if ((name === '__module__' || name === '__qualname__') && this.scope.kind === 'class') return;
    if (this.handlers.at(-1)?.includes('NameError') === true) return;
    const dunderInClass = this.scope.kind === 'class' && /^__\w+__$/.test(name);
    if (skippedAnnotation || this.inAnnotation || VERSION_BUILTINS.has(name) || dunderInClass)
      this.unsureNames.add(name);
    const line = this.text.slice(0, node.from).split('\n').length;
    const col = node.from - this.text.lastIndexOf('\n', node.from - 1);
    this.candidates.push({ line, col, name });
  }

  private statements(nodes: SyntaxNode[]) {
    for (const node of nodes) this.statement(node);
  }

  private body(node: SyntaxNode | undefined) {
    if (node?.name !== 'Body') throw new Unsure('missing body');
    this.statements(children(node).filter((child) => child.name !== ':'));
  }

  private statement(node: SyntaxNode) {
    const parts = children(node);
    switch (node.name) {
      case 'Comment':
      case 'PassStatement':
      case 'BreakStatement':
      case 'ContinueStatement':
        return;
      case 'StatementGroup':
        return this.statements(parts.filter((part) => part.name !== ';'));
      case 'ExpressionStatement':
        return this.sequence(parts, true);
      case 'AssignStatement':
        return this.assignment(parts);
      case 'UpdateStatement':
        return this.update(parts);
      case 'DeleteStatement':
        return this.deletion(parts.slice(1));
      case 'ReturnStatement':
        this.outsideFunction(parts);
        if (parts.some((part) => part.name === '*')) throw new Unsure('starred return (3.8+)');
        return this.sequence(parts.slice(1), true);
      case 'YieldStatement':
        this.outsideFunction(parts);
        return this.expressions(parts);
      case 'AssertStatement':
        return this.expressions(parts);
      case 'RaiseStatement':
        if (parts.some((part) => part.name === ',')) throw new Unsure('Python 2 raise');
        return this.expressions(parts);
      case 'ImportStatement':
        return this.importStatement(parts);
      case 'ScopeStatement':
        for (const part of parts)
          if (part.name === 'VariableName') this.unsureNames.add(this.textOf(part));
        return;
      case 'IfStatement':
      case 'WhileStatement':
        return this.conditional(parts);
      case 'ForStatement':
        return this.forStatement(parts);
      case 'TryStatement':
        return this.tryStatement(parts);
      case 'WithStatement':
        return this.withStatement(parts);
      case 'FunctionDefinition':
        return this.functionDefinition(node, []);
      case 'ClassDefinition':
        return this.classDefinition(node, []);
      case 'DecoratedStatement': {
        const decorators = parts.filter((part) => part.name === 'Decorator');
        const definition = parts.at(-1);
        if (definition?.name === 'FunctionDefinition')
          return this.functionDefinition(definition, decorators);
        if (definition?.name === 'ClassDefinition')
          return this.classDefinition(definition, decorators);
        throw new Unsure('decorated statement');
      }
      default:
        // print statements, match, type aliases, error nodes and anything newer.
        throw new Unsure(`statement ${node.name}`);
    }
  }

  /**
   * pyflakes skips the operand of a `return`, `yield` or `await` in a module or class body (it
   * reports F706/F704 instead): not modelled, so such an operand gives no verdict.
   */
  private outsideFunction(parts: SyntaxNode[]) {
    const kind = this.scope.kind;
    if ((kind === 'module' || kind === 'class') && parts.length > 1)
      throw new Unsure('return or yield outside a function');
  }

  /** A comma-separated list of expressions; `*x` only where a tuple display allows it. */
  private sequence(nodes: SyntaxNode[], allowStarInTuple: boolean) {
    const items = splitAt(nodes, ',');
    const isTuple = items.length > 1;
    for (const item of items) {
      if (item[0]?.name === '*') {
        if (!isTuple || !allowStarInTuple) throw new Unsure('starred expression');
        this.expressions(item.slice(1));
      } else this.expressions(item);
    }
  }

  private expressions(nodes: SyntaxNode[]) {
    for (const node of nodes) this.expression(node);
  }

  private assignment(parts: SyntaxNode[]) {
    const typeDef = parts.findIndex((part) => part.name === 'TypeDef');
    const segments = splitAt(
      parts.filter((part) => part.name !== 'TypeDef'),
      'AssignOp',
    );
    if (typeDef >= 0) {
      const target = parts[0];
      const annotation = parts[typeDef];
      if (typeDef !== 1 || target === undefined || annotation === undefined || segments.length > 2)
        throw new Unsure('annotated assignment form');
      if (target.name !== 'VariableName' && target.name !== 'MemberExpression')
        throw new Unsure('annotated target');
      this.annotation(children(annotation).filter((part) => part.name !== ':'));
      const value = segments[1];
      if (value !== undefined) this.sequence(value, true);
      if (target.name === 'VariableName')
        this.bind(this.textOf(target), value === undefined ? 'annotation' : 'value');
      else this.expression(target);
      return;
    }
    const value = segments.at(-1) ?? [];
    if (value[0]?.name === 'YieldExpression') this.expressions(value);
    else this.sequence(value, true);
    for (const target of segments.slice(0, -1)) this.targets(target);
  }

  private update(parts: SyntaxNode[]) {
    const op = parts.findIndex((part) => part.name === 'UpdateOp');
    const target = parts[0];
    if (op !== 1 || target === undefined) throw new Unsure('augmented target');
    if (target.name === 'VariableName') {
      this.load(target);
      this.sequence(parts.slice(2), false);
      this.bind(this.textOf(target));
    } else if (target.name === 'MemberExpression') {
      this.sequence(parts.slice(2), false);
      this.expression(target);
    } else throw new Unsure('augmented target');
  }

  private deletion(parts: SyntaxNode[]) {
    for (const item of splitAt(parts, ',')) {
      const [target] = item;
      // pyflakes unbinds a deleted name unless a branch may skip the `del`: not modelled.
      if (item.length !== 1 || target?.name !== 'MemberExpression') throw new Unsure('del target');
      this.expression(target);
    }
  }

  /** Assignment targets in a comma list: names bind, attributes and subscripts read. */
  private targets(nodes: SyntaxNode[]) {
    const items = splitAt(nodes, ',');
    const isSequence = items.length > 1;
    if (items.at(-1)?.length === 0 && isSequence) items.pop();
    let stars = 0;
    for (const item of items) {
      let [target] = item;
      if (item[0]?.name === '*') {
        stars++;
        target = item[1];
        if (item.length !== 2 || !isSequence) throw new Unsure('starred target');
      } else if (item.length !== 1) throw new Unsure('target');
      if (target === undefined) throw new Unsure('target');
      this.target(target);
    }
    if (stars > 1) throw new Unsure('two starred targets');
  }

  private target(node: SyntaxNode): void {
    switch (node.name) {
      case 'VariableName':
        if (this.textOf(node) === '__debug__') throw new Unsure('assignment to __debug__');
        return this.bind(this.textOf(node));
      case 'MemberExpression':
        return this.expression(node);
      case 'TupleExpression':
      case 'ArrayExpression':
        return this.targets(children(node).slice(1, -1));
      case 'ParenthesizedExpression': {
        const inner = children(node).slice(1, -1);
        const [only] = inner;
        if (inner.length !== 1 || only === undefined) throw new Unsure('parenthesized target');
        return this.target(only);
      }
      default:
        throw new Unsure(`target ${node.name}`);
    }
  }

  private importStatement(parts: SyntaxNode[]) {
    const importAt = parts.findIndex((part) => part.name === 'import');
    const isFrom = parts[0]?.name === 'from';
    const source = this.text.slice(parts[0]?.to ?? 0, parts[importAt]?.from ?? 0).trim();
    const names = parts
      .slice(importAt + 1)
      .filter((part) => part.name !== '(' && part.name !== ')');
    if (!isFrom && parts.some((part) => part.name === '(')) throw new Unsure('import (x)');
    if (source === '__future__')
      for (const item of splitAt(names, ',')) {
        const [feature] = item;
        if (feature === undefined || !FUTURES.has(this.textOf(feature)))
          throw new Unsure('__future__ feature');
      }
    if (names[0]?.name === '*' && isFrom) {
      this.scope.starImport = true;
      return;
    }
    for (const item of splitAt(names, ',')) {
      if (item.length === 0) continue;
      const as = item.findIndex((part) => part.name === 'as');
      const dotted = as >= 0 ? item.slice(0, as) : item;
      if (isFrom && dotted.length !== 1) throw new Unsure('dotted name in from-import');
      const bound = as >= 0 ? item[as + 1] : dotted[0];
      if (bound === undefined || bound.name !== 'VariableName') throw new Unsure('import form');
      this.bind(this.textOf(bound));
    }
  }

  private conditional(parts: SyntaxNode[]) {
    for (const [k, part] of parts.entries()) {
      if (
        (part.name === 'if' || part.name === 'elif' || part.name === 'while') &&
        parts[k + 1]?.name === 'Body'
      )
        throw new Unsure('condition missing');
      if (part.name === 'Body') this.body(part);
      else if (!isPunctuationOrKeyword(part.name)) this.expression(part);
    }
  }

  private forStatement(parts: SyntaxNode[]) {
    if (parts[0]?.name === 'async') throw new Unsure('async for');
    const inAt = parts.findIndex((part) => part.name === 'in');
    const bodyAt = parts.findIndex((part) => part.name === 'Body');
    // pyflakes visits `For` fields in order: the target before the iterable.
    this.targets(parts.slice(1, inAt));
    this.sequence(parts.slice(inAt + 1, bodyAt), false);
    this.body(parts[bodyAt]);
    const rest = parts.slice(bodyAt + 1);
    if (rest.length > 0) {
      if (rest[0]?.name !== 'else' || rest.length !== 2) throw new Unsure('for clauses');
      this.body(rest[1]);
    }
  }

  private handlerNames(node: SyntaxNode | undefined): string[] {
    if (node === undefined) return [];
    if (node.name === 'VariableName') return [this.textOf(node)];
    if (node.name === 'TupleExpression' || node.name === 'ParenthesizedExpression')
      return children(node)
        .filter((child) => child.name === 'VariableName')
        .map((child) => this.textOf(child));
    return [];
  }

  private tryStatement(parts: SyntaxNode[]) {
    interface Clause {
      keyword: string;
      header: SyntaxNode[];
      body: SyntaxNode | undefined;
    }
    const clauses: Clause[] = [];
    let header: SyntaxNode[] = [];
    let keyword = '';
    for (const part of parts) {
      if (part.name === 'Body') {
        clauses.push({ keyword, header, body: part });
        header = [];
      } else if (['try', 'except', 'else', 'finally'].includes(part.name) && header.length === 0)
        keyword = part.name;
      else header.push(part);
    }
    const handlers = clauses.filter((clause) => clause.keyword === 'except');
    const kinds = clauses.map((clause) => clause.keyword).join(' ');
    if (!/^try(?: except)*(?: else)?(?: finally)?$/.test(kinds)) throw new Unsure('try clauses');
    if (handlers.length === 0 && !kinds.endsWith('finally')) throw new Unsure('try alone');
    if (handlers.length === 0 && kinds.includes('else')) throw new Unsure('try else');
    for (const [k, handler] of handlers.entries()) {
      if (handler.header.some((part) => part.name === '*' || part.name === ','))
        throw new Unsure('except* or Python 2 except');
      if (handler.header.length === 0 && k < handlers.length - 1)
        throw new Unsure('bare except not last');
    }
    this.handlers.push(handlers.flatMap((handler) => this.handlerNames(handler.header[0])));
    this.body(clauses[0]?.body);
    this.handlers.pop();
    for (const clause of clauses.slice(1)) {
      if (clause.keyword !== 'except') {
        this.body(clause.body);
        continue;
      }
      const as = clause.header.findIndex((part) => part.name === 'as');
      const nameNode = as >= 0 ? clause.header[as + 1] : undefined;
      const type = as >= 0 ? clause.header.slice(0, as) : clause.header;
      if (nameNode === undefined) {
        this.expressions(type);
        this.body(clause.body);
        continue;
      }
      // The `as` name is bound only inside its block, hiding and then restoring an older binding.
      const name = this.textOf(nameNode);
      const previous = this.scope.names.get(name);
      this.bind(name);
      this.expressions(type);
      this.body(clause.body);
      this.scope.names.delete(name);
      if (previous !== undefined) this.scope.names.set(name, previous);
    }
  }

  private withStatement(parts: SyntaxNode[]) {
    if (parts[0]?.name === 'async') throw new Unsure('async with');
    const bodyAt = parts.findIndex((part) => part.name === 'Body');
    for (const item of splitAt(parts.slice(1, bodyAt), ',')) {
      const as = item.findIndex((part) => part.name === 'as');
      this.expressions(as >= 0 ? item.slice(0, as) : item);
      const name = as >= 0 ? item[as + 1] : undefined;
      if (name !== undefined) this.target(name);
    }
    this.body(parts[bodyAt]);
  }

  private decorators(decorators: SyntaxNode[]) {
    for (const decorator of decorators) {
      // `@a.b.c(args)`: only `a` is a name; lezer marks every part a VariableName.
      const parts = children(decorator);
      const first = parts[1];
      if (first?.name !== 'VariableName') throw new Unsure('decorator');
      this.load(first);
      for (const part of parts) if (part.name === 'ArgList') this.argList(part);
    }
  }

  /** Parameters of a def or lambda: names bound in the body; defaults and annotations read now. */
  private parameters(list: SyntaxNode | undefined): {
    names: string[];
    annotations: SyntaxNode[];
    defaults: SyntaxNode[];
  } {
    if (list === undefined || list.name !== 'ParamList') throw new Unsure('parameters');
    const parts = children(list).filter((part) => part.name !== '(' && part.name !== ')');
    const names: string[] = [];
    const annotations: SyntaxNode[] = [];
    const defaults: SyntaxNode[] = [];
    let seenDefault = false;
    let seenStar = false;
    for (const item of splitAt(parts, ',')) {
      if (item.length === 0) continue;
      let k = 0;
      const head = item[0]?.name;
      if (head === '/') throw new Unsure('positional-only parameters (3.8+)');
      const marker = head === '*' || head === '**' ? head : undefined;
      if (marker !== undefined) {
        k = 1;
        if (marker === '*') seenStar = true;
      }
      const name = item[k];
      if (name?.name !== 'VariableName') throw new Unsure('bare * parameter');
      names.push(this.textOf(name));
      const rest = item.slice(k + 1);
      const typeDef = rest.find((part) => part.name === 'TypeDef');
      if (typeDef !== undefined) annotations.push(typeDef);
      const assign = rest.findIndex((part) => part.name === 'AssignOp');
      if (assign >= 0) {
        const value = rest.slice(assign + 1);
        if (value.length !== 1 || marker !== undefined) throw new Unsure('default');
        defaults.push(...value);
        if (!seenStar) seenDefault = true;
      } else if (seenDefault && !seenStar && marker === undefined)
        throw new Unsure('non-default parameter after default');
    }
    if (new Set(names).size !== names.length) throw new Unsure('duplicate argument (F831)');
    return { names, annotations, defaults };
  }

  private annotation(nodes: SyntaxNode[]) {
    // pyflakes parses strings in annotations as code, and Python 3.14 postpones annotations.
    for (const node of nodes) if (hasAny(node, STRINGS)) throw new Unsure('string annotation');
    const outer = this.inAnnotation;
    this.inAnnotation = true;
    this.expressions(nodes);
    this.inAnnotation = outer;
  }

  private functionDefinition(node: SyntaxNode, decorators: SyntaxNode[]) {
    this.decorators(decorators);
    const parts = children(node);
    const isAsync = parts[0]?.name === 'async';
    if (parts.some((part) => part.name === 'TypeParamList')) throw new Unsure('type parameters');
    const nameNode = parts.find((part) => part.name === 'VariableName');
    const params = this.parameters(parts.find((part) => part.name === 'ParamList'));
    for (const typeDef of params.annotations)
      this.annotation(children(typeDef).filter((part) => part.name !== ':'));
    const returns = parts.find((part) => part.name === 'TypeDef');
    if (returns !== undefined) this.annotation(children(returns));
    this.expressions(params.defaults);
    const body = parts.find((part) => part.name === 'Body');
    this.defer(isAsync, () => {
      for (const name of params.names) this.bind(name);
      this.body(body);
    });
    if (nameNode === undefined) throw new Unsure('def name');
    this.bind(this.textOf(nameNode));
  }

  private defer(isAsync: boolean, run: () => void) {
    const stack = [...this.stack];
    this.deferred.push({
      run: () => {
        this.stack = [...stack, { kind: 'function', names: new Map(), starImport: false }];
        this.inAsync = isAsync;
        run();
      },
      stack,
    });
  }

  private classDefinition(node: SyntaxNode, decorators: SyntaxNode[]) {
    this.decorators(decorators);
    const parts = children(node);
    if (parts.some((part) => part.name === 'TypeParamList')) throw new Unsure('type parameters');
    const args = parts.find((part) => part.name === 'ArgList');
    if (args !== undefined) {
      if (children(args).some((part) => part.name === 'for')) throw new Unsure('class generator');
      this.argList(args);
    }
    this.stack.push({ kind: 'class', names: new Map(), starImport: false });
    this.body(parts.find((part) => part.name === 'Body'));
    this.stack.pop();
    const nameNode = parts.find((part) => part.name === 'VariableName');
    if (nameNode === undefined) throw new Unsure('class name');
    this.bind(this.textOf(nameNode));
  }

  private argList(node: SyntaxNode) {
    const inner = children(node).slice(1, -1);
    if (inner.length === 0) return;
    const items = splitAt(inner, ',');
    if (items.length > 1 && items.at(-1)?.length === 0) items.pop();
    let keywords = false;
    let doubleStar = false;
    const seen = new Set<string>();
    for (const item of items) {
      const [first, second] = item;
      if (first === undefined) throw new Unsure('empty argument');
      if (item.some((part) => part.name === 'for')) {
        if (items.length !== 1) throw new Unsure('unparenthesized generator argument');
        this.comprehension(item);
      } else if (first.name === '**') {
        doubleStar = true;
        this.expressions(item.slice(1));
      } else if (first.name === '*') {
        if (doubleStar) throw new Unsure('* after **');
        this.expressions(item.slice(1));
      } else if (first.name === 'VariableName' && second?.name === 'AssignOp') {
        if (this.textOf(second) !== '=') throw new Unsure('walrus argument');
        const keyword = this.textOf(first);
        if (seen.has(keyword)) throw new Unsure('keyword argument repeated');
        seen.add(keyword);
        keywords = true;
        this.expressions(item.slice(2));
      } else {
        if (keywords || doubleStar) throw new Unsure('positional argument after keyword');
        this.expressions(item);
      }
    }
  }

  /** A comprehension's flat children, `elt for t in it if c for …`, in pyflakes' order. */
  private comprehension(nodes: SyntaxNode[]) {
    if (nodes.some((node) => node.name === 'async')) throw new Unsure('async comprehension');
    const firstFor = nodes.findIndex((node) => node.name === 'for');
    const element = nodes.slice(0, firstFor);
    if (element.some((node) => ['*', '**', 'AssignOp'].includes(node.name)))
      throw new Unsure('starred comprehension element');
    interface Generator {
      target: SyntaxNode[];
      iter: SyntaxNode[];
      conditions: SyntaxNode[][];
    }
    const generators: Generator[] = [];
    let mode: 'target' | 'iter' | 'if' = 'target';
    for (const node of nodes.slice(firstFor)) {
      const current = generators.at(-1);
      if (node.name === 'for') {
        generators.push({ target: [], iter: [], conditions: [] });
        mode = 'target';
      } else if (node.name === 'in' && mode === 'target') mode = 'iter';
      else if (node.name === 'if') {
        current?.conditions.push([]);
        mode = 'if';
      } else if (mode === 'target') current?.target.push(node);
      else if (mode === 'iter') current?.iter.push(node);
      else current?.conditions.at(-1)?.push(node);
    }
    const [first, ...others] = generators;
    if (first === undefined || first.iter.length !== 1) throw new Unsure('comprehension form');
    // The first iterable is evaluated in the enclosing scope.
    this.expressions(first.iter);
    this.stack.push({ kind: 'comprehension', names: new Map(), starImport: false });
    this.targets(first.target);
    for (const condition of first.conditions) this.expressions(condition);
    for (const generator of others) {
      if (generator.iter.length !== 1) throw new Unsure('comprehension form');
      this.targets(generator.target);
      this.expressions(generator.iter);
      for (const condition of generator.conditions) this.expressions(condition);
    }
    const colon = element.findIndex((node) => node.name === ':');
    if (colon >= 0) {
      this.expressions(element.slice(0, colon));
      this.expressions(element.slice(colon + 1));
    } else this.expressions(element);
    this.stack.pop();
  }

  private expression(node: SyntaxNode): void {
    const parts = children(node);
    switch (node.name) {
      case 'VariableName':
        return this.load(node);
      case 'Number':
        if (!NUMBER.test(this.textOf(node))) throw new Unsure('number literal');
        return;
      case 'String':
        return this.checkString(node);
      case 'FormatString':
        return this.formatString(node, parts);
      case 'ContinuedString': {
        const bytes = parts.map((part) => /^[a-zA-Z]*[bB]/.test(this.textOf(part)));
        if (bytes.some((b) => b !== bytes[0])) throw new Unsure('bytes and str concatenated');
        return this.expressions(parts);
      }
      case 'Boolean':
      case 'None':
      case 'Ellipsis':
        return;
      case 'MemberExpression':
        if (parts[1]?.name === '.') return this.expression(parts[0] ?? node);
        if (this.typingImported && parts.slice(1).some((part) => hasAny(part, STRINGS)))
          throw new Unsure('string in a subscript when typing is imported');
        return this.expressions(parts);
      case 'CallExpression': {
        const callee = parts[0];
        const args = parts[1];
        if (callee === undefined || args === undefined) throw new Unsure('call');
        const calleeName = this.textOf(callee).split('.').at(-1) ?? '';
        if (this.typingImported && TYPING_CALLS.has(calleeName) && hasAny(args, STRINGS))
          throw new Unsure('typing call with strings');
        this.expression(callee);
        return this.argList(args);
      }
      case 'BinaryExpression': {
        const comparison = parts.some((part) =>
          ['CompareOp', 'in', 'is', 'not'].includes(part.name),
        );
        const last = parts.at(-1);
        if (comparison && last?.name === 'UnaryExpression' && last.firstChild?.name === 'not')
          throw new Unsure('`not` as a comparison operand');
        if (parts.some((part) => part.name === 'CompareOp' && this.textOf(part) === '<>'))
          throw new Unsure('<>');
        return this.expressions(parts);
      }
      case 'YieldExpression':
        this.outsideFunction(parts);
        return this.expressions(parts);
      case 'UnaryExpression':
      case 'ConditionalExpression':
      case 'AwaitExpression':
      case 'DictionaryExpression':
        if (node.name === 'AwaitExpression' && !this.inAsync)
          throw new Unsure('await outside async def');
        return this.expressions(parts);
      case 'ParenthesizedExpression':
        if (parts.some((part) => part.name === '*')) throw new Unsure('(*x)');
        return this.expressions(parts);
      case 'TupleExpression':
      case 'ArrayExpression':
      case 'SetExpression':
        return this.sequence(parts.slice(1, -1), true);
      case 'LambdaExpression': {
        const params =
          parts[1]?.name === 'ParamList'
            ? this.parameters(parts[1])
            : { names: [], annotations: [], defaults: [] };
        this.expressions(params.defaults);
        const bodyAt = parts.findIndex((part) => part.name === ':');
        const body = parts.slice(bodyAt + 1);
        this.defer(false, () => {
          for (const name of params.names) this.bind(name);
          this.expressions(body);
        });
        return;
      }
      default:
        if (COMPREHENSIONS.has(node.name)) {
          if (node.name === 'DictionaryComprehensionExpression' && parts[1]?.name === '**')
            throw new Unsure('** in a dict comprehension');
          return this.comprehension(parts.slice(1, -1));
        }
        if (isPunctuationOrKeyword(node.name) && parts.length === 0) return;
        if (OPERATOR_LEAVES.has(node.name)) return;
        // Walrus (3.8+), error nodes and anything not listed.
        throw new Unsure(`expression ${node.name}`);
    }
  }

  private checkString(node: SyntaxNode) {
    const text = this.textOf(node);
    const prefix = /^[a-zA-Z]*/.exec(text)?.[0] ?? '';
    const isBytes = /b/i.test(prefix);
    if (isBytes && /[^ -~\t\n\r\f\v]/.test(text)) throw new Unsure('non-ASCII bytes');
    if (/r/i.test(prefix)) return;
    // CPython rejects truncated \x, \u, \U escapes and cannot be checked for \N{…} names here.
    for (const escape of text.matchAll(/\\([\s\S])/g)) {
      const kind = escape[1];
      const at = (escape.index ?? 0) + 2;
      if (kind === 'N') throw new Unsure('named escape');
      const need = kind === 'x' ? 2 : kind === 'u' ? 4 : kind === 'U' ? 8 : 0;
      if (isBytes && (kind === 'u' || kind === 'U')) continue;
      if (
        !/^[0-9a-fA-F]*$/.test(text.slice(at, at + need)) ||
        text.slice(at, at + need).length < need
      )
        throw new Unsure('truncated escape');
    }
  }

  private formatString(node: SyntaxNode, parts: SyntaxNode[]) {
    const text = this.textOf(node);
    if (/\\N/.test(text)) throw new Unsure('named escape in an f-string');
    for (const part of parts) {
      if (part.name === 'FormatReplacement') this.replacement(part);
      else if (part.name !== 'Escape') throw new Unsure(`f-string part ${part.name}`);
    }
  }

  /** A replacement field `{expr!r:spec}`, as Python before 3.12 accepts it. */
  private replacement(node: SyntaxNode) {
    const parts = children(node);
    const expression: SyntaxNode[] = [];
    for (const part of parts.slice(1)) {
      if (part.name === 'FormatSpec') {
        for (const nested of children(part))
          if (nested.name === 'FormatReplacement') this.replacement(nested);
          else if (nested.name !== ':') throw new Unsure('f-string spec');
      } else if (part.name !== 'FormatConversion' && part.name !== '}') expression.push(part);
    }
    const source = this.text.slice(parts[0]?.to ?? node.from, expression.at(-1)?.to ?? node.from);
    if (
      expression.length === 0 ||
      /[\\#'"]/.test(source) ||
      expression.some((part) => part.name === 'FormatSelfDoc' || part.name === 'YieldExpression')
    )
      throw new Unsure('f-string field newer Pythons alone accept');
    this.sequence(expression, true);
  }
}

interface Verdict {
  candidates: Candidate[];
  unsureNames: Set<string>;
}

/** Checks a text lezer parses without error; throws `Unsure` where CPython's answer is not known. */
function checkNames(text: string): Verdict {
  const tree = parser.parse(text);
  let broken = false;
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) broken = true;
      return !broken;
    },
  });
  if (broken) throw new Unsure('syntax error');
  const check = new NameCheck(text);
  check.run(tree.topNode);
  return { candidates: check.candidates, unsureNames: check.unsureNames };
}

/** flake8's errors of the selected codes for a Python file, or null when they cannot be told. */
export function lintPython(text: string): LintError[] | null {
  // `__all__` feeds F822; `noqa` and `# type:` comments change what flake8 or older pyflakes say;
  // a coding cookie or NUL byte changes how the file is read.
  if (/__all__|noqa|#\s*type:|\0/i.test(text)) return null;
  if (/^(?:[^\n]*\n)?[ \t\f]*#.*coding[:=]/.test(text)) return null;
  if (/from\s+__future__\s+import[^\n]*annotations/.test(text)) return null;
  try {
    try {
      logicalLines(text);
    } catch (error) {
      if (!(error instanceof Found)) throw error;
      // CPython reports the first error: sure only when every line before it is valid.
      const lineStart = text
        .split('\n')
        .slice(0, error.error.line - 1)
        .join('\n');
      checkNames(error.error.line > 1 ? `${lineStart}\n` : '');
      return [error.error];
    }
    const { candidates, unsureNames } = checkNames(text);
    if (candidates.some((candidate) => unsureNames.has(candidate.name))) return null;
    return candidates
      .toSorted((a, b) => a.line - b.line || a.col - b.col)
      .map((use) => ({
        line: use.line,
        col: use.col,
        problem: `F821 undefined name '${use.name}'`,
      }));
  } catch (error) {
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
