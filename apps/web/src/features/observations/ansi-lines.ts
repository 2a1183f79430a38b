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

/**
 * Splits terminal output into lines of styled text segments. Anser only parses the escape codes
 * here; its HTML output is never used, so content stays text.
 */
export function ansiToLines(content: string): AnsiLine[] {
  const lines: AnsiLine[] = [[]];
  for (const entry of Anser.ansiToJson(stripOperatingSystemCommands(content), {
    json: true,
    remove_empty: true,
  })) {
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
