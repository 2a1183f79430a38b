import { TRPCError } from '@trpc/server';
import type { RuleSetVersionSummary } from '@terrarium/db';
import {
  compileRuleSet,
  DEFAULT_RULE_SET_NAMES,
  defaultRuleSetByName,
  diffLines,
  diffableDocument,
  diffRuleSets,
  locateRuleSetField,
  parseRuleSet,
  rewardItemOf,
  ruleSetYaml,
  validateRuleSet,
  type CompiledRuleSet,
  type EvaluateOptions,
  type ItemReward,
  type RewardItem,
  type RuleSet,
  type RuleSetIssue,
  type RuleSetParse,
} from '@terrarium/rubrics';
import { simToGrade } from '@terrarium/schema';
import type { ServiceContext } from '../trpc';
import { customRuleIssues, type CheckCustomRule } from './custom-rule-check';

export interface RuleSetVersionView {
  name: string;
  /** null for a built-in default never saved under its name. */
  version: number | null;
  document: string;
  ruleSet: RuleSet;
  author: string;
  message: string;
  createdAt: string | null;
}

export interface RuleSetListEntry {
  name: string;
  latestVersion: number | null;
  versions: number;
  author: string;
  message: string;
  updatedAt: string | null;
  builtin: boolean;
}

function badRequest(issues: readonly RuleSetIssue[]): TRPCError {
  return new TRPCError({
    code: 'BAD_REQUEST',
    message: issues
      .map(
        (issue) => `${issue.field || 'document'} (${issue.line}:${issue.column}): ${issue.message}`,
      )
      .join('; '),
  });
}

/** Stored rule sets, then the built-in defaults not yet saved under their names. */
export async function listRuleSets(ctx: ServiceContext): Promise<RuleSetListEntry[]> {
  const stored = await ctx.store.listRuleSets();
  const names = new Set(stored.map((entry) => entry.name));
  return [
    ...stored.map((entry) => ({
      name: entry.name,
      latestVersion: entry.version,
      versions: entry.versions,
      author: entry.author,
      message: entry.message,
      updatedAt: entry.createdAt,
      builtin: DEFAULT_RULE_SET_NAMES.includes(entry.name),
    })),
    ...DEFAULT_RULE_SET_NAMES.filter((name) => !names.has(name)).map((name) => ({
      name,
      latestVersion: null,
      versions: 0,
      author: 'terrarium',
      message: 'built-in default',
      updatedAt: null,
      builtin: true,
    })),
  ];
}

export function listVersions(ctx: ServiceContext, name: string): Promise<RuleSetVersionSummary[]> {
  return ctx.store.listRuleSetVersions(name);
}

export async function getVersion(
  ctx: ServiceContext,
  name: string,
  version?: number,
): Promise<RuleSetVersionView> {
  const stored = await ctx.store.getRuleSetVersion(name, version);
  if (stored !== null) {
    const parsed = validateRuleSet(stored.ruleSet);
    if (!parsed.ok) throw badRequest(parsed.issues);
    return { ...stored, ruleSet: parsed.ruleSet };
  }
  const fallback = version === undefined ? defaultRuleSetByName(name) : null;
  if (fallback === null) {
    throw new TRPCError({
      code: 'NOT_FOUND',
      message: version === undefined ? `no rule set ${name}` : `no version ${version} of ${name}`,
    });
  }
  return {
    name,
    version: null,
    document: ruleSetYaml(fallback),
    ruleSet: fallback,
    author: 'terrarium',
    message: 'built-in default',
    createdAt: null,
  };
}

/**
 * Parses a rule set (YAML or JSON) and checks its custom rules in the sandbox: the issues a save
 * refuses, each with its field and position.
 */
export async function checkDocument(
  document: string,
  check: CheckCustomRule,
): Promise<RuleSetParse> {
  const parsed = parseRuleSet(document);
  if (!parsed.ok) return parsed;
  const issues = await customRuleIssues(parsed.ruleSet, check, (path) =>
    locateRuleSetField(document, path),
  );
  return issues.length === 0 ? parsed : { ok: false, issues };
}

/** Checks (`checkDocument`) and stores the next version; the name comes from the document. */
export async function saveVersion(
  ctx: ServiceContext,
  input: { document: string; message: string; author: string },
  check: CheckCustomRule,
): Promise<RuleSetVersionView> {
  const parsed = await checkDocument(input.document, check);
  if (!parsed.ok) throw badRequest(parsed.issues);
  const stored = await ctx.store.saveRuleSetVersion({
    name: parsed.ruleSet.name,
    document: input.document,
    ruleSet: parsed.ruleSet,
    author: input.author,
    message: input.message,
  });
  return { ...stored, ruleSet: parsed.ruleSet };
}

