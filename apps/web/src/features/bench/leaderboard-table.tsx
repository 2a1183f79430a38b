import {
  answersFromRecordings,
  judgeSidesText,
  type JudgeGaps,
  type LeaderboardCell,
  type JudgeSides,
  type ScoreSelector,
  type SimFailures,
} from '@terrarium/schema';
import { formatCount, formatScore100, plural } from '../../app/format';
import type { BenchCell } from '../../app/url-state';
import { formatHalfWidth } from './format-bench';
import { SimName } from './sim-name';
import {
  intervalBar,
  leaderboardGrid,
  MACRO_TASK,
  metricDefinition,
  metricLabel,
  OVERALL_TASK,
  partialResultsText,
  SOURCE_LABELS,
} from './leaderboard';

const TASK_TITLES: Record<string, string> = {
  [OVERALL_TASK]: 'Overall',
  [MACRO_TASK]: 'Macro',
};

const TASK_HINTS: Record<string, string> = {
  [OVERALL_TASK]: 'Mean over all items (sample-weighted)',
  [MACRO_TASK]: 'Mean of the per-task means; none while a task with items to score has no score',
};

function IntervalBar({ cell }: { cell: LeaderboardCell }) {
  const bar = intervalBar(cell);
  if (bar === null) return null;
  return (
    <span className="ci-bar" aria-hidden="true">
      <span className="ci-range" style={{ left: `${bar.low}%`, width: `${bar.high - bar.low}%` }} />
      <span className="ci-mean" style={{ left: `${bar.mean}%` }} />
    </span>
  );
}

function CellButton({
  cell,
  selected,
  computing,
  onSelect,
}: {
  cell: LeaderboardCell;
  selected: boolean;
  computing: boolean;
  onSelect(): void;
}) {
  const halfWidth = formatHalfWidth(cell);
  const interval =
    cell.ciLow === null || cell.ciHigh === null
      ? computing
        ? 'interval being computed'
        : 'no interval'
      : `95% interval ${formatScore100(cell.ciLow)} to ${formatScore100(cell.ciHigh)}`;
  return (
    <button
      type="button"
      className="cell-button"
      data-testid="leaderboard-cell"
      data-sim={cell.sim}
      data-task={cell.task}
      aria-pressed={selected}
      // The ± shows half the width; a bootstrap interval need not be symmetric, so its bounds.
      title={interval}
      aria-label={`${cell.sim} on ${cell.task}: ${formatScore100(cell.mean)}, ${interval}, ${cell.n} items${cell.missing > 0 ? `, ${cell.missing} missing` : ''}`}
      onClick={onSelect}
    >
      <span className="cell-mean" data-testid="cell-mean">
        {formatScore100(cell.mean)}
      </span>
      {halfWidth !== null && <span className="cell-ci muted">{halfWidth}</span>}
      <IntervalBar cell={cell} />
      <CellCount cell={cell} />
    </button>
  );
}

/**
 * The items a cell's mean stands on and, when some have no score, how many: `n=887 · 159
 * missing`. The run page and the comparison print it alike, so a cell reads the same on both.
 */
export function CellCount({ cell }: { cell: Pick<LeaderboardCell, 'n' | 'missing'> }) {
  return (
    <span className="cell-n muted" data-testid="cell-n">
      n={formatCount(cell.n)}
      {cell.missing > 0 && (
        <span className="cell-missing"> · {formatCount(cell.missing)} missing</span>
      )}
    </span>
  );
}

function PartialNote({ score }: { score: ScoreSelector }) {
  return (
    <p className="muted leaderboard-partial" data-testid="leaderboard-partial">
      {partialResultsText(score, true)}
    </p>
  );
}

/**
 * Failed predictions are never scored, so no cell counts them: said here, per simulator, with an
 * example of why; a simulator with nothing scored would otherwise be absent from the table. So are
 * verdicts the judge did not give (a request that failed, an answer that could not be read; the
 * first error says which): their judge scores are missing, and a judge that never answers as
 * asked would otherwise look like a run that went well.
 */
function FailuresNote({
  failures,
  judgeGaps,
  scoredSims,
}: {
  failures: readonly SimFailures[];
  judgeGaps: readonly JudgeGaps[];
  scoredSims: readonly string[];
}) {
  if (failures.length === 0 && judgeGaps.length === 0) return null;
  return (
    <ul className="leaderboard-failures" data-testid="leaderboard-failures">
      {failures.map((failure) => (
        <li key={failure.sim} data-sim={failure.sim}>
          <span className="mono">{failure.sim}</span>:{' '}
          {plural(failure.failed, 'prediction', 'predictions')} failed, left out of every mean
          {scoredSims.includes(failure.sim) ? '' : ' (none of its predictions is scored)'}
          {answersFromRecordings(failure.sim) &&
            ' (misses: it answers only from the recordings, so a retry finds them missing again)'}
          . First error: <span className="mono">{failure.example}</span>
        </li>
      ))}
      {judgeGaps.map((gap) => (
        <li key={`${gap.sim} ${gap.metric}`} data-sim={gap.sim} data-judge-metric={gap.metric}>
          <span className="mono">{gap.sim}</span>: the judge gave no verdict on{' '}
          {formatCount(gap.unreadable)} of {plural(gap.asked, 'item')} (judge:{gap.metric}), whose
          judge scores are missing. First error: <span className="mono">{gap.example}</span>
        </li>
      ))}
    </ul>
  );
}

