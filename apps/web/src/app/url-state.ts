import {
  DOMAINS,
  OUTCOME_FILTERS,
  SCORE_SOURCES,
  SOURCE_FORMATS,
  type Domain,
  type OutcomeFilter,
  type ScoreSelector,
  type SourceFormat,
} from '@terrarium/schema';

/** The trajectory list's search and filters, as the URL carries them. */
export interface ListQuery {
  q: string;
  domain: Domain | null;
  format: SourceFormat | null;
  outcome: OutcomeFilter | null;
  minSteps: number | null;
  maxSteps: number | null;
}

export const EMPTY_LIST_QUERY: ListQuery = {
  q: '',
  domain: null,
  format: null,
  outcome: null,
  minSteps: null,
  maxSteps: null,
};

/**
 * Every page of the app. `step` is the 0-based step index; the URL shows it 1-based (`?step=1` is the
 * first step) so that it matches the "Step N / total" counter a person reads.
 */
export type Route =
  | { page: 'datasets' }
  | { page: 'quarantine'; datasetId: string }
  | { page: 'trajectories'; datasetId: string | null; query: ListQuery }
  | {
      page: 'replay';
      datasetId: string;
      trajectoryId: string;
      step: number;
      /** Words a search matched, shown marked (`?mark=`), with the JSON holding them opened. */
      marks?: readonly string[] | undefined;
    }
  | {
      page: 'compare';
      datasetId: string;
      trajectoryId: string;
      sims: string[];
      step: number;
      /** Opened from a bench item: that run and item, predicted through the run's own code path. */
      bench?: BenchItemRef | undefined;
    }
  | { page: 'models' }
  | { page: 'import' }
  | { page: 'benches' }
  | {
      page: 'bench-run';
      runId: string;
      /** The score chosen; null: the run's Overall (`overallSelector`), as the CLI opens it. */
      score: ScoreSelector | null;
      /** The leaderboard cell drilled into, if any. */
      cell: BenchCell | null;
      /** The item selected in the drill-down. */
      item: string | null;
    }
  | {
      page: 'bench-compare';
      runId: string;
      otherRunId: string | null;
      /** The score chosen; null: the Overall both runs have (`sharedOverallSelector`). */
      score: ScoreSelector | null;
    }
  | { page: 'labeling' }
  | { page: 'label-queue'; queueId: string }
  | { page: 'label-agreement'; queueId: string }
  | { page: 'rule-sets' }
  | { page: 'worlds'; datasetId: string | null }
  | { page: 'curriculum'; runId: string | null }
  | { page: 'not-found'; path: string };

/** A leaderboard cell: a simulator on a task, or on `overall`/`macro`. */
export interface BenchCell {
  sim: string;
  task: string;
}

/** `score=rule:exact-match`; absent or malformed is null: the run's Overall. */
function parseScore(params: URLSearchParams): ScoreSelector | null {
  const text = params.get('score') ?? '';
  const colon = text.indexOf(':');
  const source = pick(SCORE_SOURCES, text.slice(0, colon));
  const metric = text.slice(colon + 1);
  return colon === -1 || source === null || metric === '' ? null : { source, metric };
}

function parseCell(params: URLSearchParams): BenchCell | null {
  const sim = params.get('sim');
  const task = params.get('task');
  return sim === null || sim === '' || task === null || task === '' ? null : { sim, task };
}

function formatBenchRunQuery(route: {
  score: ScoreSelector | null;
  cell?: BenchCell | null;
  item?: string | null;
  otherRunId?: string | null;
}): string {
  const params = new URLSearchParams();
  if (route.otherRunId) params.set('with', route.otherRunId);
  if (route.score !== null) params.set('score', `${route.score.source}:${route.score.metric}`);
  if (route.cell) {
    params.set('sim', route.cell.sim);
    params.set('task', route.cell.task);
    if (route.item) params.set('item', route.item);
  }
  const search = params.toString();
  return search === '' ? '' : `?${search}`;
}

