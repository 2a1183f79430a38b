import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BreakdownEntry, RewardItem } from '@terrarium/rubrics';
import { actionText } from '@terrarium/fidelity';
import { Action, DOMAINS, Domain, Observation } from '@terrarium/schema';
import { z } from 'zod';
import { fieldIssues, issuesMessage } from '../trpc';
import {
  RewardRequestError,
  RewardTimeoutError,
  type RewardService,
  type RuleSetChoice,
} from '../rulesets/reward-service';
import { sendError, sendJson } from './json-response';
import { BodyError, readJsonBody } from './read-json-body';

export const REWARD_PATH = '/v1/reward';
export const OPENRLHF_REWARD_PATH = '/v1/reward/openrlhf';
/** Items per request; a trainer sends one rollout batch, rarely more than a few thousand. */
export const MAX_REWARD_ITEMS = 10_000;

/**
 * An action as text (`name {json args}` for a tool call, the command line…), or as a bench item
 * holds it (`bench export`, `bench results`): the object is read as the bench's scorer reads it.
 */
const ActionInput = z
  .union([z.string(), Action], {
    error: 'expected the action as text, or an action object as a bench item holds it',
  })
  .describe(
    'the action as text (a tool call: `name {json args}`), or the object a bench item holds (`bench export`)',
  );
/** An observation's text, or the observation object a bench item holds. */
const ObservationInput = z.union([z.string(), Observation], {
  error: "expected the observation's text, or an observation object as a bench item holds it",
});

/**
 * The turns before the action: a prompt, or the transitions a bench item holds. Each union here
 * says the shapes it takes when a value fits none: zod's own words only "Invalid input" (walk 52:
 * `history: [{"foo": 1}]` was told `items.0.history: Invalid input`).
 */
const HistoryInput = z.union(
  [z.string(), z.array(z.strictObject({ action: ActionInput, observation: ObservationInput }))],
  {
    error: 'expected a string (the prompt), or a list of {action, observation} turns',
  },
);

const RewardItemInput = z.strictObject({
  prediction: z.string(),
  reference: z.string(),
  history: HistoryInput.optional(),
  action: ActionInput.optional(),
  // One of the domains rule sets are written for: a typo would silently make domain rules n/a.
  domain: Domain.optional(),
});

const RuleSetRef = z.strictObject({
  name: z.string().min(1),
  version: z.number().int().positive().optional(),
});

export const RewardRequest = z.strictObject({
  ruleSet: z.record(z.string(), z.unknown()),
  items: z.array(RewardItemInput).min(1).max(MAX_REWARD_ITEMS),
});

export const OpenRlhfRequest = z.object({
  query: z.array(z.string()).min(1).max(MAX_REWARD_ITEMS),
  // Required: without them the prompt's text would be scored as part of the response.
  prompts: z.array(z.string(), {
    error:
      'required: each query\'s prompt, so that its response can be told apart ("" for a query that is the response alone)',
  }),
  // Required: rule sets score a response against its reference, and a batch without them would
  // score 0 everywhere and train on it (OpenRLHF sends them with `--label_key`).
  labels: z.array(
    z.string({ error: "each query's reference observation (OpenRLHF: --label_key)" }),
    { error: "required: each query's reference observation (OpenRLHF: --label_key)" },
  ),
});

/** A prompt (or any history text) is one earlier turn whose observation the scorers can cite. */
function historyOf(history: z.infer<typeof HistoryInput> | undefined): RewardItem['history'] {
  if (history === undefined) return [];
  if (typeof history === 'string') return [{ action: '', observation: history }];
  return history.map((turn) => ({
    action: textOfAction(turn.action),
    observation: typeof turn.observation === 'string' ? turn.observation : turn.observation.content,
  }));
}

function textOfAction(action: z.infer<typeof ActionInput>): string {
  return typeof action === 'string' ? action : actionText(action);
}

/** `{name, version?}` names a stored or default rule set; any other object is a rule set itself. */
function choiceOf(ruleSet: Record<string, unknown>): RuleSetChoice {
  const keys = Object.keys(ruleSet);
  if (keys.every((key) => key === 'name' || key === 'version')) {
    const ref = RuleSetRef.safeParse(ruleSet);
    if (!ref.success) throw issuesError(ref.error, 'ruleSet');
    return ref.data;
  }
  return { inline: ruleSet };
}

