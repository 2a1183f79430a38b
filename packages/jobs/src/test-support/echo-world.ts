import type { Action, BenchItem, ItemScore, JsonValue, Observation } from '@terrarium/schema';
import { scoreRules } from '@terrarium/fidelity';
import {
  EndpointError,
  type Prediction,
  type PredictOptions,
  type SimContext,
  type Transition,
  type WorldModel,
} from '@terrarium/worlds';

export interface EchoWorldOptions {
  /** Items whose action makes the simulator fail, as an endpoint error would. */
  failItemIds?: ReadonlySet<string>;
  /** How those fail: refused (the default, as a server that is down) or timed out. */
  failAs?: 'refused' | 'timeout';
  /** Milliseconds each prediction takes (honouring the abort signal). */
  delayMs?: number;
  /** After this many predictions, every further one waits until it is aborted. */
  holdAfter?: number;
  /** Put into every prediction's provenance, e.g. which worker process made it. */
  detail?: { [key: string]: JsonValue };
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = ms === Infinity ? null : setTimeout(finish, ms);
    function finish() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      if (timer) clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A simulator for tests that answers each bench item's action with the item's real observation,
 * so every score is perfect, and fails on chosen items. It counts what happened to it.
 */
export class EchoWorld implements WorldModel {
  calls = 0;
  inFlight = 0;
  maxInFlight = 0;
  aborted = 0;
  readonly historyLengths: number[] = [];
  private readonly byAction = new Map<string, BenchItem>();

  constructor(
    readonly id: string,
    items: readonly BenchItem[],
    private readonly options: EchoWorldOptions = {},
  ) {
    for (const item of items) this.byAction.set(JSON.stringify(item.action), item);
  }

  async predict(
    _context: SimContext,
    history: Transition[],
    action: Action,
    options: PredictOptions = {},
  ): Promise<Prediction> {
    const item = this.byAction.get(JSON.stringify(action));
    if (!item) throw new Error(`no item for action ${JSON.stringify(action)}`);
    this.calls++;
    this.historyLengths.push(history.length);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const hold = this.options.holdAfter !== undefined && this.calls > this.options.holdAfter;
      await wait(hold ? Infinity : (this.options.delayMs ?? 0), options.signal);
      if (this.options.failItemIds?.has(item.id)) {
        if (this.options.failAs === 'timeout')
          throw new EndpointError(
            `request to http://127.0.0.1:9/v1/chat/completions sent nothing for 300000 ms (item ${item.id})`,
            'timeout',
            'http://127.0.0.1:9/v1/chat/completions',
            4,
          );
        throw new Error(`connect ECONNREFUSED 127.0.0.1:9 (item ${item.id})`);
      }
      const observation: Observation = item.real;
      return {
        observation,
        usage: { inputTokens: 10, outputTokens: 5 },
        latencyMs: this.options.delayMs ?? 0,
        provenance: {
          backend: 'echo',
          cache: 'hit',
          ...(this.options.detail ? { detail: this.options.detail } : {}),
        },
      };
    } catch (error) {
      if (options.signal?.aborted) this.aborted++;
      throw error;
    } finally {
      this.inFlight--;
    }
  }
}

/** The real rule metrics of @terrarium/fidelity, one rule score per metric. */
export function scoreWithRules(
  item: BenchItem,
  sim: string,
  predicted: Observation,
): { scores: ItemScore[] } {
  const values = scoreRules(predicted.content, item.real.content, { kind: item.real.kind });
  return {
    scores: Object.entries(values).map(([metric, value]) => ({
      itemId: item.id,
      sim,
      source: 'rule',
      metric,
      value,
      detail: null,
    })),
  };
}
