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

/**
 * Splits terminal output into lines of styled text segments. Anser only parses the escape codes
 * here; its HTML output is never used, so content stays text.
 */
export function ansiToLines(content: string): AnsiLine[] {
  const lines: AnsiLine[] = [[]];
  for (const entry of Anser.ansiToJson(content, { json: true, remove_empty: true })) {
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
