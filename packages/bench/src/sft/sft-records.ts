import {
  isTransition,
  type BenchItem,
  type Observation,
  type Step,
  type Trajectory,
} from '@terrarium/schema';
import {
  DEFAULT_TEMPLATES,
  renderMessages,
  selectTemplate,
  type ChatMessage,
  type Transition,
} from '@terrarium/worlds';
import { trajectoryItems, type BenchSource } from '../build-bench';

/** One training example in chat-messages form: the simulator's prompt, then the real observation. */
export interface SftRecord {
  messages: ChatMessage[];
  /** Where the example comes from; trainers ignore it, leak reports use it. */
  meta: { dataset: string; trajectory: string; stepIndex: number; turnIndex: number; task: string };
}

export interface SftOptions {
  /** Bench items whose trajectories must stay out of the training data. */
  excludeItems: readonly BenchItem[];
  /** Put the step's reasoning before the observation as `<think>…</think>`, when there is one. */
  includeReasoning: boolean;
  /**
   * Where the reasoning comes from; by default the step's recorded `reasoning`. For agent logs that
   * is the agent's reasoning, so pass the world model's next-state reasoning when you have it.
   */
  reasoningOf?: (step: Step, trajectory: Trajectory) => string | null;
}

function trajectoryKey(dataset: string | null, externalId: string | null): string {
  return `${dataset ?? ''}\u0000${externalId ?? ''}`;
}

/**
 * Whether a trajectory holds a bench item: named by the item's origin, or (for items imported from a
 * bench file, or the same trajectory imported under another dataset name) holding a transition with
 * the same content hash as an item.
 */
export function benchTrajectoryFilter(
  items: readonly BenchItem[],
): (source: BenchSource) => boolean {
  const origins = new Set(
    items.map((item) => trajectoryKey(item.origin.dataset, item.origin.trajectory)),
  );
  const ids = new Set(items.map((item) => item.id));
  return (source) => {
    if (origins.has(trajectoryKey(source.dataset, source.trajectory.externalId))) return true;
    return trajectoryItems(source, { kind: 'all' }, 0, 0).some((item) => ids.has(item.id));
  };
}

/**
 * SFT examples for a world model, one per transition of every trajectory that holds no bench item:
 * the system prompt of packages/worlds' template for the domain, the earlier transitions as
 * user(action) / assistant(real observation), the action, and the real observation as the final
 * assistant message, exactly what a simulator sees at inference (teacher forcing).
 */
export function sftRecords(trajectories: Iterable<BenchSource>, options: SftOptions): SftRecord[] {
  const isBench = benchTrajectoryFilter(options.excludeItems);
  const reasoningOf = options.reasoningOf ?? ((step: Step) => step.reasoning);
  const records: SftRecord[] = [];
  for (const source of trajectories) {
    if (isBench(source)) continue;
    const { dataset, trajectory } = source;
    const steps = trajectory.steps.filter(
      (step): step is Step & { observation: Observation } =>
        isTransition(step) && step.observation !== null,
    );
    const last = steps.at(-1);
    if (last === undefined) continue;
    // One rendering of the whole trajectory; each record reuses its prefix (the message objects are
    // shared), so a long trajectory costs linear memory, not quadratic.
    const transitions: Transition[] = steps.map((step) => ({
      action: step.action,
      observation: step.observation,
    }));
    const rendered = renderMessages(
      selectTemplate(DEFAULT_TEMPLATES, trajectory.domain),
      {
        domain: trajectory.domain,
        task: trajectory.task,
        systemPrompt: trajectory.systemPrompt,
        tools: trajectory.tools,
      },
      transitions.slice(0, -1),
      last.action,
    );
    steps.forEach((step, turnIndex) => {
      const reasoning = options.includeReasoning ? reasoningOf(step, trajectory) : null;
      const content =
        reasoning === null || reasoning.trim() === ''
          ? step.observation.content
          : `<think>\n${reasoning.trim()}\n</think>\n\n${step.observation.content}`;
      records.push({
        messages: [...rendered.slice(0, 2 + 2 * turnIndex), { role: 'assistant', content }],
        meta: {
          dataset,
          trajectory: trajectory.externalId,
          stepIndex: step.index,
          turnIndex,
          task: trajectory.sourceBenchmark ?? trajectory.domain,
        },
      });
    });
  }
  return records;
}
