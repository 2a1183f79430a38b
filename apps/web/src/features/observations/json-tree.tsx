import { useMemo, useState, type ReactNode } from 'react';
import { holdsMark, MarkedText } from './marked-text';
import { isPlainObject } from './json-value';

/** Children of a big array or object are grouped so that expanding it renders at most this many. */
export const JSON_CHUNK_SIZE = 100;

type Entry = [key: string, value: unknown];

function entriesOf(value: unknown): Entry[] | null {
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    return items.map((item, index) => [String(index), item]);
  }
  if (isPlainObject(value)) return Object.entries(value);
  return null;
}

/** What the tree marks: words a search matched, as `markPattern` finds them. */
interface Marks {
  words: readonly string[];
  /** Whether a node's key or anything under it holds a word: such a node opens by itself. */
  holds(key: string | null, value: unknown): boolean;
}

const NO_MARKS: Marks = { words: [], holds: () => false };

function marksOf(words: readonly string[]): Marks {
  if (words.length === 0) return NO_MARKS;
  const inText = (text: string) => holdsMark(text, words);
  // Per value, once: a deep tree is asked about each of its nodes as they open.
  const seen = new WeakMap<object, boolean>();
  const holdsValue = (value: unknown): boolean => {
    if (typeof value === 'string') return inText(value);
    if (typeof value === 'number' || typeof value === 'boolean') return inText(String(value));
    if (typeof value !== 'object' || value === null) return false;
    const known = seen.get(value);
    if (known !== undefined) return known;
    const entries = entriesOf(value) ?? [];
    const found = entries.some(([key, child]) => inText(key) || holdsValue(child));
    seen.set(value, found);
    return found;
  };
  return {
    words,
    holds: (key, value) => (key !== null && inText(key)) || holdsValue(value),
  };
}

function Primitive({ value, marks }: { value: unknown; marks: Marks }) {
  if (typeof value === 'string') {
    return (
      <span className="json-string">
        "<MarkedText text={value} words={marks.words} />"
      </span>
    );
  }
  if (typeof value === 'number') return <span className="json-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="json-boolean">{String(value)}</span>;
  if (value === null) return <span className="json-null">null</span>;
  return <span className="json-null">{String(value)}</span>;
}

function Toggle({
  open,
  onToggle,
  children,
}: {
  open: boolean;
  onToggle(): void;
  children: ReactNode;
}) {
  return (
    <button type="button" className="json-toggle" aria-expanded={open} onClick={onToggle}>
      <span className="disclosure" aria-hidden="true">
        {open ? '▾' : '▸'}
      </span>
      {children}
    </button>
  );
}

function Children({
  entries,
  depth,
  expandDepth,
  marks,
}: {
  entries: Entry[];
  depth: number;
  expandDepth: number;
  marks: Marks;
}) {
  if (entries.length <= JSON_CHUNK_SIZE) {
    return (
      <ul className="json-children">
        {entries.map(([key, child]) => (
          <li key={key}>
            <JsonNode
              name={key}
              value={child}
              depth={depth}
              expandDepth={expandDepth}
              marks={marks}
            />
          </li>
        ))}
      </ul>
    );
  }
  const chunks: Entry[][] = [];
  for (let start = 0; start < entries.length; start += JSON_CHUNK_SIZE) {
    chunks.push(entries.slice(start, start + JSON_CHUNK_SIZE));
  }
  return (
    <ul className="json-children">
      {chunks.map((chunk, position) => (
        <li key={position}>
          <JsonChunk
            first={position * JSON_CHUNK_SIZE}
            entries={chunk}
            depth={depth}
            expandDepth={expandDepth}
            marks={marks}
          />
        </li>
      ))}
    </ul>
  );
}

function JsonChunk({
  first,
  entries,
  depth,
  expandDepth,
  marks,
}: {
  first: number;
  entries: Entry[];
  depth: number;
  expandDepth: number;
  marks: Marks;
}) {
  const [open, setOpen] = useState(() => entries.some(([key, child]) => marks.holds(key, child)));
  return (
    <>
      <Toggle open={open} onToggle={() => setOpen(!open)}>
        <span className="json-chunk">
          [{first} … {first + entries.length - 1}]
        </span>
      </Toggle>
      {open && <Children entries={entries} depth={depth} expandDepth={expandDepth} marks={marks} />}
    </>
  );
}

function JsonNode({
  name,
  value,
  depth,
  expandDepth,
  marks,
}: {
  name: string | null;
  value: unknown;
  depth: number;
  expandDepth: number;
  marks: Marks;
}) {
  const [open, setOpen] = useState(() => depth < expandDepth || marks.holds(null, value));
  const entries = entriesOf(value);
  const label =
    name === null ? null : (
      <span className="json-key">
        <MarkedText text={name} words={marks.words} />:{' '}
      </span>
    );
  if (entries === null) {
    return (
      <span className="json-leaf">
        {label}
        <Primitive value={value} marks={marks} />
      </span>
    );
  }
  const isArray = Array.isArray(value);
  const brackets = isArray ? '[…]' : '{…}';
  const size = `${entries.length} ${isArray ? (entries.length === 1 ? 'item' : 'items') : entries.length === 1 ? 'key' : 'keys'}`;
  if (entries.length === 0) {
    return (
      <span className="json-leaf">
        {label}
        <span className="json-null">{isArray ? '[]' : '{}'}</span>
      </span>
    );
  }
  return (
    <>
      <Toggle open={open} onToggle={() => setOpen(!open)}>
        {label}
        <span className="json-bracket">{brackets}</span> <span className="json-size">{size}</span>
      </Toggle>
      {open && (
        <Children entries={entries} depth={depth + 1} expandDepth={expandDepth} marks={marks} />
      )}
    </>
  );
}

/**
 * A collapsible JSON tree that renders a node's children only once it is expanded; arrays and
 * objects with more than 100 children open into groups of 100. With `marks` (words a search
 * matched), the nodes that hold one open by themselves, down to it, and each is marked.
 */
export function JsonTree({
  value,
  expandDepth = 1,
  marks = NO_WORDS,
}: {
  value: unknown;
  expandDepth?: number;
  marks?: readonly string[];
}) {
  const marked = useMemo(() => marksOf(marks), [marks]);
  return (
    <div className="json-tree">
      <JsonNode name={null} value={value} depth={0} expandDepth={expandDepth} marks={marked} />
    </div>
  );
}

const NO_WORDS: readonly string[] = [];
