// Terminal control sequences: CSI (colours, cursor moves), OSC (titles, links) and two-byte escapes.
const ANSI_ESCAPE =
  // oxlint-disable-next-line no-control-regex -- matching the ESC byte is the point of this pattern
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.includes('\u001b') ? text.replace(ANSI_ESCAPE, '') : text;
}

export function toLineFeeds(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/**
 * Text as scoring compares it: line feeds only, no escape sequences. Not what a terminal shows
 * (`terminalText` in @terrarium/schema plays `\r` and `\b` overwrites, for the viewer and search):
 * here a `\r` is a line feed, so every frame of a progress bar counts.
 */
export function scoringText(text: string): string {
  return stripAnsi(toLineFeeds(text));
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
