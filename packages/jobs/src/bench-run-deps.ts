import type {
  BenchItem,
  BenchRun,
  ItemScore,
  Observation,
  SimSpec,
  UnitUsage,
} from '@terrarium/schema';
import type { PredictOptions, Transition, Usage, WorldModel } from '@terrarium/worlds';

/** One prediction's scores, and what the run's judge spent on them (absent when none was asked). */
export interface UnitScores {
  scores: ItemScore[];
  judgeUsage?: UnitUsage;
}

/**
 * What a bench run needs from the rest of Terrarium, injected so that this package knows no
 * simulator backend and no metric (the API package builds the real ones: `createBenchRunDeps`).
 */
export interface BenchRunDeps {
  /** The simulator for `sim`; called per item, so cache inside. A throw is the item's error. */
  simulatorFor(run: BenchRun, sim: SimSpec, item: BenchItem): Promise<WorldModel>;
  /**
   * Closed loop only: the history the simulator sees at `item` (its own earlier predictions in
   * place of the real observations). Default: the item's frozen real history.
   */
  historyFor?(run: BenchRun, sim: SimSpec, item: BenchItem): Promise<Transition[]>;
  /**
   * Scores of one prediction against `item.real`: the rule metrics, and the judge's when the run
   * has one (which is why it may be async and sees the run), with what the judge's calls cost.
   * `signal` aborts the judge's calls (the run was canceled or its worker stops): the promise
   * then rejects and the unit is left for a later attempt.
   */
  score(
    item: BenchItem,
    sim: SimSpec,
    predicted: Observation,
    run: BenchRun,
    signal?: AbortSignal,
  ): UnitScores | Promise<UnitScores>;
  /**
   * Dollars for one prediction's usage (from the endpoint's prices), null when not known (no
   * price, or no usage reported); without it every prediction costs 0.
   */
  costOf?(sim: SimSpec, usage: Usage): number | null;
  /** Options for every predict call (temperature, token budget); the signal is set per item. */
  predictOptions?: Omit<PredictOptions, 'signal' | 'onToken'>;
  /**
   * Starts ahead of the first run what it would otherwise wait for (a scoring thread that takes
   * about a second to load); a worker calls it when it starts and does not wait for it.
   */
  prepare?(): Promise<void>;
  /** Releases what the dependencies hold (a scoring thread) once no run uses them. */
  close?(): Promise<void>;
}
