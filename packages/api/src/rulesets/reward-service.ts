import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Store } from '@terrarium/db';
import {
  compileRuleSet,
  criteriaJudgePrompt,
  DEFAULT_RULE_SET_NAMES,
  defaultRuleSetByName,
  parseCriteriaAnswer,
  validateRuleSet,
  type CompiledRuleSet,
  type CriterionPoints,
  type CustomRule,
  type CustomRuleInput,
  type CustomRuleResult,
  type EvaluateOptions,
  type ItemReward,
  type RewardItem,
  type RuleSetIssue,
} from '@terrarium/rubrics';
import { createEndpointPool, type EndpointPool, withPoolCircuitBreaker } from '@terrarium/worlds';
import { endpointClient } from '../simulate/server-transport';
import { customRuleIssues, type CheckCustomRule } from './custom-rule-check';
import { API_KEY_HINT, endpointApiKey, parseSimSpec } from '../simulate/sim-spec';

/** Which rule set scores a request: a stored (or default) one by name, or one sent inline. */
export type RuleSetChoice = { name: string; version?: number } | { inline: unknown };

/** A request the caller must fix; `field` names the part of the body that is wrong. */
export class RewardRequestError extends Error {
  override name = 'RewardRequestError';
  constructor(
    message: string,
    readonly issues: { field: string; message: string }[],
    readonly status: 400 | 404 = 400,
  ) {
    super(message);
  }
}

export class RewardTimeoutError extends Error {
  override name = 'RewardTimeoutError';
}

export interface RewardBatch {
  ruleSet: { name: string; version: number | null };
  results: ItemReward[];
}

export interface RewardService {
  /** `signal`: the request's, so an inline rule set's check takes the request's turns. */
  resolve(
    choice: RuleSetChoice,
    signal?: AbortSignal,
  ): Promise<{ compiled: CompiledRuleSet; version: number | null }>;
  score(choice: RuleSetChoice, items: readonly RewardItem[]): Promise<RewardBatch>;
}

export interface RewardServiceOptions {
  store: Store;
  /** `openai:URL#MODEL`: scores the criteria no rule scores. Without it those criteria are n/a. */
  judgeSpec?: string;
  allowlist?: readonly string[];
  fetch?: typeof fetch;
  /** Runs custom rules off the event loop (a sandbox worker pool). Without it they score 0 with an error. */
  runCustom?: (
    rule: CustomRule,
    input: CustomRuleInput,
    signal?: AbortSignal,
  ) => Promise<CustomRuleResult>;
  /** Checks an inline rule set's custom rules before it scores (a stored one was checked when saved). */
  checkCustom?: CheckCustomRule;
  /** Whole-request limit; a batch still running then is answered 504. */
  timeLimitMs?: number;
  /** Judge or custom-rule items in flight per request. */
  concurrency?: number;
}

export const DEFAULT_REWARD_TIME_LIMIT_MS = 120_000;
const DEFAULT_CONCURRENCY = 16;
// Items scored between yields to the event loop, so a large rule-only batch never starves others.
const LOCAL_CHUNK = 32;
// How long "the latest version of X" is trusted before the store is asked again.
const LATEST_TTL_MS = 2_000;
const JUDGE_MAX_TOKENS = 2048;

function issuesToError(issues: readonly RuleSetIssue[]): RewardRequestError {
  const prefixed = issues.map((issue) => ({
    field: issue.field === '' ? 'ruleSet' : `ruleSet.${issue.field}`,
    message: issue.message,
  }));
  return new RewardRequestError(
    prefixed.map((issue) => `${issue.field}: ${issue.message}`).join('; '),
    prefixed,
  );
}

