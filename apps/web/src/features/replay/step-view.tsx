import type { Step } from '@terrarium/schema';
import { useRef } from 'react';
import { Collapsible } from '../../app/collapsible';
import { formatReward, plural } from '../../app/format';
import { JsonTree } from '../observations/json-tree';
import { useScrollToFirstMark } from '../observations/marked-text';
import { ObservationView } from '../observations/observation-view';
import { PlainText } from '../observations/plain-text';
import { ActionView } from './action-view';
import { simulatedStepLabel } from './fork-origin';

/** Nothing to mark: one array, so a memo keyed on it holds. */
const NO_MARKS: readonly string[] = [];

function Timing({ step }: { step: Step }) {
  if (!step.timing) return null;
  const parts: string[] = [];
  if (step.timing.startedAt) parts.push(step.timing.startedAt);
  if (step.timing.durationMs !== null) parts.push(`${Math.round(step.timing.durationMs)} ms`);
  return parts.length === 0 ? null : <span className="muted">{parts.join(' · ')}</span>;
}

export function StepView({
  step,
  marks = NO_MARKS,
  scrollToMarks = false,
}: {
  step: Step;
  marks?: readonly string[];
  /** Scroll the first marked word into view once shown (the step a search result opened). */
  scrollToMarks?: boolean;
}) {
  const view = useRef<HTMLElement>(null);
  useScrollToFirstMark(view, scrollToMarks ? marks : NO_MARKS);
  const metadataKeys = Object.keys(step.metadata).length;
  const simulated = simulatedStepLabel(step.metadata);
  return (
    <article className="step-view" aria-label={`Step ${step.index + 1}`} ref={view}>
      <div className="step-meta">
        <span className={`actor actor-${step.actor}`} data-testid="step-actor">
          {step.actor}
        </span>
        {step.reward !== null && (
          <span className="reward" data-testid="step-reward">
            reward {formatReward(step.reward)}
          </span>
        )}
        {simulated !== null && (
          <span className="simulated-badge" data-testid="step-simulated">
            {simulated}
          </span>
        )}
        <Timing step={step} />
      </div>
      <ActionView action={step.action} marks={marks} />
      {step.reasoning !== null && step.reasoning.trim() !== '' && (
        <Collapsible
          title="Reasoning"
          defaultOpen
          className="panel reasoning"
          testId="step-reasoning"
        >
          <PlainText content={step.reasoning} className="reasoning-text" marks={marks} />
        </Collapsible>
      )}
      <ObservationView observation={step.observation} marks={marks} />
      {metadataKeys > 0 && (
        <Collapsible title="Step metadata" summary={plural(metadataKeys, 'key')} className="panel">
          <JsonTree value={step.metadata} />
        </Collapsible>
      )}
    </article>
  );
}
