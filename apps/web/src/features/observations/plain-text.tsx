import { useMemo } from 'react';
import { VIRTUALIZE_ABOVE_LINES, VirtualLines } from './virtual-lines';

/** Preformatted text; beyond 2,000 lines only the visible lines are rendered. */
export function PlainText({ content, className }: { content: string; className?: string }) {
  const lines = useMemo(() => content.split('\n'), [content]);
  if (lines.length > VIRTUALIZE_ABOVE_LINES) {
    return (
      <VirtualLines
        className={`plain-text ${className ?? ''}`}
        count={lines.length}
        renderLine={(index) => lines[index]}
      />
    );
  }
  return <pre className={`plain-text ${className ?? ''}`}>{content}</pre>;
}