function pick<T extends string>(allowed: readonly T[], value: string | null): T | null {
  return allowed.find((candidate) => candidate === value) ?? null;
}

function parseCount(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : null;
}

function parseListQuery(params: URLSearchParams): ListQuery {
  return {
    q: params.get('q') ?? '',
    domain: pick(DOMAINS, params.get('domain')),
    format: pick(SOURCE_FORMATS, params.get('format')),
    outcome: pick(OUTCOME_FILTERS, params.get('outcome')),
    minSteps: parseCount(params.get('minSteps')),
    maxSteps: parseCount(params.get('maxSteps')),
  };
}

function formatListQuery(query: ListQuery): string {
  const params = new URLSearchParams();
  if (query.q !== '') params.set('q', query.q);
  if (query.domain) params.set('domain', query.domain);
  if (query.format) params.set('format', query.format);
  if (query.outcome) params.set('outcome', query.outcome);
  if (query.minSteps !== null) params.set('minSteps', String(query.minSteps));
  if (query.maxSteps !== null) params.set('maxSteps', String(query.maxSteps));
  const search = params.toString();
  return search === '' ? '' : `?${search}`;
}

/** A bench run's item, as Compare carries it (`?bench=RUN&item=ID`). */
export interface BenchItemRef {
  runId: string;
  itemId: string;
}

function parseBenchItemRef(params: URLSearchParams): { bench?: BenchItemRef } {
  const runId = params.get('bench');
  const itemId = params.get('item');
  return runId && itemId ? { bench: { runId, itemId } } : {};
}

/** Marks are words: a few, each short (a crafted link cannot make the page search for much). */
const MAX_MARKS = 8;
const MAX_MARK_LENGTH = 100;

function parseMarks(params: URLSearchParams): string[] {
  return [...new Set(params.getAll('mark').map((mark) => mark.trim()))]
    .filter((mark) => mark !== '' && mark.length <= MAX_MARK_LENGTH)
    .slice(0, MAX_MARKS);
}

function parseStep(params: URLSearchParams): number {
  const oneBasedStep = parseCount(params.get('step'));
  return oneBasedStep === null || oneBasedStep < 1 ? 0 : oneBasedStep - 1;
}

/** Simulator specs are comma-separated; a spec itself never holds a comma in practice, URLs aside. */
function parseSims(params: URLSearchParams): string[] {
  const sims = (params.get('sims') ?? '')
    .split(',')
    .map((sim) => sim.trim())
    .filter((sim) => sim !== '');
  return [...new Set(sims)];
}

function decodeSegments(pathname: string): string[] | null {
  try {
    return pathname
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment));
  } catch {
    // A malformed %-escape: the path names nothing we know.
    return null;
  }
}