export function createRewardService(options: RewardServiceOptions): RewardService {
  const { store } = options;
  const timeLimitMs = options.timeLimitMs ?? DEFAULT_REWARD_TIME_LIMIT_MS;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const exact = new Map<string, CompiledRuleSet>();
  const latest = new Map<
    string,
    { at: number; compiled: CompiledRuleSet; version: number | null }
  >();
  const judgePool = options.judgeSpec === undefined ? null : judgePoolFor(options);

  async function fromStore(name: string, version?: number) {
    const key = `${name}@${version ?? 'latest'}`;
    if (version !== undefined) {
      const cached = exact.get(key);
      if (cached) return { compiled: cached, version };
    } else {
      const cached = latest.get(name);
      if (cached && Date.now() - cached.at < LATEST_TTL_MS) return cached;
    }
    const stored = await store.getRuleSetVersion(name, version);
    let found: { compiled: CompiledRuleSet; version: number | null };
    if (stored === null) {
      const fallback = version === undefined ? defaultRuleSetByName(name) : null;
      if (fallback === null) {
        if (version !== undefined && (await store.getRuleSetVersion(name)) !== null) {
          const what = `no version ${version} of ${name}`;
          throw new RewardRequestError(what, [{ field: 'ruleSet.version', message: what }], 404);
        }
        // walk 43: "no rule set default-tool (rule sets: …, default-tool, …)" named it as known.
        if (version !== undefined && defaultRuleSetByName(name) !== null) {
          const what = `${name} is built in and has no versions: leave out the version, or save it as a rule set of your own (the Rule sets page) and pin one of its versions`;
          throw new RewardRequestError(what, [{ field: 'ruleSet.version', message: what }], 404);
        }
        // Named with every name there is, stored or built in, as an unknown dataset is.
        const saved = (await store.listRuleSets()).map((entry) => entry.name);
        const known = [...new Set([...saved, ...DEFAULT_RULE_SET_NAMES])].join(', ');
        const what = `no rule set ${name} (rule sets: ${known})`;
        throw new RewardRequestError(what, [{ field: 'ruleSet.name', message: what }], 404);
      }
      found = { compiled: compileRuleSet(fallback), version: null };
    } else {
      const parsed = validateRuleSet(stored.ruleSet);
      // A stored version was valid when saved; failing now means the schema moved under it.
      if (!parsed.ok) throw issuesToError(parsed.issues);
      found = { compiled: compileRuleSet(parsed.ruleSet), version: stored.version };
    }
    if (version !== undefined) exact.set(key, found.compiled);
    else latest.set(name, { ...found, at: Date.now() });
    return found;
  }

  async function resolve(choice: RuleSetChoice, signal?: AbortSignal) {
    if ('inline' in choice) {
      const parsed = validateRuleSet(choice.inline);
      if (!parsed.ok) throw issuesToError(parsed.issues);
      const { checkCustom } = options;
      if (checkCustom !== undefined) {
        // In the request's lane (walk 47: checked in the shared lane, a new rule set waited
        // behind other callers' rules once before its own rules waited again).
        const issues = await customRuleIssues(parsed.ruleSet, (rule) => checkCustom(rule, signal));
        if (issues.length > 0) throw issuesToError(issues);
      }
      return { compiled: compileRuleSet(parsed.ruleSet), version: null };
    }
    return fromStore(choice.name, choice.version);
  }

  function evaluateOptions(signal: AbortSignal): EvaluateOptions {
    const { runCustom } = options;
    return {
      // The request's signal: its rules take turns with other callers', and are dropped from the
      // pool's queue when it times out (walk 47: a 504 left 19 s of its rules queued).
      ...(runCustom === undefined
        ? {}
        : { runCustom: (rule, input) => runCustom(rule, input, signal) }),
      ...(judgePool === null
        ? {}
        : {
            judge: async (item, criteria): Promise<CriterionPoints> => {
              try {
                const answer = await judgePool.complete({
                  messages: criteriaJudgePrompt(item, criteria),
                  temperature: 0,
                  maxTokens: JUDGE_MAX_TOKENS,
                  stream: false,
                  signal,
                });
                return parseCriteriaAnswer(answer.content, criteria);
              } catch {
                // An unreachable judge leaves its criteria n/a; the rules still score the item.
                return new Map();
              }
            },
          }),
    };
  }

  async function scoreAll(
    compiled: CompiledRuleSet,
    items: readonly RewardItem[],
    signal: AbortSignal,
  ): Promise<ItemReward[]> {
    const results: ItemReward[] = [];
    const local =
      !compiled.hasCustomRules && (compiled.judgedCriteria.length === 0 || judgePool === null);
    if (local) {
      for (let start = 0; start < items.length; start += LOCAL_CHUNK) {
        if (start > 0) await nextTurn();
        if (signal.aborted) throw new RewardTimeoutError('time limit');
        const end = Math.min(items.length, start + LOCAL_CHUNK);
        for (let i = start; i < end; i++) {
          const item = items[i];
          if (item !== undefined) results[i] = compiled.scoreLocally(item);
        }
      }
      return results;
    }
    const evaluate = evaluateOptions(signal);
    let next = 0;
    const lane = async () => {
      while (next < items.length) {
        if (signal.aborted) throw new RewardTimeoutError('time limit');
        const at = next++;
        const item = items[at];
        if (item !== undefined) results[at] = await compiled.score(item, evaluate);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
    return results;
  }

  return {
    resolve,
    async score(choice, items) {
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new RewardTimeoutError(`the batch took longer than ${timeLimitMs} ms`));
        }, timeLimitMs);
      });
      try {
        // The time limit covers resolving too: an inline rule set's custom rules are checked in
        // the sandbox pool first, taking turns with other requests' rules.
        const { compiled, version } = await Promise.race([
          resolve(choice, controller.signal),
          timeout,
        ]);
        const results = await Promise.race([scoreAll(compiled, items, controller.signal), timeout]);
        return { ruleSet: { name: compiled.ruleSet.name, version }, results };
      } finally {
        clearTimeout(timer);
        controller.abort();
      }
    },
  };
}

function judgePoolFor(options: RewardServiceOptions): EndpointPool {
  const parsed = parseSimSpec(options.judgeSpec ?? '', 'judge');
  if (parsed.kind !== 'openai')
    throw new Error(`a reward judge is an endpoint (openai:URL#MODEL), not ${options.judgeSpec}`);
  return withPoolCircuitBreaker(
    createEndpointPool(
      [
        {
          baseUrl: parsed.baseUrl,
          model: parsed.model,
          maxConcurrency: 8,
          ...endpointApiKey(parsed.baseUrl),
        },
      ],
      {
        ...endpointClient(options.fetch),
        apiKeyHint: API_KEY_HINT,
        ...(options.allowlist === undefined ? {} : { allowlist: options.allowlist }),
      },
    ),
  );
}
