import { classifyItem, scoreClassifiedItem, type ClassifiedItem } from '@terrarium/bench';
import type { Store } from '@terrarium/db';
import type { BenchRunDeps } from '@terrarium/jobs';
import type { BenchItem, BenchRun, JudgeConfig, Observation } from '@terrarium/schema';
import {
  answeredOrThrow,
  costOf,
  simContextOfItem,
  type Pricing,
  type PromptFolder,
  type Transition,
} from '@terrarium/worlds';
import { priceOf, pricingFromEnv } from './pricing';
import { endpointAllowlistFromEnv } from '../simulate/sim-spec';
import { LruCache } from '../simulate/lru';
import { createBenchSimulators, type BenchSimulators } from './bench-simulators';
import { allBenchItems } from './read-all';
import { createJudge, type Judge } from './judge';
import { createScoringPool } from './scoring-pool';
import { promptFilesHash, promptFolderOfFiles } from './run-prompts';

export interface BenchRunDepsOptions {
  allowlist?: readonly string[];
  fetch?: typeof fetch;
  /** The CLI and `terrarium worker` act for their user and may open any model folder. */
  anyOnnxPath?: boolean;
  /** Dollar prices by simulator spec (default: `TERRARIUM_PRICING`). */
  pricing?: ReadonlyMap<string, Pricing>;
  /**
   * Where rule scores are computed: on a worker thread (default; a run's scoring then uses the
   * other core and leaves the server thread free) or inline (one item at a time: a re-run).
   */
  scoring?: 'worker' | 'inline';
}

// Each entry may hold a whole bench (its items and indexes, once a simulator has needed them).
const BENCHES_KEPT = 4;
// A run scores each item once per simulator: classify its real observation once.
const CLASSIFIED_KEPT = 2048;
// Prompt folders by content hash: a few distinct folders at most are in use at once.
const FOLDERS_KEPT = 8;

/**
 * The history a closed-loop run shows the simulator at `item`: the real history except for the
 * last `steps` turns, which the simulator itself rolls out (each predicted from its own earlier
 * predictions). Drift shows as the score falling relative to the open-loop run.
 */
async function closedLoopHistory(
  simulators: BenchSimulators,
  sim: string,
  item: BenchItem,
  steps: number,
): Promise<Transition[]> {
  const model = await simulators.simulatorFor(sim, item);
  const cut = Math.max(0, item.history.length - steps);
  const history: Transition[] = item.history.slice(0, cut).map((turn) => ({ ...turn }));
  for (const turn of item.history.slice(cut)) {
    // A miss on an earlier turn fails the unit: its empty text is no observation to go on from.
    const predicted = answeredOrThrow(
      await model.predict(simContextOfItem(item), history, turn.action),
    );
    history.push({ action: turn.action, observation: predicted.observation });
  }
  return history;
}

