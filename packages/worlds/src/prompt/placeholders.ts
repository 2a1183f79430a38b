/**
 * A logic-less template language: `{{name}}` is replaced by a value, `{{#name}}…{{/name}}` keeps
 * its inside only when the value is not empty, `{{^name}}…{{/name}}` only when it is. Values are
 * inserted verbatim and never read as template text, so a `{{` inside an observation stays as is.
 */

type Node =
  | { type: 'text'; text: string }
  | { type: 'value'; name: string }
  | { type: 'section'; name: string; inverted: boolean; children: Node[] };

const TAG = /\{\{\s*([#^/]?)\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g;

export class TemplateSyntaxError extends Error {
  override name = 'TemplateSyntaxError';
}

export function parseTemplate(template: string): Node[] {
  const root: Node[] = [];
  const stack: { name: string; children: Node[] }[] = [];
  let current = root;
  let last = 0;
  for (const match of template.matchAll(TAG)) {
    const [tag, sigil = '', name = ''] = match;
    if (match.index > last) current.push({ type: 'text', text: template.slice(last, match.index) });
    last = match.index + tag.length;
    if (sigil === '') {
      current.push({ type: 'value', name });
    } else if (sigil === '/') {
      const open = stack.pop();
      if (open === undefined || open.name !== name) {
        throw new TemplateSyntaxError(
          `{{/${name}}} at offset ${match.index} closes ${open === undefined ? 'no open section' : `{{#${open.name}}}`}`,
        );
      }
      current = stack.at(-1)?.children ?? root;
    } else {
      const section: Node = { type: 'section', name, inverted: sigil === '^', children: [] };
      current.push(section);
      stack.push({ name, children: section.children });
      current = section.children;
    }
  }
  const unclosed = stack.at(-1);
  if (unclosed !== undefined)
    throw new TemplateSyntaxError(`{{#${unclosed.name}}} is never closed`);
  if (last < template.length) current.push({ type: 'text', text: template.slice(last) });
  return root;
}

/** Every placeholder name the template uses. */
export function placeholdersOf(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(TAG)) if (match[2] !== undefined) names.add(match[2]);
  return [...names];
}

export type CompiledTemplate = (values: Readonly<Record<string, string>>) => string;

/** Parses once; the returned function fills the template with values. */
export function compileTemplate(template: string): CompiledTemplate {
  const nodes = parseTemplate(template);
  return (values) => renderNodes(nodes, values);
}

export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return compileTemplate(template)(values);
}

function renderNodes(nodes: Node[], values: Readonly<Record<string, string>>): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text') out += node.text;
    else if (node.type === 'value') out += values[node.name] ?? '';
    else {
      const present = (values[node.name] ?? '') !== '';
      if (present !== node.inverted) out += renderNodes(node.children, values);
    }
  }
  return out;
}
