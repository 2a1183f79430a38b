import type { Observation } from '@terrarium/schema';
import { Fragment, useMemo } from 'react';
import { plural } from '../../app/format';
import { ansiToLines } from '../observations/ansi-lines';
import { isPlainObject, parseJson } from '../observations/json-value';
import { diffJson, MAX_JSON_CHANGES, type JsonChange } from './json-diff';
import { diffText, type DiffLine } from './text-diff';

/** Terminal output is compared as the text a reader sees, without its colour codes. */
function visibleText(observation: Observation): string {
  if (observation.kind !== 'terminal') return observation.content;
  return ansiToLines(observation.content)
    .map((line) => line.map((segment) => segment.text).join(''))
    .join('\n');
}

function jsonContainer(content: string): { ok: true; value: unknown } | null {
  const parsed = parseJson(content);
  if (!parsed.ok) return null;
  return Array.isArray(parsed.value) || isPlainObject(parsed.value) ? parsed : null;
}

const LINE_MARKS = { equal: ' ', removed: '-', added: '+' } as const;

export function TextDiffView({ lines }: { lines: DiffLine[] }) {
  return (
    <pre className="text-diff" data-testid="text-diff">
      {lines.map((line, index) => (
        <div key={index} className={`diff-line diff-line-${line.change}`}>
          <span className="diff-mark" aria-hidden="true">
            {LINE_MARKS[line.change]}
          </span>
          {line.segments.map((segment, position) =>
            segment.change === 'equal' ? (
              <Fragment key={position}>{segment.text}</Fragment>
            ) : (
              <span key={position} className={`diff-${segment.change}`}>
                {segment.text}
              </span>
            ),
          )}
        </div>
      ))}
    </pre>
  );
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function JsonDiffView({ changes }: { changes: JsonChange[] }) {
  if (changes.length === 0) return <p className="muted">Same JSON structure and values.</p>;
  return (
    <>
      <ul className="json-diff" data-testid="json-diff">
        {changes.map((change) => (
          <li
            key={`${change.type} ${change.path}`}
            className={`json-change json-change-${change.type}`}
            data-change={change.type}
            data-path={change.path}
          >
            <span className="json-change-type">{change.type}</span>{' '}
            <span className="mono json-change-path">{change.path}</span>
            {change.type !== 'added' && (
              <>
                {' '}
                <span className="diff-removed mono">{shortJson(change.real)}</span>
              </>
            )}
            {change.type === 'changed' && ' →'}
            {change.type !== 'removed' && (
              <>
                {' '}
                <span className="diff-added mono">{shortJson(change.predicted)}</span>
              </>
            )}
          </li>
        ))}
      </ul>
      {changes.length >= MAX_JSON_CHANGES && (
        <p className="note">Only the first {plural(MAX_JSON_CHANGES, 'change')} are listed.</p>
      )}
    </>
  );
}

/**
 * The predicted observation against the real one, with the diff that suits the content: a
 * structural diff when both are JSON objects or arrays, otherwise a line diff with word highlights
 * (terminal output compared without colour codes). Everything is rendered as text nodes.
 */
export function ObservationDiff({
  real,
  predicted,
}: {
  real: Observation;
  predicted: Observation;
}) {
  const diff = useMemo(() => {
    const realJson = jsonContainer(real.content);
    const predictedJson = realJson === null ? null : jsonContainer(predicted.content);
    if (realJson !== null && predictedJson !== null) {
      return { mode: 'json' as const, changes: diffJson(realJson.value, predictedJson.value) };
    }
    return { mode: 'text' as const, text: diffText(visibleText(real), visibleText(predicted)) };
  }, [real, predicted]);

  if (diff.mode === 'json') return <JsonDiffView changes={diff.changes} />;
  if (!diff.text.ok) return <p className="note">No diff shown: {diff.text.reason}.</p>;
  if (diff.text.lines.every((line) => line.change === 'equal')) {
    return <p className="muted">Identical text.</p>;
  }
  return <TextDiffView lines={diff.text.lines} />;
}