/** The real simulators and scoring behind bench runs, for the server's and `terrarium worker`'s workers. */
export function createBenchRunDeps(store: Store, options: BenchRunDepsOptions = {}): BenchRunDeps {
  const benches = new LruCache<Promise<BenchSimulators>>(BENCHES_KEPT);
  const classified = new LruCache<ClassifiedItem>(CLASSIFIED_KEPT);
  const folders = new LruCache<Promise<PromptFolder | null>>(FOLDERS_KEPT);
  const simulatorOptions = {
    allowlist: options.allowlist ?? endpointAllowlistFromEnv(),
    fetch: options.fetch,
    anyOnnxPath: options.anyOnnxPath ?? false,
  };
  const pricing = options.pricing ?? pricingFromEnv();
  const pool = options.scoring === 'inline' ? null : createScoringPool();
  function ruleScores(item: BenchItem, sim: string, predicted: Observation) {
    if (pool !== null) return pool.score(item, sim, predicted);
    let entry = classified.get(item.id);
    if (entry === undefined) {
      entry = classifyItem(item);
      classified.set(item.id, entry);
    }
    return scoreClassifiedItem(entry, sim, predicted);
  }
  const judges = new Map<string, Judge>();
  /**
   * The prompt folder the run was started with, from the store (never this process's own
   * `--prompts`): every worker, and a re-run, speaks with the prompts the run recorded.
   */
  function promptsOf(run: BenchRun): Promise<PromptFolder | null> {
    const recorded = run.prompts;
    if (recorded === null) return Promise.resolve(null);
    let folder = folders.get(recorded.hash);
    if (folder === undefined) {
      folder = store.getBenchRunPromptFiles(run.id).then((files) => {
        if (files === null || promptFilesHash(files) !== recorded.hash) {
          throw new Error(`bench run ${run.id}: its prompt folder ${recorded.hash} is not stored`);
        }
        return promptFolderOfFiles(files);
      });
      folders.set(recorded.hash, folder);
      folder.catch(() => folders.delete(recorded.hash, folder));
    }
    return folder;
  }
  async function judgeFor(run: BenchRun, config: JudgeConfig): Promise<Judge> {
    const key = `${JSON.stringify(config)}\u0000${run.prompts?.hash ?? ''}`;
    let judge = judges.get(key);
    if (judge === undefined) {
      const price = priceOf(pricing, config.spec);
      judge = createJudge(config, {
        ...simulatorOptions,
        prompts: await promptsOf(run),
        ...(price === undefined ? {} : { pricing: price }),
      });
      judges.set(key, judge);
    }
    return judge;
  }
  function simulatorsFor(run: BenchRun): Promise<BenchSimulators> {
    const key = `${run.bench}\u0000${run.benchVersion}\u0000${run.prompts?.hash ?? ''}`;
    let simulators = benches.get(key);
    if (simulators === undefined) {
      const bench = { name: run.bench, version: run.benchVersion };
      simulators = promptsOf(run).then((prompts) =>
        createBenchSimulators(() => allBenchItems(store, bench), { ...simulatorOptions, prompts }),
      );
      benches.set(key, simulators);
      simulators.catch(() => benches.delete(key, simulators));
    }
    return simulators;
  }
  return {
    // Local simulators are free. An endpoint's cost needs its price and its usage; a reply that
    // counted no prompt tokens reported none (the OpenAI client fills in zeros for a missing one).
    costOf: (sim, usage) =>
      sim.startsWith('openai:')
        ? costOf(priceOf(pricing, sim), usage.inputTokens > 0 ? usage : null)
        : 0,
    async simulatorFor(run, sim, item) {
      return (await simulatorsFor(run)).simulatorFor(sim, item);
    },
    async historyFor(run, sim, item) {
      if (run.mode.kind === 'open') return item.history.map((turn) => ({ ...turn }));
      return closedLoopHistory(await simulatorsFor(run), sim, item, run.mode.steps);
    },
    async score(item, sim, predicted, run, signal) {
      const rules = await ruleScores(item, sim, predicted);
      // A pairwise judge compares two simulators later (`bench.judgePairwise`), not each unit.
      if (run.judge === null || run.judge.mode === 'pairwise') return { scores: rules };
      const judge = await judgeFor(run, run.judge);
      const judged = await judge.judge(item, sim, predicted, signal);
      return { scores: [...rules, ...judged.scores], judgeUsage: judged.usage };
    },
    async prepare() {
      await pool?.warm();
    },
    async close() {
      await pool?.close();
    },
  };
}

// Per store, like a server's workers: a bench version never changes, so its corpus is kept.
const inlineDeps = new WeakMap<Store, BenchRunDeps>();

/**
 * The run's own simulators, judge and scoring for work on a few units at a time outside a run's
 * chunks (a drill-down's re-run, verdicts asked for again): scored inline, where a worker thread
 * would cost more than it saves.
 */
export function inlineRunDeps(store: Store): BenchRunDeps {
  let deps = inlineDeps.get(store);
  if (deps === undefined) {
    deps = createBenchRunDeps(store, { scoring: 'inline' });
    inlineDeps.set(store, deps);
  }
  return deps;
}