function issuesError(error: z.ZodError, prefix = ''): RewardRequestError {
  const issues = fieldIssues(error).map((issue) => ({
    field: [prefix, issue.field].filter((part) => part !== '').join('.'),
    message: issue.message,
  }));
  return new RewardRequestError(issuesMessage(issues), issues);
}

/** `POST /v1/reward` and `POST /v1/reward/openrlhf`; anything else under /v1/reward is a 404. */
export async function respondToReward(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  rewards: RewardService,
): Promise<void> {
  if (url.pathname !== REWARD_PATH && url.pathname !== OPENRLHF_REWARD_PATH) {
    request.resume();
    return sendError(response, 404, `no route ${url.pathname}`);
  }
  if (request.method !== 'POST') {
    request.resume();
    response.setHeader('allow', 'POST');
    return sendError(response, 405, `${url.pathname} answers POST`);
  }
  try {
    const body = await readJsonBody(request);
    if (url.pathname === REWARD_PATH)
      return sendJson(response, 200, await scoreNative(body, rewards));
    return sendJson(response, 200, await scoreOpenRlhf(body, url, rewards));
  } catch (error) {
    if (error instanceof BodyError) return sendError(response, error.status, error.message);
    if (error instanceof RewardRequestError)
      return sendError(response, error.status, error.message, error.issues);
    if (error instanceof RewardTimeoutError) return sendError(response, 504, error.message);
    throw error;
  }
}

async function scoreNative(body: unknown, rewards: RewardService) {
  const parsed = RewardRequest.safeParse(body);
  if (!parsed.success) throw issuesError(parsed.error);
  const items: RewardItem[] = parsed.data.items.map((item) => ({
    prediction: item.prediction,
    reference: item.reference,
    history: historyOf(item.history),
    ...(item.action === undefined ? {} : { action: textOfAction(item.action) }),
    ...(item.domain === undefined ? {} : { domain: item.domain }),
  }));
  const batch = await rewards.score(choiceOf(parsed.data.ruleSet), items);
  return { ruleSet: batch.ruleSet, results: batch.results };
}

/**
 * The end-of-sequence and padding tokens a decoder leaves after a response when it keeps special
 * tokens (OpenRLHF decodes its sequences with `skip_special_tokens=False`): ChatML's and Llama 3's
 * `<|…|>` tokens, SentencePiece's `</s>`, Gemma's `<eos>`/`<end_of_turn>`, `<pad>`, DeepSeek's
 * full-width `<｜end▁of▁sentence｜>`. A reference never ends with one, so a correct response
 * followed by one scored 0.
 */
const TRAILING_SPECIAL_TOKENS =
  /(?:\s*(?:<\|[A-Za-z0-9_]+\|>|<\/s>|<eos>|<pad>|<end_of_turn>|<｜[^｜<>]{1,40}｜>))+\s*$/u;

/**
 * The response in a query (prompt + response): what follows the prompt's first occurrence, which
 * is the start unless a decoder left special tokens or padding before it, without the special
 * tokens that end it. A query that does not hold its prompt is refused: scoring it whole would
 * reward the prompt's text.
 */
function responseOf(query: string, prompt: string, index: number): string {
  if (prompt === '') return query.replace(TRAILING_SPECIAL_TOKENS, '');
  const at = query.indexOf(prompt);
  if (at >= 0) return query.slice(at + prompt.length).replace(TRAILING_SPECIAL_TOKENS, '');
  const field = `prompts.${index}`;
  const message = `query ${index} does not contain its prompt, so its response cannot be told apart`;
  throw new RewardRequestError(`${field}: ${message}`, [{ field, message }]);
}

/**
 * OpenRLHF's remote reward protocol, unchanged: `query` is prompt + response, `prompts` the
 * prompts, `labels` the references. The rule set comes from the URL (`?ruleSet=NAME&version=N`)
 * because the protocol's body has no place for it.
 */
