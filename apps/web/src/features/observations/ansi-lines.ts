import Anser from 'anser';
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

// OSC sequences (ESC ] … BEL or ESC ] … ESC \\): window titles and OSC 8 hyperlinks. Anser does not
// parse them, and their payload (a URL) must neither show as garbage nor ever become a link.
// oxlint-disable-next-line no-control-regex -- matching terminal escape codes is the point here
const OSC_SEQUENCE = /\u001b\][\s\S]*?(?:\u0007|\u001b\\)/g;

function stripOperatingSystemCommands(content: string): string {
  return content.replace(OSC_SEQUENCE, '');
}

// Cursor movement and erasing (CSI … C/D/K). Anser drops every CSI sequence but colours, so they are
// turned into private-use characters first and then played on a line as a terminal would.
// oxlint-disable-next-line no-control-regex -- matching terminal escape codes is the point here
const CURSOR_SEQUENCE = /\u001b\[(\d*)([CDK])/g;
const CURSOR_LEFT = '\uE000';
const CURSOR_RIGHT = '\uE001';
const ERASE_TO_END = '\uE002';
const ERASE_LINE = '\uE003';
// Overwriting is only needed when output moves the cursor back; plain output keeps the fast path.
// oxlint-disable-next-line no-control-regex -- matching terminal control characters is the point
const NEEDS_CURSOR = /[\r\b\t\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f]|\u001b\[\d*[CDK]/;
const TAB_WIDTH = 8;

function encodeCursorSequences(content: string): string {
  return content.replace(CURSOR_SEQUENCE, (_, count: string, command: string) => {
    const times = Math.max(1, Number(count || '1'));
    if (command === 'D') return CURSOR_LEFT.repeat(times);
    if (command === 'C') return CURSOR_RIGHT.repeat(times);
    // ESC[K / ESC[0K erase to the end of the line, ESC[2K the whole line (ESC[1K: treated as 2K).
    return count === '' || count === '0' ? ERASE_TO_END : ERASE_LINE;
  });
}

interface Cell {
  char: string;
  style: CSSProperties;
}

const BLANK: CSSProperties = {};

/** Plays text on a grid of lines as a terminal does: `\r`, `\b` and cursor moves overwrite. */
class TerminalGrid {
  readonly lines: Cell[][] = [[]];
  private column = 0;

  write(text: string, style: CSSProperties): void {
    for (const char of text) this.put(char, style);
  }

  private get line(): Cell[] {
    const line = this.lines[this.lines.length - 1];
    if (line === undefined) throw new Error('the grid always has a line');
    return line;
  }

  private put(char: string, style: CSSProperties): void {
    switch (char) {
      case '\n':
        this.lines.push([]);
        this.column = 0;
        return;
      case '\r':
        this.column = 0;
        return;
      case '\b':
      case CURSOR_LEFT:
        this.column = Math.max(0, this.column - 1);
        return;
      case CURSOR_RIGHT:
        this.column++;
        return;
      case '\t':
        this.column = (Math.floor(this.column / TAB_WIDTH) + 1) * TAB_WIDTH;
        return;
      case ERASE_TO_END:
        this.line.length = Math.min(this.line.length, this.column);
        return;
      case ERASE_LINE:
        this.line.length = 0;
        return;
    }
    // Other control characters (bell, NUL, DEL…) have no glyph: a terminal shows nothing.
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) return;
    const line = this.line;
    while (line.length < this.column) line.push({ char: ' ', style: BLANK });
    line[this.column] = { char, style };
    this.column++;
  }
}

function segmentsOf(cells: readonly Cell[]): AnsiLine {
  const line: AnsiLine = [];
  for (const cell of cells) {
    const last = line[line.length - 1];
    if (last !== undefined && last.style === cell.style) last.text += cell.char;
    else line.push({ text: cell.char, style: cell.style });
  }
  return line;
}

/**
 * Splits terminal output into lines of styled text segments, as a terminal would show it: a carriage
 * return, a backspace or a cursor-left sequence moves back and the next characters overwrite (progress
 * bars, spinners, `less`-style bold), tabs go to the next multiple of 8, control characters without a
 * glyph are dropped. Anser only parses the colour codes here; its HTML output is never used, so
 * content stays text.
 */
export function ansiToLines(content: string): AnsiLine[] {
  const visible = stripOperatingSystemCommands(content);
  const entries = Anser.ansiToJson(encodeCursorSequences(visible), {
    json: true,
    remove_empty: true,
  });
  if (!NEEDS_CURSOR.test(visible)) return splitLines(entries);
  const grid = new TerminalGrid();
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
