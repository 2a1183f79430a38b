/**
 * Terminal output as a terminal shows it. The viewer draws observations this way (with colours),
 * and search indexes and quotes the same text, so a phrase the user reads on screen is the phrase
 * search finds: `\x1b[33mprivate argument` must match "private argument", and a spinner's
 * `-\b \b\\\b \bdone` must read `done`, not show backspaces.
 */

// oxlint-disable no-control-regex -- matching terminal escape codes and control characters is the point here

// OSC sequences (ESC ] … BEL or ESC ] … ESC \): window titles and OSC 8 hyperlinks. Their payload
// (a title, a URL) is never shown by a terminal.
const OSC_SEQUENCE = /\u001b\][\s\S]*?(?:\u0007|\u001b\\)/g;

// Cursor movement and erasing (CSI … C/D/K), played on the grid: they are turned into private-use
// characters first, so the rest of the text can be written as it comes.
const CURSOR_SEQUENCE = /\u001b\[(\d*)([CDK])/g;
export const CURSOR_LEFT = '\uE000';
export const CURSOR_RIGHT = '\uE001';
export const ERASE_TO_END = '\uE002';
export const ERASE_LINE = '\uE003';

// Every other escape sequence (colours, modes, cursor visibility, character sets): no glyph. A CSI
// sequence is ESC [, parameters, intermediates and a final byte; any other is ESC, intermediates
// and a final byte (ECMA-48), e.g. `ESC ( B` or `ESC 7`.
const OTHER_ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|[ -/]*[0-~])?/g;

// Text without control characters other than tab and newline reads the same on a terminal.
const HAS_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;
// Only these move the cursor back; without them a line is written left to right.
const MOVES_BACK = /[\r\b\t\uE000-\uE003]/;

const CRLF = /\r+\n/g;
const GLYPHLESS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
const GLYPHLESS_CHAR = /^[\u0000-\u0008\u000b-\u001f\u007f]$/;

const TAB_WIDTH = 8;

/** Removes OSC sequences (titles, hyperlinks), whose payload a terminal never shows. */
export function stripOperatingSystemCommands(content: string): string {
  return content.replace(OSC_SEQUENCE, '');
}

/** Turns CSI cursor moves and erasures into the private-use characters `TerminalGrid` plays. */
export function encodeCursorSequences(content: string): string {
  return content.replace(CURSOR_SEQUENCE, (_, count: string, command: string) => {
    const times = Math.max(1, Number(count || '1'));
    if (command === 'D') return CURSOR_LEFT.repeat(times);
    if (command === 'C') return CURSOR_RIGHT.repeat(times);
    // ESC[K / ESC[0K erase to the end of the line, ESC[2K the whole line (ESC[1K: treated as 2K).
    return count === '' || count === '0' ? ERASE_TO_END : ERASE_LINE;
  });
}

/** Whether writing `text` on a grid can overwrite what was written (else lines can be split). */
export function movesCursorBack(text: string): boolean {
  return MOVES_BACK.test(text);
}

export interface TerminalCell<Style> {
  char: string;
  style: Style;
}

/**
 * Lines of cells written as a terminal writes them: `\r`, `\b` and cursor-left move back and the next
 * characters overwrite (progress bars, spinners, `less`-style bold), tabs go to the next multiple of
 * 8, control characters without a glyph are dropped. `Style` is whatever the caller draws with
 * (colours in the viewer, nothing for search).
 */
export class TerminalGrid<Style> {
  readonly lines: TerminalCell<Style>[][] = [[]];
  private column = 0;

  constructor(private readonly blank: Style) {}

  write(text: string, style: Style): void {
    for (const char of text) this.put(char, style);
  }

  private get line(): TerminalCell<Style>[] {
    const line = this.lines[this.lines.length - 1];
    if (line === undefined) throw new Error('the grid always has a line');
    return line;
  }

  private put(char: string, style: Style): void {
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
    while (line.length < this.column) line.push({ char: ' ', style: this.blank });
    line[this.column] = { char, style };
    this.column++;
  }
}

/**
 * The text a terminal shows for `content`: escape sequences gone, overwrites played, lines joined by
 * `\n`. Text without control characters (but tab and newline) is returned as it is.
 */
export function terminalText(content: string): string {
  if (!HAS_CONTROL.test(content)) return content;
  // `\r\n` (a pty's line end) moves to the start of the line and then down: a plain newline.
  const unixLines = content.replace(CRLF, '\n');
  if (!HAS_CONTROL.test(unixLines)) return unixLines;
  const visible = encodeCursorSequences(stripOperatingSystemCommands(unixLines)).replace(
    OTHER_ESCAPE,
    '',
  );
  if (!movesCursorBack(visible)) return visible.replace(GLYPHLESS, '');
  return visible
    .split('\n')
    .map((line) => (movesCursorBack(line) ? playLine(line) : line.replace(GLYPHLESS, '')))
    .join('\n');
}

/** One line played as `TerminalGrid` plays it, characters only (search needs no styles). */
function playLine(line: string): string {
  const cells: string[] = [];
  let column = 0;
  for (const char of line) {
    switch (char) {
      case '\r':
        column = 0;
        continue;
      case '\b':
      case CURSOR_LEFT:
        column = Math.max(0, column - 1);
        continue;
      case CURSOR_RIGHT:
        column++;
        continue;
      case '\t':
        column = (Math.floor(column / TAB_WIDTH) + 1) * TAB_WIDTH;
        continue;
      case ERASE_TO_END:
        cells.length = Math.min(cells.length, column);
        continue;
      case ERASE_LINE:
        cells.length = 0;
        continue;
    }
    if (GLYPHLESS_CHAR.test(char)) continue;
    while (cells.length < column) cells.push(' ');
    cells[column] = char;
    column++;
  }
  return cells.join('');
}
