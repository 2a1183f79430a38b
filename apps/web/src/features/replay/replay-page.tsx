import { useQuery } from '@tanstack/react-query';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { plural } from '../../app/format';
import { Link } from '../../app/link';
import { TrajectoryHeading, trajectoryCrumb } from '../trajectories/trajectory-heading';
import { isNotFound, NotFoundPage } from '../../app/not-found';
import { QueryStatus } from '../../app/query-status';
import { navigate } from '../../app/router';
import { useTRPC } from '../../app/trpc';
import { EMPTY_LIST_QUERY } from '../../app/url-state';
import { ContextPanel } from './context-panel';
import { ReplayControls } from './replay-controls';
import { stepAfter, type ReplayCommand } from './replay-keys';
import { useReplayStore } from './replay-store';
import { StepTimeline } from './step-timeline';
import { StepView } from './step-view';
import { usePlayback } from './use-playback';
import { useReplayKeyboard } from './use-replay-keyboard';
import { useStep } from './use-step-window';

function clampStep(step: number, total: number): number {
  return total <= 0 ? 0 : Math.min(Math.max(step, 0), total - 1);
}

/**
 * One trajectory, one step at a time. The step lives in the URL (`?step=N`, replaced while
 * stepping), so a reload or a shared link lands on the same step and back/forward leave the page.
 */
export function ReplayPage({
  datasetId,
  trajectoryId,
  step,
  marks,
}: {
  datasetId: string;
  trajectoryId: string;
  step: number;
  /** Words a search matched: kept in the URL from step to step, marked where they show. */
  marks: readonly string[];
}) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.trajectories.get.queryOptions({ trajectoryId }));
  const markers = useQuery({
    ...trpc.trajectories.markers.queryOptions({ trajectoryId }),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const datasetName =
    datasets.data?.find((candidate) => candidate.id === datasetId)?.name ?? datasetId;
  const total = detail.data?.stepCount ?? 0;
  // Until the header arrives, trust the URL, so the step window loads alongside the header.
  const index = detail.data ? clampStep(step, total) : Math.max(step, 0);

  // The step the page opened at (a search result's): only there does the view scroll to the
  // marked words; stepping on starts each step at its top.
  const [openedAt] = useState(index);
  // Several keys can arrive before React re-renders; each must move from the previous one.
  const latestIndex = useRef(index);
  const controlsRef = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    latestIndex.current = index;
    // After reading far down a long step, the next one starts at its top, with the controls in view.
    const controls = controlsRef.current;
    if (controls && controls.getBoundingClientRect().top < 0) controls.scrollIntoView();
  }, [index]);
  const goTo = (target: number) => {
    latestIndex.current = target;
    navigate({ page: 'replay', datasetId, trajectoryId, step: target, marks }, 'replace');
  };

  useEffect(() => {
    if (detail.data && step !== index) {
      navigate({ page: 'replay', datasetId, trajectoryId, step: index, marks }, 'replace');
    }
  }, [detail.data, step, index, datasetId, trajectoryId, marks]);

  const togglePlaying = useReplayStore((state) => state.togglePlaying);
  const onCommand = (command: ReplayCommand) => {
    if (command === 'toggle-play') togglePlaying();
    else goTo(stepAfter(command, latestIndex.current, total));
  };
  useReplayKeyboard(onCommand);
  usePlayback(index, total, goTo);
  const current = useStep(trajectoryId, index, total);

  if (isNotFound(detail.error)) {
    return (
      <NotFoundPage
        breadcrumb={
          <>
            <Link to={{ page: 'datasets' }}>Datasets</Link> ›{' '}
            <Link to={{ page: 'trajectories', datasetId, query: EMPTY_LIST_QUERY }}>
              {datasetName}
            </Link>{' '}
            › <span>{trajectoryId}</span>
          </>
        }
        title="No such trajectory"
      >
        No trajectory has the id <code>{trajectoryId}</code>; it may have been deleted with its
        dataset.{' '}
        <Link to={{ page: 'trajectories', datasetId, query: EMPTY_LIST_QUERY }}>
          See the trajectories of {datasetName}.
        </Link>
      </NotFoundPage>
    );
  }

  return (
    <div className="page replay-page">
      <div className="breadcrumb">
        <Link to={{ page: 'datasets' }}>Datasets</Link> ›{' '}
        <Link to={{ page: 'trajectories', datasetId, query: EMPTY_LIST_QUERY }}>{datasetName}</Link>{' '}
        › <span>{trajectoryCrumb(detail.data, trajectoryId)}</span>
      </div>
      <QueryStatus label="the trajectory" isPending={detail.isPending} error={detail.error} />
      {detail.data && (
        <>
          <div className="page-header">
            <TrajectoryHeading trajectory={detail.data} />
            <span className="count">
              {plural(detail.data.stepCount, 'step')} ·{' '}
              {plural(detail.data.transitionCount, 'transition')}
            </span>
            <Link
              to={{
                page: 'compare',
                datasetId,
                trajectoryId,
                sims: ['replay', 'retrieval'],
                step: index,
              }}
              className="button spacer-left"
              title="Compare simulators with the real observations"
            >
              Compare
            </Link>
          </div>
          <div ref={controlsRef}>
            <ReplayControls index={index} total={total} onCommand={onCommand} />
          </div>
          {markers.data ? (
            <StepTimeline markers={markers.data} current={index} onSelect={goTo} />
          ) : (
            <QueryStatus label="the timeline" isPending={markers.isPending} error={markers.error} />
          )}
          <div className="replay-body">
            <div className="replay-main">
              <QueryStatus label="steps" isPending={false} error={current.error} />
              {current.step ? (
                <StepView
                  key={current.step.index}
                  step={current.step}
                  marks={marks}
                  scrollToMarks={current.step.index === openedAt}
                />
              ) : (
                total > 0 && <p className="status">Loading step {index + 1}…</p>
              )}
            </div>
            <ContextPanel detail={detail.data} />
          </div>
        </>
      )}
    </div>
  );
}
