import { isMap, isNode, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { RuleSet } from './rule-set';

/** One problem in a rule set document, placed where an editor can underline it. */
export interface RuleSetIssue {
  /** Dotted path of the field, e.g. `rules.2.threshold`; empty for the document as a whole. */
  field: string;
  message: string;
  /** 1-based, of the field's value (or of the nearest enclosing node that exists). */
  line: number;
  column: number;
}

export type RuleSetParse = { ok: true; ruleSet: RuleSet } | { ok: false; issues: RuleSetIssue[] };

/**
 * Parses a rule set written as YAML or JSON (JSON is read by the YAML parser too, so both get
 * positions) and validates it. Syntax errors and schema errors come back the same way.
 */
export function parseRuleSet(text: string): RuleSetParse {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((error) => {
        const position = lineCounter.linePos(error.pos[0]);
        return { field: '', message: error.message, line: position.line, column: position.col };
      }),
    };
  }
  return validateRuleSet(doc.toJS(), (path, key) => {
    const offset = (key === undefined ? null : keyOffset(doc, path, key)) ?? offsetOf(doc, path);
    const position = lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  });
}

/**
 * Where the field at `path` is in a rule set's text (1-based), for issues found after parsing (a
 * custom rule the sandbox refused); 0:0 if the text does not parse.
 */
export function locateRuleSetField(
  text: string,
  path: readonly PropertyKey[],
): { line: number; column: number } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) return { line: 0, column: 0 };
  const position = lineCounter.linePos(offsetOf(doc, path));
  return { line: position.line, column: position.col };
}

/** Validates an already parsed value (an inline rule set in a request); positions are 0 there. */
export function validateRuleSet(
  value: unknown,
  place: Placer = () => ({ line: 0, column: 0 }),
): RuleSetParse {
  const parsed = RuleSet.safeParse(value);
  if (parsed.success) return { ok: true, ruleSet: parsed.data };
  return { ok: false, issues: issuesOf(parsed.error, place) };
}

/** Where a field is: the value at `path`, or with `key` the unknown key of the object at `path`. */
type Placer = (path: readonly PropertyKey[], key?: string) => { line: number; column: number };

function issuesOf(error: z.ZodError, place: Placer): RuleSetIssue[] {
  return error.issues.map((issue) => {
    // An unknown key is reported on its object; point at the key itself.
    const key = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const path = key === undefined ? issue.path : [...issue.path, key];
    return {
      field: path.map(String).join('.'),
      message: issue.message,
      ...place(issue.path, key),
    };
  });
}

function keyOffset(doc: Document, path: readonly PropertyKey[], key: string): number | null {
  const parent = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (!isMap(parent)) return null;
  for (const pair of parent.items)
    if (isScalar(pair.key) && pair.key.value === key && pair.key.range) return pair.key.range[0];
  return null;
}

/** Offset of the deepest node on `path` that exists (a missing field points at its parent). */
function offsetOf(doc: Document, path: readonly PropertyKey[]): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return 0;
}

/** A rule set as the error message a CLI or HTTP client reads: `rules.1.metric (3:13): …`. */
export function formatRuleSetIssues(issues: readonly RuleSetIssue[]): string {
  return issues
    .map((issue) => {
      const where = issue.line > 0 ? ` (${issue.line}:${issue.column})` : '';
      return `${issue.field || 'document'}${where}: ${issue.message}`;
    })
    .join('; ');
}
