import { useState, type ReactNode } from 'react';
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

function Primitive({ value }: { value: unknown }) {
  if (typeof value === 'string') return <span className="json-string">"{value}"</span>;
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
}: {
  entries: Entry[];
  depth: number;
  expandDepth: number;
}) {
  if (entries.length <= JSON_CHUNK_SIZE) {
    return (
      <ul className="json-children">
        {entries.map(([key, child]) => (
          <li key={key}>
            <JsonNode name={key} value={child} depth={depth} expandDepth={expandDepth} />
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
}: {
  first: number;
  entries: Entry[];
  depth: number;
  expandDepth: number;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Toggle open={open} onToggle={() => setOpen(!open)}>
        <span className="json-chunk">
          [{first} … {first + entries.length - 1}]
        </span>
      </Toggle>
      {open && <Children entries={entries} depth={depth} expandDepth={expandDepth} />}
    </>
  );
}

function JsonNode({
  name,
  value,
  depth,
  expandDepth,
}: {
  name: string | null;
  value: unknown;
  depth: number;
  expandDepth: number;
}) {
  const [open, setOpen] = useState(depth < expandDepth);
  const entries = entriesOf(value);
  const label = name === null ? null : <span className="json-key">{name}: </span>;
  if (entries === null) {
    return (
      <span className="json-leaf">
        {label}
        <Primitive value={value} />
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
      {open && <Children entries={entries} depth={depth + 1} expandDepth={expandDepth} />}
    </>
  );
}

/**
 * A collapsible JSON tree that renders a node's children only once it is expanded; arrays and
 * objects with more than 100 children open into groups of 100.
 */
export function JsonTree({ value, expandDepth = 1 }: { value: unknown; expandDepth?: number }) {
  return (
    <div className="json-tree">
      <JsonNode name={null} value={value} depth={0} expandDepth={expandDepth} />
    </div>
  );
}
