import type { Action, JsonValue, Observation, Trajectory } from '@terrarium/schema';
import { actionHead, actionText } from '../action-text';
import { Bm25Index } from '../text/bm25';
import { tokenize } from '../text/tokenize';
import { predictionInputs } from '../trajectory-inputs';
import {
  NO_USAGE,
  answeredCallId,
  type Now,
  type Prediction,
  type SimContext,
  type Transition,
  type WorldModel,
} from '../world-model';
import type { RecordedSource } from './replay';

const FIELDS = ['arguments', 'recent', 'task'] as const;
type Field = (typeof FIELDS)[number];

export type RetrievalWeights = Record<Field, number>;

/**
 * The tool or command is not weighed but filters: recorded calls of the same one come first. Among
 * them the arguments count most; the previous transition and the task break ties between similar
 * calls (same database, same user).
 */
export const DEFAULT_RETRIEVAL_WEIGHTS: RetrievalWeights = {
  arguments: 1,
  recent: 0.3,
  task: 0.2,
};

/** Caps keep one huge observation or task from dominating the index and the query time. */
const MAX_ARGUMENT_TOKENS = 256;
const MAX_RECENT_TOKENS = 64;
const MAX_TASK_TOKENS = 64;

interface Document {
  head: number;
  observation: Observation;
  source: RecordedSource;
}

export interface RetrievalIndex {
  readonly size: number;
  /** The `k` nearest recorded transitions, best first. */
  search(
    context: SimContext,
    history: readonly Transition[],
    action: Action,
    k?: number,
    options?: SearchOptions,
  ): Neighbor[];
}

export interface SearchOptions {
  /**
   * Leave this recorded trajectory out. One index then serves a leave-one-trajectory-out
   * evaluation: the simulated trajectory's own steps are never its neighbours.
   */
  excludeTrajectory?: string;
}

export interface Neighbor {
  observation: Observation;
  source: RecordedSource;
  score: number;
  sameHead: boolean;
}

function argumentsText(action: Action): string {
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      return JSON.stringify(action.arguments);
    default: {
      const text = actionText(action);
      const head = actionHead(action);
      const at = text.toLowerCase().indexOf(head);
      return at === -1 ? text : text.slice(at + head.length);
    }
  }
}

function headOf(action: Action): string {
  return `${action.type}:${actionHead(action)}`;
}

function queryTokens(
  context: SimContext,
  history: readonly Transition[],
  action: Action,
): Record<Field, string[]> {
  const previous = history.at(-1);
  return {
    arguments: tokenize(argumentsText(action), MAX_ARGUMENT_TOKENS),
    recent:
      previous === undefined
        ? []
        : tokenize(
            `${actionText(previous.action)} ${previous.observation.content.slice(0, 2000)}`,
            MAX_RECENT_TOKENS,
          ),
    task: tokenize(context.task ?? '', MAX_TASK_TOKENS),
  };
}

