import {
  officialJudgeMessages,
  officialJudgeScores,
  parseVerdict,
  judgeItemScores,
  judgePrompt,
  pairwiseItemScores,
  pairwiseOrder,
  pairwisePrompt,
  rubricFor,
  turingItemScore,
  turingOrder,
  turingPrompt,
} from '@terrarium/bench';
import type { BenchItem, ItemScore, JudgeConfig, Observation, UnitUsage } from '@terrarium/schema';
import {
  AGENTWORLDBENCH_SAMPLING,
  createEndpointPool,
  type ChatResult,
  type EndpointPool,
  type Pricing,
  type PromptFolder,
  withPoolCircuitBreaker,
} from '@terrarium/worlds';
import { endpointClient } from '../simulate/server-transport';
import { API_KEY_HINT, endpointApiKey, parseSimSpec, SimulatorError } from '../simulate/sim-spec';

export interface JudgeOptions {
  allowlist: readonly string[];
  /** Default: the server's undici transport. */
  fetch?: typeof fetch;
  /**
   * `--prompts DIR`: score mode judges as the official AgentWorldBench script does (its message
   * layout with the folder's judge prompts, temperature 0.6, 32,768 tokens, up to 3 attempts until
   * a `<final_evaluation>` verdict parses, failed judgings left out).
   */
  prompts?: PromptFolder | null;
  /** The judge endpoint's price (TERRARIUM_PRICING by its spec); without it its cost is unknown. */
  pricing?: Pricing;
}

/** A judging's scores and what its calls cost (retries and repeats included). */
export interface Judged {
  scores: ItemScore[];
  usage: UnitUsage;
}

/** Attempts per judging under the official protocol before the judging counts as failed. */
const OFFICIAL_ATTEMPTS = 3;

/** A judge model behind an OpenAI-compatible endpoint, pinned to one model and temperature. */
export interface Judge {
  readonly config: JudgeConfig;
  /** Score mode: the five dimensions and Overall; Turing mode: whether the judge was fooled. */
  judge(
    item: BenchItem,
    sim: string,
    predicted: Observation,
    signal?: AbortSignal,
  ): Promise<Judged>;
  /**
   * Pairwise mode: which of two simulators' predictions is closer to the real observation. An
   * aborted `signal` ends the judging with its reason.
   */
  pairwise(
    item: BenchItem,
    a: { sim: string; predicted: Observation },
    b: { sim: string; predicted: Observation },
    signal?: AbortSignal,
  ): Promise<Judged>;
}

/**
 * The calls of one judging, summed. A reply with no usage reported, or an endpoint with no price,
 * makes the cost unknown (null), as for simulators; a request that failed spent nothing known.
 */
class JudgingUsage {
  private inputTokens = 0;
  private outputTokens = 0;
  private costUsd: number | null = 0;
  /** Calls answered. */
  answered = 0;

  add(result: ChatResult): void {
    this.answered++;
    this.inputTokens += result.usage?.inputTokens ?? 0;
    this.outputTokens += result.usage?.outputTokens ?? 0;
    this.costUsd =
      this.costUsd === null || result.costUsd === null ? null : this.costUsd + result.costUsd;
  }

  total(): UnitUsage {
    return {
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      costUsd: this.costUsd,
    };
  }
}

type JudgeMessages = ReturnType<typeof judgePrompt>;

/**
 * A judging stopped by its signal (a canceled run, a user stopping a retry) after some of its calls
 * were answered: what those spent, so that it is counted though no verdict is stored.
 */
export class JudgingStopped extends Error {
  constructor(
    readonly usage: UnitUsage,
    /** Calls answered before the stop (0: nothing was spent). */
    readonly answered: number,
    reason: unknown,
  ) {
    super(`judging stopped: ${reason instanceof Error ? reason.message : String(reason)}`);
    this.name = 'JudgingStopped';
  }
}

/** Throws `JudgingStopped` with what the judging spent so far once `signal` is aborted. */
function stopIfAborted(signal: AbortSignal | undefined, usage: JudgingUsage): void {
  if (signal?.aborted === true) {
    throw new JudgingStopped(usage.total(), usage.answered, signal.reason);
  }
}

// Judge answers are short JSON; a thinking judge needs room for its reasoning before it.
const JUDGE_MAX_TOKENS = 4096;
const JUDGE_CONCURRENCY = 4;
// The seed of Turing and pairwise modes' A/B orders: fixed, so a rerun asks the same questions.
const ORDER_SEED = 0;

