import Anser from 'anser';
import {
  TerminalGrid,
  encodeCursorSequences,
  type TerminalCell,
  stripInvisibleEscapes,
} from '@terrarium/schema';
import type { CSSProperties } from 'react';

export interface AnsiSegment {
  text: string;
  style: CSSProperties;
}

/** One line of terminal output as coloured segments (no newline characters inside). */
export type AnsiLine = AnsiSegment[];

function rgb(triplet: string | null): string | undefined {
  return triplet ? `rgb(${triplet})` : undefined;
}

function styleOf(entry: Anser.AnserJsonEntry): CSSProperties {
  const decorations = entry.decorations;
  const reversed = decorations.includes('reverse');
  const foreground = rgb(entry.fg_truecolor || entry.fg);
  const background = rgb(entry.bg_truecolor || entry.bg);
  const style: CSSProperties = {};
  const color = reversed ? (background ?? 'var(--terminal-bg)') : foreground;
  const backgroundColor = reversed ? (foreground ?? 'var(--terminal-fg)') : background;
  if (color) style.color = color;
  if (backgroundColor) style.backgroundColor = backgroundColor;
  if (decorations.includes('bold')) style.fontWeight = 'bold';
  if (decorations.includes('dim')) style.opacity = 0.7;
  if (decorations.includes('italic')) style.fontStyle = 'italic';
  const lines = [
    decorations.includes('underline') ? 'underline' : '',
    decorations.includes('strikethrough') ? 'line-through' : '',
  ].filter((line) => line !== '');
  if (lines.length > 0) style.textDecoration = lines.join(' ');
  if (decorations.includes('hidden')) style.visibility = 'hidden';
  return style;
}

// Overwriting is only needed when output moves the cursor back; plain output keeps the fast path.
// oxlint-disable-next-line no-control-regex -- matching terminal control characters is the point
const NEEDS_CURSOR = /[\r\b\t\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f]|\u001b\[\d*[CDK]/;

const BLANK: CSSProperties = {};

function segmentsOf(cells: readonly TerminalCell<CSSProperties>[]): AnsiLine {
  const line: AnsiLine = [];
  for (const cell of cells) {
    const last = line[line.length - 1];
    if (last !== undefined && last.style === cell.style) last.text += cell.char;
    else line.push({ text: cell.char, style: cell.style });
  }
  return line;
}

/**
 * Splits terminal output into lines of styled text segments, as a terminal would show it
 * (`TerminalGrid` in @terrarium/schema, which search indexes and quotes with the same rules). Anser
 * only parses the colour codes here; its HTML output is never used, so content stays text.
 */
export function ansiToLines(content: string): AnsiLine[] {
  const visible = stripInvisibleEscapes(content);
  const entries = Anser.ansiToJson(encodeCursorSequences(visible), {
    json: true,
    remove_empty: true,
  });
  if (!NEEDS_CURSOR.test(visible)) return splitLines(entries);
  const grid = new TerminalGrid<CSSProperties>(BLANK);
  // Entries with the same colours get the same style object, so segments merge across entries.
  const styles = new Map<string, CSSProperties>();
  for (const entry of entries) {
    const style = styleOf(entry);
    const key = JSON.stringify(style);
    const shared = styles.get(key) ?? style;
    styles.set(key, shared);
    grid.write(entry.content, Object.keys(shared).length === 0 ? BLANK : shared);
  }
  return grid.lines.map(segmentsOf);
}

function splitLines(entries: readonly Anser.AnserJsonEntry[]): AnsiLine[] {
  const lines: AnsiLine[] = [[]];
  for (const entry of entries) {
    const style = styleOf(entry);
    const pieces = entry.content.split('\n');
    pieces.forEach((piece, position) => {
      if (position > 0) lines.push([]);
      const line = lines[lines.length - 1];
      if (piece !== '' && line) line.push({ text: piece, style });
    });
  }
  return lines;
}
