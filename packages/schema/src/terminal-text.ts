/**
 * Terminal output as a terminal shows it. The viewer draws observations this way (with colours),
 * and search indexes and quotes the same text, so a phrase the user reads on screen is the phrase
 * search finds: `\x1b[33mprivate argument` must match "private argument", and a spinner's
 * `-\b \b\\\b \bdone` must read `done`, not show backspaces.
 */

// oxlint-disable no-control-regex -- matching terminal escape codes and control characters is the point here

// OSC sequences (ESC ] … BEL or ESC ] … ESC \): window titles and OSC 8 hyperlinks. Their payload
// (a title, a URL) is never shown by a terminal.
// The payload holds no ESC, BEL or newline and is at most 4,096 characters: an unterminated
// sequence then costs one short scan (not one to the end of the output per sequence) and a stray
// bell further on cannot swallow the lines between.
const OSC_SEQUENCE = /\u001b\][^\u0007\u001b\n]{0,4096}(?:\u0007|\u001b\\)/g;

// Cursor movement and erasing (CSI … C/D/K), played on the grid: they are turned into private-use
// characters first, so the rest of the text can be written as it comes.
const CURSOR_SEQUENCE = /\u001b\[(\d*)([CDK])/g;
const CURSOR_LEFT = '\uE000';
const CURSOR_RIGHT = '\uE001';
const ERASE_TO_END = '\uE002';
const ERASE_LINE = '\uE003';
// A count past any screen's width moves no further (see encodeCursorSequences).
const MAX_CURSOR_MOVE = 1000;

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

const TAB_WIDTH = 8;

// Escape sequences other than CSI (`ESC ( B` from `tput sgr0`, `ESC =`, `ESC 7`): no glyph.
const NON_CSI_ESCAPE = /\u001b(?!\[)[ -/]*[0-~]/g;
// SGR with colon-separated parameters (`ESC[38:5:196m`), read as the semicolon form.
const COLON_SGR = /\u001b\[([0-9:;]*:[0-9:;]*)m/g;

/**
 * Removes what a terminal never shows before colours are parsed: OSC sequences (titles,
 * hyperlinks) and the escapes that are not CSI, and writes colon-separated colours with
 * semicolons. The viewer's colour parser (Anser) knows only the CSI semicolon form; without this
 * it showed `(B` or `38:5:196m` as text where search, which drops every escape, indexed nothing.
 */
export function stripInvisibleEscapes(content: string): string {
  if (!content.includes('\u001b')) return content;
  return content
    .replace(OSC_SEQUENCE, '')
    .replace(NON_CSI_ESCAPE, '')
    .replace(COLON_SGR, (_, parameters: string) => `\u001b[${parameters.replaceAll(':', ';')}m`);
}

/** Turns CSI cursor moves and erasures into the private-use characters `TerminalGrid` plays. */
export function encodeCursorSequences(content: string): string {
  return content.replace(CURSOR_SEQUENCE, (_, count: string, command: string) => {
    // A terminal stops at its edge; a count past any screen's width (`ESC[999999999C`) must not
    // build a line of that length.
    const times = Math.min(MAX_CURSOR_MOVE, Math.max(1, Number(count || '1')));
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

// Where moving right stops on a line no longer than this: a terminal's edge. Without it,
// `ESC[1000C` repeated would pad a line with spaces without end.
const SCREEN_WIDTH = 1000;

/**
 * Plays one character (not a newline) on a line of cells as a terminal does and returns the
 * column after it: `\r`, `\b` and cursor-left move back and what follows overwrites (progress
 * bars, spinners, `less`-style bold); tabs go to the next multiple of 8; erasing cuts the line;
 * control characters without a glyph (bell, NUL, DEL…) show nothing. The one place both the
 * viewer's grid and search's text play a line.
 */
function playOn<Cell>(
  cells: Cell[],
  column: number,
  char: string,
  cell: Cell,
  blank: Cell,
): number {
  const edge = Math.max(cells.length, SCREEN_WIDTH);
  switch (char) {
    case '\r':
      return 0;
    case '\b':
    case CURSOR_LEFT:
      return Math.max(0, column - 1);
    case CURSOR_RIGHT:
      return Math.min(column + 1, edge);
    case '\t':
      return Math.min((Math.floor(column / TAB_WIDTH) + 1) * TAB_WIDTH, edge);
    case ERASE_TO_END:
      cells.length = Math.min(cells.length, column);
      return column;
    case ERASE_LINE:
      cells.length = 0;
      return column;
  }
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) return column;
  while (cells.length < column) cells.push(blank);
  cells[column] = cell;
  return column + 1;
}

/**
 * Lines of cells written as a terminal writes them (`playOn`). `Style` is whatever the caller
 * draws with (colours in the viewer).
 */
export class TerminalGrid<Style> {
  readonly lines: TerminalCell<Style>[][] = [[]];
  private column = 0;
  private readonly blank: TerminalCell<Style>;

  constructor(blank: Style) {
    this.blank = { char: ' ', style: blank };
  }

  write(text: string, style: Style): void {
    for (const char of text) {
      if (char === '\n') {
        this.lines.push([]);
        this.column = 0;
        continue;
      }
      const line = this.lines[this.lines.length - 1];
      if (line === undefined) throw new Error('the grid always has a line');
      this.column = playOn(line, this.column, char, { char, style }, this.blank);
    }
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
  const visible = encodeCursorSequences(stripInvisibleEscapes(unixLines)).replace(OTHER_ESCAPE, '');
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
  for (const char of line) column = playOn(cells, column, char, char, ' ');
  return cells.join('');
}
