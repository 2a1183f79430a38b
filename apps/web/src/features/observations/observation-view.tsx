import type { Observation } from '@terrarium/schema';
import { useMemo } from 'react';
import { formatCount } from '../../app/format';
import { AnsiText } from './ansi-text';
import { HtmlObservation } from './html-observation';
import { JsonTree } from './json-tree';
import { parseJson } from './json-value';
import { PlainText } from './plain-text';

/** Nothing to mark: one array, so a memo keyed on it holds. */
const NO_MARKS: readonly string[] = [];

function JsonObservation({ content, marks }: { content: string; marks: readonly string[] }) {
  const parsed = useMemo(() => parseJson(content), [content]);
  if (!parsed.ok) {
    return (
      <>
        <p className="note">Recorded as JSON but does not parse; shown as text.</p>
        <PlainText content={content} />
      </>
    );
  }
  return <JsonTree value={parsed.value} expandDepth={2} marks={marks} />;
}

function ObservationBody({
  observation,
  marks,
}: {
  observation: Observation;
  marks: readonly string[];
}) {
  switch (observation.kind) {
    case 'json':
      return <JsonObservation content={observation.content} marks={marks} />;
    case 'terminal':
      return <AnsiText content={observation.content} marks={marks} />;
    case 'html':
      return <HtmlObservation content={observation.content} />;
    case 'error':
      return (
        <PlainText content={observation.content} className="observation-error-text" marks={marks} />
      );
    case 'text':
      return <PlainText content={observation.content} marks={marks} />;
  }
}

/** The environment's response, rendered by kind; never as markup in the app's own DOM. */
export function ObservationView({
  observation,
  marks = NO_MARKS,
}: {
  observation: Observation | null;
  /** Words a search matched, marked; a JSON observation opens where they are. */
  marks?: readonly string[];
}) {
  if (observation === null) {
    return (
      <section className="panel observation" data-testid="observation" data-kind="none">
        <header className="panel-header">
          <h3>Observation</h3>
        </header>
        <p className="muted panel-body">No environment observation for this step.</p>
      </section>
    );
  }
  return (
    <section
      className={`panel observation ${observation.kind === 'error' ? 'observation-error' : ''}`}
      data-testid="observation"
      data-kind={observation.kind}
    >
      <header className="panel-header">
        <h3>Observation</h3>
        <span className={`kind kind-${observation.kind}`}>{observation.kind}</span>
        {observation.callId !== null && (
          <span className="muted mono">answers {observation.callId}</span>
        )}
        <span
          className="muted spacer-left"
          title="Characters as recorded, control sequences included: a terminal's \r overwrites and colour codes take none of the space shown"
        >
          {formatCount(observation.content.length)} chars
        </span>
      </header>
      <div className="panel-body">
        {observation.content === '' ? (
          <p className="muted">(empty output)</p>
        ) : (
          <ObservationBody observation={observation} marks={marks} />
        )}
      </div>
    </section>
  );
}
