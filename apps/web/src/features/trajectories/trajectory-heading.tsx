import type { TrajectoryDetail } from '@terrarium/schema';
import { trajectoryName } from './trajectory-name';

/**
 * A trajectory page's title: its distinguishing name, as the list shows it (task and trial, or the
 * instance), then the source's own id in full (a tau2 UUID, a SWE-agent file), to copy or search,
 * unless the name is that id.
 */
export function TrajectoryHeading({
  trajectory,
}: {
  trajectory: Pick<TrajectoryDetail, 'externalId' | 'taskId' | 'trial'>;
}) {
  const { name } = trajectoryName(trajectory);
  return (
    <>
      <h1
        data-testid="trajectory-name"
        title={name === trajectory.externalId ? "The source's id" : undefined}
      >
        {name}
      </h1>
      {name === trajectory.externalId ? null : (
        <span className="mono muted" data-testid="trajectory-title" title="The source's id">
          {trajectory.externalId}
        </span>
      )}
    </>
  );
}

/** The short name a breadcrumb shows for a trajectory, or its store id until it has loaded. */
export function trajectoryCrumb(
  trajectory: Pick<TrajectoryDetail, 'externalId' | 'taskId' | 'trial'> | undefined,
  fallback: string,
): string {
  return trajectory === undefined ? fallback : trajectoryName(trajectory).name;
}