export function buildRetrievalIndex(
  trajectories: Iterable<Trajectory>,
  weights: RetrievalWeights = DEFAULT_RETRIEVAL_WEIGHTS,
): RetrievalIndex {
  const bm25 = new Bm25Index<Field>(FIELDS);
  const documents: Document[] = [];
  const heads = new Map<string, number>();
  /** Documents by head, in order. */
  const byHead: number[][] = [];
  for (const trajectory of trajectories) {
    for (const input of predictionInputs(trajectory)) {
      const doc = bm25.add(queryTokens(input.context, input.history, input.action));
      const name = headOf(input.action);
      let head = heads.get(name);
      if (head === undefined) {
        head = byHead.length;
        heads.set(name, head);
        byHead.push([]);
      }
      byHead[head]?.push(doc);
      documents.push({
        head,
        observation: input.expected,
        source: { trajectory: trajectory.externalId, stepIndex: input.stepIndex },
      });
    }
  }
  let scores = new Float64Array(documents.length);

  return {
    size: documents.length,
    search(context, history, action, k = 1, options = {}) {
      const excluded = options.excludeTrajectory;
      // A message goes to the other party, not to the environment: nothing to retrieve.
      if (action.type === 'message') return [];
      const query = queryTokens(context, history, action);
      if (scores.length !== documents.length) scores = new Float64Array(documents.length);
      const touched = bm25.score(query, weights, scores);
      const head = heads.get(headOf(action));
      const sameHead = head === undefined ? [] : (byHead[head] ?? []);
      // Recorded calls of the same tool or command come first whatever their other words.
      const best: { doc: number; score: number }[] = [];
      // Best first; equal scores in recording order, so results do not depend on scoring order.
      const consider = (doc: number, score: number) => {
        if (excluded !== undefined && documents[doc]?.source.trajectory === excluded) return;
        const last = best.at(-1);
        if (best.length === k && last !== undefined) {
          if (score < last.score || (score === last.score && doc > last.doc)) return;
        }
        if (best.some((entry) => entry.doc === doc)) return;
        let at = best.length;
        for (let previous = best[at - 1]; previous !== undefined; previous = best[at - 1]) {
          if (previous.score > score || (previous.score === score && previous.doc < doc)) break;
          at--;
        }
        best.splice(at, 0, { doc, score });
        if (best.length > k) best.pop();
      };
      for (const doc of touched) {
        if (head === undefined || documents[doc]?.head === head) {
          consider(doc, scores[doc] ?? 0);
        }
      }
      // A call of the same tool that shares no word still beats any call of another tool.
      for (const doc of sameHead) {
        if (best.length >= k) break;
        consider(doc, scores[doc] ?? 0);
      }
      for (const doc of touched) scores[doc] = 0;
      return best.flatMap(({ doc, score }) => {
        const document = documents[doc];
        if (document === undefined) return [];
        return [
          {
            observation: document.observation,
            source: document.source,
            score,
            sameHead: document.head === head,
          },
        ];
      });
    },
  };
}

/**
 * Answers with the observation of the nearest recorded transition (BM25 over the tool or command,
 * its arguments, the previous transition and the task). Provenance `cache` is null: the answer is
 * borrowed, not recorded for this input; `detail.neighbors` names the transitions it came from.
 * With nothing similar at all it reports a miss: an empty observation and provenance `miss`.
 */
export function createRetrievalWorldModel(
  index: RetrievalIndex,
  options: { id?: string; neighbors?: number; now?: Now } & SearchOptions = {},
): WorldModel {
  const now = options.now ?? (() => performance.now());
  const neighbors = options.neighbors ?? 3;
  return {
    id: options.id ?? 'retrieval',
    predict(context, history, action): Promise<Prediction> {
      const started = now();
      const found = index.search(
        context,
        history,
        action,
        neighbors,
        options.excludeTrajectory === undefined
          ? {}
          : { excludeTrajectory: options.excludeTrajectory },
      );
      const latencyMs = now() - started;
      const nearest = found[0];
      const callId = answeredCallId(action);
      if (nearest === undefined) {
        return Promise.resolve({
          observation: { kind: 'text', content: '', callId },
          usage: NO_USAGE,
          latencyMs,
          provenance: {
            backend: 'retrieval',
            cache: 'miss',
            detail: { reason: 'no recorded transition is like this action' },
          },
        });
      }
      const detail: JsonValue[] = found.map((neighbor) => ({
        trajectory: neighbor.source.trajectory,
        stepIndex: neighbor.source.stepIndex,
        score: neighbor.score,
        sameTool: neighbor.sameHead,
      }));
      return Promise.resolve({
        observation: { ...nearest.observation, callId },
        usage: NO_USAGE,
        latencyMs,
        provenance: { backend: 'retrieval', cache: null, detail: { neighbors: detail } },
      });
    },
  };
}