/** Scores a judge gives by naming a side, A or B: Turing's fooled share, pairwise win shares. */
function judgedBySide(score: ScoreSelector): boolean {
  return (
    score.source === 'judge' &&
    (score.metric === 'turing-fooled' || score.metric.startsWith('pairwise:'))
  );
}

/**
 * What a Turing or pairwise judge answered by side, under its shares: balanced sides make an even
 * split the mark of a judge that reads the responses, and an uneven one a warning that the shares
 * follow the position instead.
 */
function JudgeSidesNote({ sides }: { sides: JudgeSides }) {
  const said = judgeSidesText(sides);
  if (said === null) return null;
  return (
    <p className={said.preference ? 'note' : 'muted'} data-testid="judge-sides">
      {said.text}
    </p>
  );
}

function ComputingNote() {
  return (
    <p className="muted leaderboard-partial" data-testid="leaderboard-computing">
      The run has ended and these means are final; their 95% intervals are being computed.
    </p>
  );
}

/**
 * Simulators × (overall, macro, each task) for one score, with 95% intervals and item counts.
 * While the run goes on (`partial`), the means of what is scored so far, labelled as such; just
 * after it ends (`computing`), the final means while their intervals are computed.
 */
export function LeaderboardTable({
  cells,
  score,
  sims,
  selected,
  onSelect,
  partial = false,
  computing = false,
  failures = [],
  judgeGaps = [],
  judgeSides = null,
}: {
  cells: readonly LeaderboardCell[];
  score: ScoreSelector;
  sims: readonly string[];
  selected: BenchCell | null;
  onSelect(cell: BenchCell): void;
  /** The run goes on: the cells are its scores as of the table's last refresh. */
  partial?: boolean;
  computing?: boolean;
  failures?: readonly SimFailures[];
  judgeGaps?: readonly JudgeGaps[];
  /** Shown under a Turing or pairwise score's shares. */
  judgeSides?: JudgeSides | null;
}) {
  const grid = leaderboardGrid(cells, score, sims);
  const failuresNote = (
    <>
      <FailuresNote failures={failures} judgeGaps={judgeGaps} scoredSims={grid.sims} />
      {judgeSides !== null && judgedBySide(score) && <JudgeSidesNote sides={judgeSides} />}
    </>
  );
  if (grid.sims.length === 0) {
    return (
      <>
        {partial ? (
          <p className="muted" data-testid="leaderboard-partial">
            {partialResultsText(score, false)}
          </p>
        ) : (
          <p className="muted">
            No {score.source} scores for {score.metric} yet.
          </p>
        )}
        {failuresNote}
      </>
    );
  }
  return (
    <div className="table-scroll">
      {partial && <PartialNote score={score} />}
      {!partial && computing && <ComputingNote />}
      <table
        className="data-table leaderboard"
        data-testid="leaderboard"
        data-score={`${score.source}:${score.metric}`}
        data-partial={partial ? 'true' : undefined}
      >
        <caption className="leaderboard-caption">
          {SOURCE_LABELS[score.source]}:{' '}
          <abbr title={metricDefinition(score) ?? undefined} data-testid="metric-definition">
            {metricLabel(score)}
          </abbr>{' '}
          (0-100, mean ± half the 95% bootstrap interval; a cell's bounds on hover)
        </caption>
        <thead>
          <tr>
            <th scope="col">Simulator</th>
            {grid.tasks.map((task) => (
              <th key={task} scope="col" title={TASK_HINTS[task]} data-task={task}>
                {TASK_TITLES[task] ?? task}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {grid.sims.map((sim) => (
            <tr key={sim} data-sim={sim}>
              <th scope="row" className="mono">
                <SimName sim={sim} />
              </th>
              {grid.tasks.map((task) => {
                const cell = grid.cellAt(sim, task);
                return (
                  <td key={task} data-task={task}>
                    {cell === null ? (
                      <span className="muted">—</span>
                    ) : (
                      <CellButton
                        cell={cell}
                        selected={selected?.sim === sim && selected.task === task}
                        computing={computing}
                        onSelect={() => onSelect({ sim, task })}
                      />
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {failuresNote}
    </div>
  );
}
