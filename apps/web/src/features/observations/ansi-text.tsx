import { Fragment, useMemo } from 'react';
import { ansiToLines, type AnsiLine } from './ansi-lines';
import { LineBlocks } from './line-blocks';
import { VIRTUALIZE_ABOVE_LINES, VirtualLines } from './virtual-lines';

function Segments({ line }: { line: AnsiLine }) {
  return (
    <>
      {line.map((segment, position) =>
        Object.keys(segment.style).length === 0 ? (
          <Fragment key={position}>{segment.text}</Fragment>
        ) : (
          <span key={position} style={segment.style}>
            {segment.text}
          </span>
        ),
      )}
    </>
  );
}

/** Terminal output with its ANSI colours, as React text nodes in styled spans (laid out as PlainText is). */
export function AnsiText({ content }: { content: string }) {
  const lines = useMemo(() => ansiToLines(content), [content]);
  if (lines.length > VIRTUALIZE_ABOVE_LINES) {
    return (
      <VirtualLines
        className="terminal"
        count={lines.length}
        renderLine={(index) => <Segments line={lines[index] ?? []} />}
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
            <Segments line={line} />
          </Fragment>
        ))
      }
    />
  );
}
