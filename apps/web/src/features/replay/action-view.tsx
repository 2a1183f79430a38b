import type { Action } from '@terrarium/schema';
import { JsonTree } from '../observations/json-tree';
import { MarkedText } from '../observations/marked-text';
import { PlainText } from '../observations/plain-text';

/** Nothing to mark. */
const NO_MARKS: readonly string[] = [];

function Arguments({ value, marks }: { value: unknown; marks: readonly string[] }) {
  // Arguments that were not valid JSON in the source are kept as the original string.
  if (typeof value === 'string') return <PlainText content={value} marks={marks} />;
  return <JsonTree value={value} expandDepth={2} marks={marks} />;
}

function ActionBody({ action, marks }: { action: Action; marks: readonly string[] }) {
  switch (action.type) {
    case 'tool_call':
      return (
        <>
          <div className="action-title">
            <span className="mono action-name">
              <MarkedText text={action.name} words={marks} />
            </span>
            {action.callId !== null && <span className="muted mono">{action.callId}</span>}
          </div>
          <Arguments value={action.arguments} marks={marks} />
        </>
      );
    case 'browser':
      return (
        <>
          <div className="action-title">
            <span className="mono action-name">
              <MarkedText text={action.name} words={marks} />
            </span>
          </div>
          <Arguments value={action.arguments} marks={marks} />
        </>
      );
    case 'command':
      return (
        <pre className="code command">
          <MarkedText text={action.command} words={marks} />
        </pre>
      );
    case 'keystrokes':
      return (
        <pre className="code command">
          <MarkedText text={action.keys} words={marks} />
        </pre>
      );
    case 'message':
      return <PlainText content={action.text} className="message-text" marks={marks} />;
  }
}

const ACTION_LABELS: Record<Action['type'], string> = {
  tool_call: 'tool call',
  command: 'command',
  keystrokes: 'keystrokes',
  browser: 'browser action',
  message: 'message',
};

export function ActionView({
  action,
  marks = NO_MARKS,
}: {
  action: Action;
  /** Words a search matched, marked. */
  marks?: readonly string[];
}) {
  const interpreter = action.type === 'command' ? action.interpreter : null;
  return (
    <section className="panel action" data-testid="step-action" data-action-type={action.type}>
      <header className="panel-header">
        <h3>Action</h3>
        <span className={`kind action-${action.type}`}>{ACTION_LABELS[action.type]}</span>
        {interpreter !== null && <span className="muted mono">{interpreter}</span>}
      </header>
      <div className="panel-body">
        <ActionBody action={action} marks={marks} />
      </div>
    </section>
  );
}
