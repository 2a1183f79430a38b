import { Fragment, useMemo } from 'react';
import { ansiToLines, type AnsiLine } from './ansi-lines';
import { LineBlocks } from './line-blocks';
import { firstMarkedLine, MarkedText } from './marked-text';
import { VIRTUALIZE_ABOVE_LINES, VirtualLines } from './virtual-lines';

/** Nothing to mark. */
const NO_MARKS: readonly string[] = [];

function Segments({ line, marks }: { line: AnsiLine; marks: readonly string[] }) {
  return (
    <>
      {line.map((segment, position) =>
        Object.keys(segment.style).length === 0 ? (
          <Fragment key={position}>
            <MarkedText text={segment.text} words={marks} />
          </Fragment>
        ) : (
          <span key={position} style={segment.style}>
            <MarkedText text={segment.text} words={marks} />
          </span>
        ),
      )}
    </>
  );
}

/** Terminal output with its ANSI colours, as React text nodes in styled spans (laid out as PlainText is). */
export function AnsiText({
  content,
  marks = NO_MARKS,
}: {
  content: string;
  /** Words a search matched, marked where a coloured run of text holds them. */
  marks?: readonly string[];
}) {
  const lines = useMemo(() => ansiToLines(content), [content]);
  const markedLine = useMemo(
    () =>
      lines.length > VIRTUALIZE_ABOVE_LINES && marks.length > 0
        ? firstMarkedLine(
            lines.map((line) => line.map((segment) => segment.text).join('')),
            marks,
          )
        : null,
    [lines, marks],
  );
  if (lines.length > VIRTUALIZE_ABOVE_LINES) {
    return (
      <VirtualLines
        className="terminal"
        count={lines.length}
        markedLine={markedLine}
        renderLine={(index) => <Segments line={lines[index] ?? []} marks={marks} />}
      />
    );
  }
  return (
    <LineBlocks
      className="terminal"
      lineCount={lines.length}
      renderLines={(start, end) =>
        lines.slice(start, end).map((line, offset) => (
          <Fragment key={start + offset}>
            {offset > 0 && '\n'}
            <Segments line={line} marks={marks} />
          </Fragment>
        ))
      }
    />
  );
}
