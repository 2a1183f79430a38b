import type { Action } from '@terrarium/schema';
import { JsonTree } from '../observations/json-tree';
import { PlainText } from '../observations/plain-text';

function Arguments({ value }: { value: unknown }) {
  // Arguments that were not valid JSON in the source are kept as the original string.
  if (typeof value === 'string') return <PlainText content={value} />;
  return <JsonTree value={value} expandDepth={2} />;
}

function ActionBody({ action }: { action: Action }) {
  switch (action.type) {
    case 'tool_call':
      return (
        <>
          <div className="action-title">
            <span className="mono action-name">{action.name}</span>
            {action.callId !== null && <span className="muted mono">{action.callId}</span>}
          </div>
          <Arguments value={action.arguments} />
        </>
      );
    case 'browser':
      return (
        <>
          <div className="action-title">
            <span className="mono action-name">{action.name}</span>
          </div>
          <Arguments value={action.arguments} />
        </>
      );
    case 'command':
      return <pre className="code command">{action.command}</pre>;
    case 'keystrokes':
      return <pre className="code command">{action.keys}</pre>;
    case 'message':
      return <PlainText content={action.text} className="message-text" />;
  }
}

const ACTION_LABELS: Record<Action['type'], string> = {
  tool_call: 'tool call',
  command: 'command',
  keystrokes: 'keystrokes',
  browser: 'browser action',
  message: 'message',
};

export function ActionView({ action }: { action: Action }) {
  const interpreter = action.type === 'command' ? action.interpreter : null;
  return (
    <section className="panel action" data-testid="step-action" data-action-type={action.type}>
      <header className="panel-header">
        <h3>Action</h3>
        <span className={`kind action-${action.type}`}>{ACTION_LABELS[action.type]}</span>
        {interpreter !== null && <span className="muted mono">{interpreter}</span>}
      </header>
      <div className="panel-body">
        <ActionBody action={action} />
      </div>
    </section>
  );
}