export function createJudge(config: JudgeConfig, options: JudgeOptions): Judge {
  const parsed = parseSimSpec(config.spec, 'judge');
  if (parsed.kind !== 'openai') {
    throw new SimulatorError(
      'judge',
      `a judge is a model endpoint (openai:URL#MODEL), not ${config.spec}`,
    );
  }
  let pool: EndpointPool;
  try {
    pool = createEndpointPool(
      [
        {
          baseUrl: parsed.baseUrl,
          model: parsed.model,
          maxConcurrency: JUDGE_CONCURRENCY,
          ...endpointApiKey(parsed.baseUrl),
          ...(options.pricing === undefined ? {} : { pricing: options.pricing }),
        },
      ],
      { ...endpointClient(options.fetch), allowlist: options.allowlist, apiKeyHint: API_KEY_HINT },
    );
    // A judge is asked about every item of a run: an unreachable one must fail fast (each
    // judging then recorded as failed, as for simulators).
    pool = withPoolCircuitBreaker(pool);
  } catch (error) {
    throw new SimulatorError('judge', error instanceof Error ? error.message : String(error));
  }

  /**
   * k judgings of one prompt (or of the prompt `messages` gives for each judging); a failed
   * request counts as an unparseable answer, not a crash. An aborted `signal` ends the judging
   * with its reason: nothing is asked after a cancel.
   */
  async function ask(
    messages: JudgeMessages | ((judging: number) => JudgeMessages),
    usage: JudgingUsage,
    signal: AbortSignal | undefined,
  ): Promise<string[]> {
    const answers: string[] = [];
    for (let judging = 0; judging < config.repeats; judging++) {
      stopIfAborted(signal, usage);
      try {
        const result = await pool.complete({
          ...(signal === undefined ? {} : { signal }),
          messages: typeof messages === 'function' ? messages(judging) : messages,
          temperature: config.temperature,
          maxTokens: JUDGE_MAX_TOKENS,
          // With k > 1 at temperature 0 the seed is what makes judgings differ where servers honour it.
          seed: judging,
          stream: false,
        });
        usage.add(result);
        answers.push(result.content);
      } catch (error) {
        stopIfAborted(signal, usage);
        answers.push(
          `(judge request failed: ${error instanceof Error ? error.message : String(error)})`,
        );
      }
    }
    return answers;
  }

  /** One official judging: retried until the verdict parses, as the official script does. */
  async function askOfficially(
    messages: JudgeMessages,
    usage: JudgingUsage,
    signal: AbortSignal | undefined,
  ): Promise<string[]> {
    const answers: string[] = [];
    for (let judging = 0; judging < config.repeats; judging++) {
      for (let attempt = 0; attempt < OFFICIAL_ATTEMPTS; attempt++) {
        stopIfAborted(signal, usage);
        try {
          const result = await pool.complete({
            ...(signal === undefined ? {} : { signal }),
            messages,
            temperature: AGENTWORLDBENCH_SAMPLING.temperature,
            maxTokens: AGENTWORLDBENCH_SAMPLING.maxTokens,
            stream: false,
          });
          usage.add(result);
          answers.push(result.content);
          if (parseVerdict(result.content).ok) break;
        } catch (error) {
          stopIfAborted(signal, usage);
          answers.push(
            `(judge request failed: ${error instanceof Error ? error.message : String(error)})`,
          );
        }
      }
    }
    return answers;
  }

  const prompts = options.prompts ?? null;
  return {
    config,
    async judge(item, sim, predicted, signal) {
      const usage = new JudgingUsage();
      const judged = (scores: ItemScore[]): Judged => ({ scores, usage: usage.total() });
      if (prompts !== null && config.mode === 'score') {
        const messages = officialJudgeMessages(item, predicted.content, prompts);
        const answers = await askOfficially(messages, usage, signal);
        return judged(officialJudgeScores(item.id, sim, answers));
      }
      if (config.mode === 'turing') {
        const realIs = Array.from({ length: config.repeats }, (_, judging) =>
          turingOrder(item.id, ORDER_SEED, judging),
        );
        const answers = await ask(
          (judging) =>
            realIs[judging] === 'A'
              ? turingPrompt(item, item.real, predicted)
              : turingPrompt(item, predicted, item.real),
          usage,
          signal,
        );
        return judged([turingItemScore(item.id, sim, answers, realIs)]);
      }
      if (config.mode === 'pairwise') return judged([]);
      const answers = await ask(
        judgePrompt(item, predicted, rubricFor(item.domain)),
        usage,
        signal,
      );
      return judged(judgeItemScores(item.id, sim, answers));
    },
    async pairwise(item, a, b, signal) {
      const usage = new JudgingUsage();
      const shownAs = Array.from({ length: config.repeats }, (_, judging) =>
        pairwiseOrder(item.id, a.sim, b.sim, judging, ORDER_SEED),
      );
      const rubric = rubricFor(item.domain);
      const answers = await ask(
        (judging) =>
          shownAs[judging] === 'A'
            ? pairwisePrompt(item, a.predicted, b.predicted, rubric)
            : pairwisePrompt(item, b.predicted, a.predicted, rubric),
        usage,
        signal,
      );
      return {
        scores: pairwiseItemScores(item.id, a.sim, b.sim, answers, shownAs),
        usage: usage.total(),
      };
    },
  };
}
