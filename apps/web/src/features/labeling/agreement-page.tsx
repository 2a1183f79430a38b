import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { QueueAgreement } from '@terrarium/api';
import type { PairedComparison } from '@terrarium/labels';
import { useState } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  ErrorBar,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { downloadText } from '../../app/download';
import { CATEGORY_TICKS, CHART_MARGIN, xAxisTitle, yAxisTitle } from '../../app/chart-axes';
import { plural } from '../../app/format';
import { Link } from '../../app/link';
import { useTRPC } from '../../app/trpc';
import {
  alphaBars,
  alphaRange,
  formatChartValue,
  formatInterval,
  formatStat,
  importSummary,
  resamplingNote,
  spearmanBars,
  type AgreementBar,
} from './agreement-data';
import { DisagreementList } from './disagreement-list';
import { DomainAgreementTable } from './domain-agreement-table';
import { RejudgePanel } from './rejudge-panel';
import './labeling.css';

// Below this many labeled items a percentile bootstrap's interval says little (it often ends at
// the estimate: resamples of 6 items repeat the same few values).
const FEW_ITEMS = 20;

const GREEK = /([\u0370-\u03ff]+)/;

function StatChart({
  title,
  statistic,
  bars,
  testId,
}: {
  title: string;
  /** The y axis's title: the statistic the bars show. */
  statistic: string;
  bars: AgreementBar[];
  testId: string;
}) {
  return (
    <figure className="panel chart-panel" aria-label={title} data-testid={testId}>
      <figcaption className="panel-header">
        <h3>
          {title.split(GREEK).map((part, index) =>
            // Headings are set in capitals, which turn ρ into Ρ (read "P") and α into Α (read "A").
            GREEK.test(part) ? (
              <span key={index} className="keep-case">
                {part}
              </span>
            ) : (
              part
            ),
          )}
        </h3>
      </figcaption>
      <div className="panel-body">
        {bars.length === 0 ? (
          <p className="muted">Not enough paired labels yet.</p>
        ) : (
          // Tall enough for the y title along the plot ("Krippendorff's α (−1 to 1)" lost its
          // end at 220 px: the slanted criterion names take 52 of them).
          <ResponsiveContainer width="100%" height={260}>
            <BarChart data={bars} margin={CHART_MARGIN}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="criterion" {...CATEGORY_TICKS} label={xAxisTitle('criterion')} />
              <YAxis domain={[-1, 1]} label={yAxisTitle(`${statistic} (−1 to 1)`)} />
              <Tooltip formatter={formatChartValue} />
              <Bar dataKey="value" fill="#2458b3" isAnimationActive={false}>
                <ErrorBar dataKey="error" width={6} stroke="#111" />
              </Bar>
            </BarChart>
          </ResponsiveContainer>
        )}
        <table className="table">
          <tbody>
            {bars.map((entry) => (
              <tr key={entry.criterion} data-testid={`${testId}-${entry.criterion}`}>
                <td>{entry.criterion}</td>
                {entry.value === null && entry.undefinedReason !== null ? (
                  <td colSpan={2} className="muted">
                    {entry.undefinedReason}
                  </td>
                ) : (
                  <>
                    <td className="mono">{formatStat(entry.value)}</td>
                    <td className="mono muted">
                      [{formatStat(entry.low)}, {formatStat(entry.high)}]
                    </td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/**
 * What a confusion table's columns are: the machine's score, a fraction in [0, 1], put on the
 * criterion's scale as the server does (min + score × (max − min), rounded).
 */
const COLUMNS: Record<'judge' | 'rules', string> = {
  judge: "columns the judge's score of the criterion",
  rules: 'columns the content rule score',
};

function Confusion({
  criterion,
  comparison,
  against,
}: {
  criterion: string;
  comparison: PairedComparison;
  against: 'judge' | 'rules';
}) {
  const { labels, counts } = comparison.confusion;
  return (
    <table className="table confusion" aria-label={`Confusion ${criterion}`}>
      <caption>
        {criterion}:{' '}
        {comparison.kappaUndefined ?? (
          <>
            κ {formatStat(comparison.kappa.nominal)}{' '}
            {formatInterval(comparison.kappaIntervals.nominal)} (quadratic{' '}
            {formatStat(comparison.kappa.quadratic)}{' '}
            {formatInterval(comparison.kappaIntervals.quadratic)})
          </>
        )}
        , {plural(comparison.pairs, 'item')}
        {comparison.pairs < 2 ? ' (κ needs two or more)' : ''}, 95% bootstrap · rows the humans'
        consensus, {COLUMNS[against]} put on the scale (min + score × (max − min), rounded)
      </caption>
      <thead>
        <tr>
          <th />
          {labels.map((label) => (
            <th key={String(label)}>{String(label)}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {counts.map((row, i) => (
          <tr key={String(labels[i])}>
            <th>{String(labels[i])}</th>
            {row.map((count, j) => (
              <td key={j} className="mono">
                {count}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Versus({
  title,
  comparisons,
  against,
}: {
  title: string;
  comparisons: QueueAgreement['humanVsJudge'];
  against: 'judge' | 'rules';
}) {
  return (
    <section className="panel panel-body" aria-label={title}>
      <h2>{title}</h2>
      <p className="muted small">
        {against === 'rules'
          ? 'Every criterion against the content score; a pitfall criterion against its complement, since it is high when something is wrong. '
          : ''}
        ρ ranks the humans&apos; consensus (the median of their labels, which can fall between two
        points) against the score as it is; κ and the tables count both as points of the scale (min
        + score × (max − min), rounded; a median halfway rounds up).
      </p>
      {Object.keys(comparisons).length === 0 ? (
        <p className="muted">No scores of this source on the labeled items.</p>
      ) : (
        <>
          <StatChart
            title={`${title}: Spearman ρ per criterion (95% bootstrap)`}
            statistic="Spearman ρ"
            bars={spearmanBars(comparisons)}
            testId={title.toLowerCase().replaceAll(' ', '-')}
          />
          <div className="agreement-grid">
            {Object.entries(comparisons).map(([criterion, comparison]) => (
              <Confusion
                key={criterion}
                criterion={criterion}
                comparison={comparison}
                against={against}
              />
            ))}
          </div>
        </>
      )}
    </section>
  );
}

/** The pooled α above the best criterion's: the pooling, not the labelers, made it high. */
export function pooledAboveEvery(
  pooled: number | null,
  range: { low: number; high: number } | null,
): boolean {
  return pooled !== null && range !== null && pooled > range.high;
}

function formatRange(range: { low: number; high: number }): string {
  return range.low === range.high
    ? formatStat(range.low)
    : `${formatStat(range.low)} to ${formatStat(range.high)}`;
}

/** Agreement of a queue's labelers, and of their consensus with the judge and the rules. */
export function AgreementPage({ queueId }: { queueId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const queue = useQuery(trpc.labels.queue.queryOptions({ queueId }));
  const [judgeVersion, setJudgeVersion] = useState<string | null>(null);
  const agreement = useQuery(trpc.labels.agreement.queryOptions({ queueId, judgeVersion }));
  const exported = useMutation({
    mutationFn: () => queryClient.fetchQuery(trpc.labels.exportJsonl.queryOptions({ queueId })),
    onSuccess: ({ text }) =>
      downloadText(text, `labels-queue-${queueId}.jsonl`, 'application/x-ndjson'),
  });
  const imported = useMutation(
    trpc.labels.importJsonl.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.labels.agreement.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.labels.disagreements.queryKey() }),
        ]),
    }),
  );
  const data = agreement.data;
  const range = data === undefined ? null : alphaRange(data);
  return (
    <div className="page">
      <header className="page-header">
        <h1>
          <Link to={{ page: 'labeling' }}>Labeling</Link> · {queue.data?.name ?? queueId} ·
          agreement
        </h1>
        <span className="page-actions">
          <Link to={{ page: 'label-queue', queueId }} className="button">
            Grade
          </Link>
          <button type="button" className="button" onClick={() => exported.mutate()}>
            Export JSONL
          </button>
          <label className="button">
            Import JSONL
            <input
              type="file"
              accept=".jsonl,.ndjson,.json"
              hidden
              onChange={async (event) => {
                const input = event.target;
                const file = input.files?.[0];
                // Cleared, so that choosing the same file again (an export read back) imports it.
                input.value = '';
                if (file) imported.mutate({ queueId, text: await file.text() });
              }}
            />
          </label>
        </span>
      </header>
      {imported.data && (
        <p className="status" role="status" data-testid="import-status">
          {importSummary(imported.data)}
        </p>
      )}
      {imported.error && (
        <p className="status status-error" role="alert" data-testid="import-error">
          {imported.error.message}
        </p>
      )}
      {agreement.error && <p className="status status-error">{agreement.error.message}</p>}
      {data && (
        <>
          <p data-testid="agreement-summary">
            {/* Items with any label: the queue list's "complete" counts those with all they need. */}
            {plural(data.labels, 'label')} on {plural(data.labelers.items, 'item')} ·{' '}
            {plural(data.labelers.labelers, 'labeler')}
            {range !== null && (
              <>
                {' '}
                · α ordinal per criterion{' '}
                <strong data-testid="alpha-range">{formatRange(range)}</strong> (chart below)
              </>
            )}{' '}
            ·{' '}
            <span
              className="muted"
              title="Each item × criterion is one unit: a criterion everyone scores high beside one everyone scores low reads as agreement, so the pooled figure can exceed every criterion's own."
            >
              all criteria pooled
            </span>
            :{' '}
            {data.labelers.alphaUndefined === undefined ? (
              <>
                α ordinal{' '}
                <strong data-testid="alpha-ordinal">
                  {formatStat(data.labelers.krippendorffAlpha.ordinal)}
                </strong>{' '}
                {formatInterval(data.labelers.intervals?.ordinal)}{' '}
                <span
                  data-testid="alpha-resampling"
                  title="pnpm terrarium labels agreement FILE --bootstrap on this queue's export (Export JSONL) gives the same intervals."
                >
                  ({resamplingNote(data.labelers.intervals?.ordinal)})
                </span>
                {/* Beside the figure it qualifies (walk 47: it sat after α nominal). */}
                {pooledAboveEvery(data.labelers.krippendorffAlpha.ordinal, range) && (
                  <span className="muted" data-testid="pooled-caveat">
                    {' '}
                    (above every criterion’s own: pooling counts agreeing on which criteria score
                    high, so read the criteria)
                  </span>
                )}{' '}
                · α interval {formatStat(data.labelers.krippendorffAlpha.interval)} · α nominal{' '}
                {formatStat(data.labelers.krippendorffAlpha.nominal)}
              </>
            ) : (
              <span data-testid="alpha-ordinal">{data.labelers.alphaUndefined}</span>
            )}
            {/* Between two labelers κ is undefined exactly when α is, whose reason is shown. */}
            {data.labelers.cohenKappa &&
              data.labelers.cohenKappaUndefined === undefined &&
              ` · Cohen's κ ${formatStat(data.labelers.cohenKappa.nominal)} (quadratic ${formatStat(data.labelers.cohenKappa.quadratic)})`}
          </p>
          {data.labelers.items === 0 ? (
            <p className="note" data-testid="few-items">
              Nothing to measure yet: no item has a label. Agreement appears here once labelers have
              graded items (Grade, above), or labels are imported.
            </p>
          ) : (
            data.labelers.items < FEW_ITEMS && (
              <p className="note" data-testid="few-items">
                On {plural(data.labelers.items, 'item')} the 95% intervals are rough: resampling so
                few items often gives an interval that ends at the estimate itself. Read them as a
                sign, not a measure, until the queue has {FEW_ITEMS} or more items labeled.
              </p>
            )
          )}
          <StatChart
            title="Between labelers: Krippendorff's α (ordinal) per criterion, 95% bootstrap"
            statistic="Krippendorff's α"
            bars={alphaBars(data)}
            testId="alpha"
          />
          <DomainAgreementTable byDomain={data.byDomain} />
          <Versus title="Human vs judge" comparisons={data.humanVsJudge} against="judge" />
          <Versus title="Human vs rules" comparisons={data.humanVsRules} against="rules" />
        </>
      )}
      <RejudgePanel
        queueId={queueId}
        judgeVersion={judgeVersion}
        onJudgeVersion={setJudgeVersion}
      />
      <DisagreementList queueId={queueId} />
    </div>
  );
}