async function scoreOpenRlhf(body: unknown, url: URL, rewards: RewardService) {
  const parsed = OpenRlhfRequest.safeParse(body);
  if (!parsed.success) throw issuesError(parsed.error);
  const { query, prompts, labels } = parsed.data;
  const mismatch = (field: string, length: number) =>
    new RewardRequestError(`${field}: ${length} entries for ${query.length} queries`, [
      { field, message: `expected ${query.length} entries, got ${length}` },
    ]);
  if (prompts.length !== query.length) throw mismatch('prompts', prompts.length);
  if (labels.length !== query.length) throw mismatch('labels', labels.length);
  const name = url.searchParams.get('ruleSet');
  if (name === null || name === '') {
    const message = 'name the rule set in the URL: /v1/reward/openrlhf?ruleSet=NAME[&version=N]';
    throw new RewardRequestError(message, [{ field: 'ruleSet', message }]);
  }
  const versionText = url.searchParams.get('version');
  const version = versionText === null ? undefined : Number(versionText);
  if (version !== undefined && !(Number.isInteger(version) && version > 0)) {
    throw new RewardRequestError('version: a positive integer', [
      { field: 'version', message: 'a positive integer' },
    ]);
  }
  const domainText = url.searchParams.get('domain');
  const parsedDomain = domainText === null ? null : Domain.safeParse(domainText);
  if (parsedDomain !== null && !parsedDomain.success) {
    const message = `one of ${DOMAINS.join(', ')}`;
    throw new RewardRequestError(`domain: ${message}`, [{ field: 'domain', message }]);
  }
  const domain = parsedDomain?.data;
  const items: RewardItem[] = query.map((text, i) => {
    const prompt = prompts[i] ?? '';
    return {
      prediction: responseOf(text, prompt, i),
      reference: labels[i] ?? '',
      history: prompt === '' ? [] : [{ action: '', observation: prompt }],
      ...(domain === undefined ? {} : { domain }),
    };
  });
  const naText = url.searchParams.get('na');
  const na = naText === null ? null : Number(naText);
  if (na !== null && (naText === '' || !Number.isFinite(na))) {
    throw new RewardRequestError(
      'na: a number, the reward of a sample the rule set does not apply to',
      [{ field: 'na', message: 'a number' }],
    );
  }
  const batch = await rewards
    .score(version === undefined ? { name } : { name, version }, items)
    .catch((error: unknown) => {
      throw error instanceof RewardRequestError ? inUrlFields(error) : error;
    });
  // A sample nothing in the rule set applies to (every rule out of scope, criteria without a
  // judge) has no reward. A trainer reading 0 would learn from a verdict nobody gave: refused,
  // naming the samples, unless the URL says what such a sample earns.
  const unscored = batch.results.flatMap((result, at) => (result.score === null ? [at] : []));
  if (unscored.length > 0 && na === null) {
    const message = `nothing in rule set ${name} applies to sample${unscored.length === 1 ? '' : 's'} ${unscored.join(', ')} (see /v1/reward for each breakdown): use a rule set for their domain, or add &na=NUMBER to the URL to reward them that value`;
    throw new RewardRequestError(
      message,
      unscored.map((at) => ({ field: `query.${at}`, message: 'no rule or criterion applies' })),
    );
  }
  const rewardsOut = batch.results.map((result) => result.score ?? na ?? 0);
  return {
    rewards: rewardsOut,
    scores: rewardsOut,
    extra_logs: extraLogs(batch.results, na ?? 0),
  };
}

/** The URL parameter a body field of the rule set stands for on the OpenRLHF route. */
const URL_FIELDS: Readonly<Record<string, string>> = {
  'ruleSet.name': 'ruleSet',
  'ruleSet.version': 'version',
};

/** This route names the rule set in its URL: `ruleSet` and `version`, not a body's `ruleSet.*`. */
function inUrlFields(error: RewardRequestError): RewardRequestError {
  return new RewardRequestError(
    error.message,
    error.issues.map((issue) => ({ ...issue, field: URL_FIELDS[issue.field] ?? issue.field })),
    error.status,
  );
}

/**
 * Per breakdown entry that applies to some sample of the batch, one number per sample. OpenRLHF
 * keeps `extra_logs` per sample and batches samples by the keys of the first one, so a key that
 * some samples lack fails its training step: every sample carries every such entry, logged as
 * `na` (0 when the URL gives none) where it does not apply. An entry that applies to no sample
 * (criteria without a judge, rules out of the URL's domain) is left out, as it is in every batch.
 */
function extraLogs(
  results: readonly { breakdown: BreakdownEntry[] }[],
  na: number,
): Record<string, number[]> {
  const logs: Record<string, number[]> = {};
  const first = results[0]?.breakdown ?? [];
  first.forEach((entry, at) => {
    const values = results.map((result) => result.breakdown[at]?.score ?? null);
    if (values.every((value) => value === null)) return;
    logs[entry.id] = values.map((value) => value ?? na);
  });
  return logs;
}

export function isRewardPath(pathname: string): boolean {
  return pathname === REWARD_PATH || pathname.startsWith(`${REWARD_PATH}/`);
}