export async function diffVersions(
  ctx: ServiceContext,
  input: { name: string; from: number; to: number },
) {
  const [from, to] = await Promise.all([
    getVersion(ctx, input.name, input.from),
    getVersion(ctx, input.name, input.to),
  ]);
  return {
    from: {
      version: from.version,
      document: from.document,
      author: from.author,
      message: from.message,
    },
    to: { version: to.version, document: to.document, author: to.author, message: to.message },
    lines: diffLines(diffableDocument(from.document), diffableDocument(to.document)),
    entries: diffRuleSets(from.ruleSet, to.ruleSet),
  };
}

export type PreviewSample =
  | { kind: 'first'; n: number }
  | { kind: 'random'; n: number; seed: number }
  | { kind: 'worst'; n: number }
  | { kind: 'chosen'; itemIds: string[] };

export type PreviewSource =
  { kind: 'run'; runId: string; sim?: string | undefined } | { kind: 'items'; items: RewardItem[] };

/** Where a run's item comes from: what tells it apart in the table, beside its id's hash. */
export interface PreviewPlace {
  trajectory: string | null;
  turnIndex: number;
  totalTurns: number;
}

/** The action shown for an item; longer ones are cut (the item's page has it whole). */
const ACTION_SHOWN = 120;

export interface PreviewItem {
  itemId: string;
  /** The bench item's task (its stratum, e.g. `intercode/bash`); null for items sent inline. */
  task: string | null;
  /** Null for items sent inline. */
  place: PreviewPlace | null;
  /** The action the observation answers, cut to ACTION_SHOWN characters; null when not given. */
  action: string | null;
  domain: string | null;
  draft: ItemReward;
  /** The last saved version's score of the same item (null when nothing is saved under the name). */
  saved: ItemReward | null;
  delta: number | null;
}

/** Candidate predictions scanned for `worst` (the draft's lowest scores among them), drawn at random. */
const WORST_POOL = 500;

interface PreviewCandidate {
  itemId: string;
  task: string | null;
  place: PreviewPlace | null;
  item: RewardItem;
}

async function runItems(
  ctx: ServiceContext,
  source: Extract<PreviewSource, { kind: 'run' }>,
  sample: PreviewSample,
): Promise<{ sim: string | null; candidates: PreviewCandidate[] }> {
  const run = await ctx.store.getBenchRun(source.runId);
  if (run === null)
    throw new TRPCError({ code: 'NOT_FOUND', message: `no bench run ${source.runId}` });
  // Without a check, a simulator the run never had would preview as an empty table.
  if (source.sim !== undefined && !run.sims.includes(source.sim)) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `source.sim: ${source.sim} is not a simulator of bench run ${run.id} (${run.sims.join(', ')})`,
    });
  }
  // Unless one is named, the first that is not an oracle: replay would score 1 everywhere.
  const sim = simToGrade(run.sims, source.sim ?? null) ?? undefined;
  const limit =
    sample.kind === 'chosen'
      ? sample.itemIds.length
      : sample.kind === 'worst'
        ? WORST_POOL
        : sample.n;
  // A random sample, and the pool the worst are found in, are drawn from the whole run (in the
  // store's seeded order), not from its first items by id.
  const shuffle = sample.kind === 'random' ? sample.seed : sample.kind === 'worst' ? 0 : undefined;
  const page = await ctx.store.listPredictions(source.runId, {
    ...(sim === undefined ? {} : { sim }),
    ...(sample.kind === 'chosen' ? { itemIds: sample.itemIds } : {}),
    ...(shuffle === undefined ? {} : { shuffle }),
    offset: 0,
    limit: Math.min(1000, Math.max(1, limit)),
  });
  const predictions = page.rows.filter((p) => p.observation !== null);
  const benchItems = await ctx.store.getBenchItemsByIds(
    { name: run.bench, version: run.benchVersion },
    predictions.map((p) => p.itemId),
  );
  const byId = new Map(benchItems.map((item) => [item.id, item]));
  const candidates = predictions.flatMap((prediction) => {
    const item = byId.get(prediction.itemId);
    if (item === undefined || prediction.observation === null) return [];
    return [
      {
        itemId: item.id,
        task: item.task,
        place: {
          trajectory: item.origin.trajectory,
          turnIndex: item.turnIndex,
          totalTurns: item.totalTurns,
        },
        item: rewardItemOf(item, prediction.observation.content),
      },
    ];
  });
  return { sim: sim ?? null, candidates };
}