export function parseRoute(pathname: string, search: string): Route {
  const segments = decodeSegments(pathname);
  const params = new URLSearchParams(search);
  if (segments === null) return { page: 'not-found', path: pathname };
  const [first, datasetId, third, trajectoryId, ...rest] = segments;
  if (first === undefined) return { page: 'datasets' };
  if (first === 'import' && datasetId === undefined) return { page: 'import' };
  if (first === 'models' && datasetId === undefined) return { page: 'models' };
  if (first === 'benches' && datasetId === undefined) return { page: 'benches' };
  if (first === 'labeling' && trajectoryId === undefined) {
    if (datasetId === undefined) return { page: 'labeling' };
    if (third === undefined) return { page: 'label-queue', queueId: datasetId };
    if (third === 'agreement') return { page: 'label-agreement', queueId: datasetId };
  }
  if (first === 'rule-sets' && datasetId === undefined) return { page: 'rule-sets' };
  if (first === 'curriculum' && datasetId === undefined) {
    return { page: 'curriculum', runId: params.get('run') || null };
  }
  if (first === 'worlds' && datasetId === undefined) {
    return { page: 'worlds', datasetId: params.get('dataset') || null };
  }
  if (first === 'bench-runs' && datasetId !== undefined && trajectoryId === undefined) {
    if (third === undefined) {
      const cell = parseCell(params);
      return {
        page: 'bench-run',
        runId: datasetId,
        score: parseScore(params),
        cell,
        item: cell === null ? null : params.get('item') || null,
      };
    }
    if (third === 'compare') {
      return {
        page: 'bench-compare',
        runId: datasetId,
        otherRunId: params.get('with') || null,
        score: parseScore(params),
      };
    }
  }
  if (
    first === 'datasets' &&
    datasetId !== undefined &&
    third === 'trajectories' &&
    trajectoryId !== undefined &&
    rest.length === 1 &&
    rest[0] === 'compare'
  ) {
    return {
      page: 'compare',
      datasetId,
      trajectoryId,
      sims: parseSims(params),
      step: parseStep(params),
      ...parseBenchItemRef(params),
    };
  }
  if (first === 'trajectories' && datasetId === undefined) {
    return { page: 'trajectories', datasetId: null, query: parseListQuery(params) };
  }
  if (first === 'datasets' && rest.length === 0) {
    if (datasetId === undefined) return { page: 'datasets' };
    if (third === undefined) {
      return { page: 'trajectories', datasetId, query: parseListQuery(params) };
    }
    if (third === 'quarantine' && trajectoryId === undefined) {
      return { page: 'quarantine', datasetId };
    }
    if (third === 'trajectories' && trajectoryId !== undefined) {
      const marks = parseMarks(params);
      return {
        page: 'replay',
        datasetId,
        trajectoryId,
        step: parseStep(params),
        ...(marks.length === 0 ? {} : { marks }),
      };
    }
  }
  return { page: 'not-found', path: pathname };
}

export function formatRoute(route: Route): string {
  switch (route.page) {
    case 'datasets':
      return '/';
    case 'import':
      return '/import';
    case 'quarantine':
      return `/datasets/${encodeURIComponent(route.datasetId)}/quarantine`;
    case 'trajectories': {
      const base =
        route.datasetId === null
          ? '/trajectories'
          : `/datasets/${encodeURIComponent(route.datasetId)}`;
      return base + formatListQuery(route.query);
    }
    case 'replay':
      return (
        `/datasets/${encodeURIComponent(route.datasetId)}` +
        `/trajectories/${encodeURIComponent(route.trajectoryId)}?step=${route.step + 1}` +
        (route.marks ?? []).map((mark) => `&mark=${encodeURIComponent(mark)}`).join('')
      );
    case 'compare': {
      // Commas are kept readable (`sims=replay,retrieval`); each spec's own characters are escaped.
      const sims =
        route.sims.length > 0 ? `sims=${route.sims.map(encodeURIComponent).join(',')}&` : '';
      return (
        `/datasets/${encodeURIComponent(route.datasetId)}` +
        `/trajectories/${encodeURIComponent(route.trajectoryId)}/compare?${sims}step=${route.step + 1}` +
        (route.bench
          ? `&bench=${encodeURIComponent(route.bench.runId)}&item=${encodeURIComponent(route.bench.itemId)}`
          : '')
      );
    }
    case 'models':
      return '/models';
    case 'benches':
      return '/benches';
    case 'bench-run':
      return `/bench-runs/${encodeURIComponent(route.runId)}${formatBenchRunQuery(route)}`;
    case 'bench-compare':
      return `/bench-runs/${encodeURIComponent(route.runId)}/compare${formatBenchRunQuery(route)}`;
    case 'labeling':
      return '/labeling';
    case 'label-queue':
      return `/labeling/${encodeURIComponent(route.queueId)}`;
    case 'label-agreement':
      return `/labeling/${encodeURIComponent(route.queueId)}/agreement`;
    case 'rule-sets':
      return '/rule-sets';
    case 'curriculum':
      return route.runId === null
        ? '/curriculum'
        : `/curriculum?run=${encodeURIComponent(route.runId)}`;
    case 'worlds':
      return route.datasetId === null
        ? '/worlds'
        : `/worlds?dataset=${encodeURIComponent(route.datasetId)}`;
    case 'not-found':
      return route.path;
  }
}
