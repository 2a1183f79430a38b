import type { Action, JsonValue, Observation, Trajectory } from '@terrarium/schema';
import { actionHead, actionText } from '../action-text';
import { canonicalJson } from '../canonical-json';
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
  /** The arguments as one canonical text: equal texts ask the environment the same thing. */
  args: string;
  /** Top-level arguments as `name\u0000canonical value`, for partial matches. */
  argPairs: ReadonlySet<string>;
  action: Action;
  observation: Observation;
  source: RecordedSource;
  /** The recorded trajectory's task text (`excludeTask` compares it). */
  task: string | null;
}

/** Exact argument matches considered per query (the same `ls` may be recorded thousands of times). */
const MAX_EXACT_CONSIDERED = 256;

function argumentsKey(action: Action): string {
  return action.type === 'tool_call' || action.type === 'browser'
    ? canonicalJson(action.arguments)
    : argumentsText(action).trim();
}

function argumentPairs(action: Action): Set<string> {
  if (action.type !== 'tool_call' && action.type !== 'browser') return new Set();
  const args = action.arguments;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return new Set();
  return new Set(
    Object.entries(args).map(([name, value]) => `${name}\u0000${canonicalJson(value ?? null)}`),
  );
}

/**
 * How well a recorded call's arguments match the query's, compared before any text similarity:
 * the same arguments first, then calls sharing more top-level arguments (name and value), then
 * the rest. A what-if that edits one argument is answered from a call that had that value.
 */
function argumentMatch(
  query: { args: string; argPairs: ReadonlySet<string> },
  document: Pick<Document, 'args' | 'argPairs'>,
): [number, number] {
  if (query.args === document.args) return [2, query.argPairs.size];
  let shared = 0;
  for (const pair of query.argPairs) if (document.argPairs.has(pair)) shared++;
  return shared > 0 ? [1, shared] : [0, 0];
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
  /**
   * Leave out every recorded trajectory of this task (equal task text). Another trial of the same
   * task makes the same calls against the same records, so its answers are the very observations
   * being predicted: a simulator tested with them in reach is tested on what it was shown. Benches
   * and Compare leave the task out, as the bundled model's held-out split does.
   */
  excludeTask?: string;
  /** Leave these recorded trajectories out too: the same task recorded under another name. */
  excludeTrajectories?: ReadonlySet<string>;
}

/**
 * What a simulation of a recorded trajectory leaves out of the corpus: that trajectory and, when
 * its task is known, every trial of that task (see `SearchOptions`). The one rule for benches,
 * Compare and the bundled model's prompt neighbors.
 */
export function leaveOut(trajectory: string, task: string | null): SearchOptions {
  return task === null
    ? { excludeTrajectory: trajectory }
    : { excludeTrajectory: trajectory, excludeTask: task };
}

export interface Neighbor {
  /** The recorded action, so a model shown the neighbor sees what was asked (the bundled model's prompt). */
  action: Action;
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
  /** Documents by head and canonical arguments, in order. */
  const byArguments = new Map<string, number[]>();
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
      const args = argumentsKey(input.action);
      const sameCall = `${head}\u0000${args}`;
      const calls = byArguments.get(sameCall);
      if (calls === undefined) byArguments.set(sameCall, [doc]);
      else calls.push(doc);
      documents.push({
        head,
        args,
        argPairs: argumentPairs(input.action),
        action: input.action,
        observation: input.expected,
        source: { trajectory: trajectory.externalId, stepIndex: input.stepIndex },
        task: trajectory.task,
      });
    }
  }
  let scores = new Float64Array(documents.length);

  return {
    size: documents.length,
    search(context, history, action, k = 1, options = {}) {
      const { excludeTrajectory, excludeTask, excludeTrajectories } = options;
      // A message goes to the other party, not to the environment: nothing to retrieve.
      if (action.type === 'message') return [];
      const query = queryTokens(context, history, action);
      if (scores.length !== documents.length) scores = new Float64Array(documents.length);
      const touched = bm25.score(query, weights, scores);
      const isLeftOut = (document: Document) =>
        document.source.trajectory === excludeTrajectory ||
        (excludeTask !== undefined && document.task === excludeTask) ||
        excludeTrajectories?.has(document.source.trajectory) === true;
      // A tool only the left-out recordings call is as unknown as one never recorded: any tool
      // may then answer, as with an index built without them.
      const recorded = heads.get(headOf(action));
      const head =
        recorded !== undefined &&
        (byHead[recorded] ?? []).some((doc) => {
          const document = documents[doc];
          return document !== undefined && !isLeftOut(document);
        })
          ? recorded
          : undefined;
      const sameHead = head === undefined ? [] : (byHead[head] ?? []);
      // Recorded calls of the same tool or command come first whatever their other words; among
      // them the arguments decide (exact, then partial), and only then the text similarity.
      const wanted = { args: argumentsKey(action), argPairs: argumentPairs(action) };
      type Ranked = { doc: number; score: number; match: [number, number] };
      const best: Ranked[] = [];
      // Best first; equal ranks in recording order, so results do not depend on scoring order.
      const before = (a: Ranked, b: Ranked) =>
        a.match[0] !== b.match[0]
          ? a.match[0] > b.match[0]
          : a.match[1] !== b.match[1]
            ? a.match[1] > b.match[1]
            : a.score !== b.score
              ? a.score > b.score
              : a.doc < b.doc;
      const consider = (doc: number, score: number) => {
        const document = documents[doc];
        if (document === undefined) return;
        if (isLeftOut(document)) return;
        if (best.some((entry) => entry.doc === doc)) return;
        const ranked: Ranked = {
          doc,
          score,
          match: document.head === head ? argumentMatch(wanted, document) : [0, 0],
        };
        const last = best.at(-1);
        if (best.length === k && last !== undefined && !before(ranked, last)) return;
        let at = best.length;
        for (let previous = best[at - 1]; previous !== undefined; previous = best[at - 1]) {
          if (before(previous, ranked)) break;
          at--;
        }
        best.splice(at, 0, ranked);
        if (best.length > k) best.pop();
      };
      if (head !== undefined) {
        const exact = byArguments.get(`${head}\u0000${wanted.args}`) ?? [];
        for (const doc of exact.slice(0, MAX_EXACT_CONSIDERED)) consider(doc, scores[doc] ?? 0);
      }
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
            action: document.action,
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
      const found = index.search(context, history, action, neighbors, options);
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