/** Deterministic shuffle (mulberry32) so a preview's random sample is the same on every keystroke. */
function shuffled<T>(values: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const out = values.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    const swap = out[i];
    const other = out[j];
    if (swap === undefined || other === undefined) continue;
    out[i] = other;
    out[j] = swap;
  }
  return out;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;
}

/**
 * Runs a draft rule set (unsaved text) and the last saved version of its name on the same items:
 * each item's breakdown and how the draft moves its score. Judge criteria are not called here
 * (a preview is interactive); their entries are n/a.
 */
export async function previewDraft(
  ctx: ServiceContext,
  input: { document: string; source: PreviewSource; sample: PreviewSample },
  evaluate: EvaluateOptions = {},
  check?: CheckCustomRule,
) {
  const parsed =
    check === undefined ? parseRuleSet(input.document) : await checkDocument(input.document, check);
  if (!parsed.ok) return { ok: false as const, issues: parsed.issues };
  const draft = compileRuleSet(parsed.ruleSet);
  let saved: CompiledRuleSet | null = null;
  const stored = await ctx.store.getRuleSetVersion(parsed.ruleSet.name);
  if (stored !== null) {
    const previous = validateRuleSet(stored.ruleSet);
    if (previous.ok) saved = compileRuleSet(previous.ruleSet);
  } else {
    const fallback = defaultRuleSetByName(parsed.ruleSet.name);
    if (fallback !== null) saved = compileRuleSet(fallback);
  }
  const fromSource: { sim: string | null; candidates: PreviewCandidate[] } =
    input.source.kind === 'items'
      ? {
          sim: null,
          candidates: input.source.items.map((item, i) => ({
            itemId: String(i),
            task: null,
            place: null,
            item,
          })),
        }
      : await runItems(ctx, input.source, input.sample);
  let candidates = fromSource.candidates;
  // A run's random sample comes drawn from the store; items sent inline are shuffled here.
  if (input.sample.kind === 'random' && input.source.kind === 'items')
    candidates = shuffled(candidates, input.sample.seed);
  if (input.sample.kind === 'random' || input.sample.kind === 'first')
    candidates = candidates.slice(0, input.sample.n);
  const scored: PreviewItem[] = await Promise.all(
    candidates.map(async ({ itemId, task, place, item }) => {
      const [draftReward, savedReward] = await Promise.all([
        draft.score(item, evaluate),
        saved === null ? Promise.resolve(null) : saved.score(item, evaluate),
      ]);
      return {
        itemId,
        task,
        place,
        action: item.action === undefined ? null : item.action.slice(0, ACTION_SHOWN),
        domain: item.domain ?? null,
        draft: draftReward,
        saved: savedReward,
        delta:
          savedReward === null || savedReward.score === null || draftReward.score === null
            ? null
            : draftReward.score - savedReward.score,
      };
    }),
  );
  const items =
    input.sample.kind === 'worst'
      ? // Worst first; items nothing applies to (n/a) last: they are not bad, only unscored.
        scored
          .toSorted((a, b) => (a.draft.score ?? Infinity) - (b.draft.score ?? Infinity))
          .slice(0, input.sample.n)
      : scored;
  return {
    ok: true as const,
    ruleSet: {
      name: parsed.ruleSet.name,
      savedVersion: stored?.version ?? null,
      /** The domain the document says it is written for, if it says. */
      domain: parsed.ruleSet.domain ?? null,
    },
    /** The simulator whose predictions were scored (null for items sent inline). */
    sim: fromSource.sim,
    items,
    summary: {
      items: items.length,
      // Over the items the rule set applies to: n/a is left out of a mean, never counted as 0.
      meanDraft: mean(
        items.flatMap((item) => (item.draft.score === null ? [] : [item.draft.score])),
      ),
      meanSaved:
        saved === null
          ? null
          : mean(
              items.flatMap((item) =>
                item.saved === null || item.saved.score === null ? [] : [item.saved.score],
              ),
            ),
      changed: items.filter((item) => item.delta !== null && Math.abs(item.delta) > 1e-9).length,
    },
  };
}
