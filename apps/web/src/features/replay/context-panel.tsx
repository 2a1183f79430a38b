import type { TrajectoryDetail } from '@terrarium/schema';
import { memo } from 'react';
import { Collapsible } from '../../app/collapsible';
import { formatReward, outcomeLabel, plural } from '../../app/format';
import { JsonTree } from '../observations/json-tree';
import { PlainText } from '../observations/plain-text';
import { Link } from '../../app/link';
import { forkParentOf } from './fork-origin';
import { TrajectoryLinks } from './trajectory-links';

/** Prompts this long start collapsed so the panel stays scannable. */
const LONG_TEXT = 1500;

function Field({ name, children }: { name: string; children: React.ReactNode }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** The task, system prompt and tool schemas, kept at hand beside the step. */
export const ContextPanel = memo(function ContextPanel({ detail }: { detail: TrajectoryDetail }) {
  const outcome = outcomeLabel(detail.outcome);
  const metadataKeys = Object.keys(detail.metadata).length;
  const parent = forkParentOf(detail.metadata);
  return (
    <aside className="context-panel" aria-label="Trajectory context" data-testid="context-panel">
      <dl className="facts">
        <Field name="Benchmark">{detail.sourceBenchmark ?? '—'}</Field>
        <Field name="Format">{detail.sourceFormat}</Field>
        <Field name="Domain">{detail.domain}</Field>
        <Field name="Model">{detail.agentModel ?? '—'}</Field>
        <Field name="Outcome">
          <span className={`outcome outcome-${outcome}`}>{outcome}</span>
          {detail.outcome.reward !== null && ` · reward ${formatReward(detail.outcome.reward)}`}
        </Field>
        <Field name="Source">
          <span className="mono">{detail.sourceFile}</span>
        </Field>
        {parent !== null && (
          <Field name="Fork of">
            <Link
              to={{
                page: 'replay',
                datasetId: parent.datasetId,
                trajectoryId: parent.trajectoryId,
                step: parent.step,
              }}
            >
              <span className="mono" data-testid="fork-parent">
                {parent.externalId}
              </span>
            </Link>{' '}
            at step {parent.step + 1}, continued by {parent.sim}
          </Field>
        )}
        <TrajectoryLinks datasetId={detail.datasetId} metadata={detail.metadata} />
      </dl>
      <Collapsible
        title="Task"
        defaultOpen={(detail.task ?? '').length < LONG_TEXT * 4}
        className="panel"
        testId="context-task"
      >
        {detail.task ? (
          <PlainText content={detail.task} className="prose" />
        ) : (
          <p className="muted">No task recorded.</p>
        )}
      </Collapsible>
      <Collapsible
        title="System prompt"
        summary={detail.systemPrompt ? `${detail.systemPrompt.length} chars` : 'none'}
        defaultOpen={detail.systemPrompt !== null && detail.systemPrompt.length < LONG_TEXT}
        className="panel"
        testId="context-system-prompt"
      >
        {detail.systemPrompt ? (
          <PlainText content={detail.systemPrompt} className="prose" />
        ) : (
          <p className="muted">No system prompt recorded.</p>
        )}
      </Collapsible>
      <Collapsible
        title="Tools"
        summary={toolsSummary(detail.tools.length, detail.toolsInferred)}
        className="panel"
        testId="context-tools"
      >
        {detail.tools.length === 0 && (
          <p className="muted">
            {detail.toolsInferred
              ? 'No tool schemas recorded, and no tool calls to infer them from: the actions are text (commands or messages).'
              : 'No tool schemas.'}
          </p>
        )}
        {detail.tools.map((tool, position) => (
          <Collapsible
            key={`${tool.function.name}-${position}`}
            title={<span className="mono">{tool.function.name}</span>}
            summary={tool.function.description?.split('\n')[0]}
            className="tool"
          >
            {tool.function.description && (
              <PlainText content={tool.function.description} className="prose" />
            )}
            {tool.function.parameters ? (
              <JsonTree value={tool.function.parameters} expandDepth={3} />
            ) : (
              <p className="muted">No parameters.</p>
            )}
          </Collapsible>
        ))}
      </Collapsible>
      {metadataKeys > 0 && (
        <Collapsible title="Metadata" summary={plural(metadataKeys, 'key')} className="panel">
          <JsonTree value={detail.metadata} />
        </Collapsible>
      )}
    </aside>
  );
});

/** "none" rather than "0 · inferred from calls" when a format records actions as text. */
export function toolsSummary(count: number, inferred: boolean): string {
  if (count === 0) return 'none';
  return inferred ? `${count} · inferred from calls` : String(count);
}
