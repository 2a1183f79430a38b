import { trajectoryLinks, type Metadata, type TrajectoryLink } from '@terrarium/schema';
import { EMPTY_LIST_QUERY } from '../../app/url-state';
import { Link } from '../../app/link';

const KIND_LABEL: Record<TrajectoryLink['kind'], string> = {
  subagent: 'Subagent run',
  continuation: 'Continues in',
};

/**
 * The trajectories this one links to (ATIF subagent runs and continuation files). A link opens the
 * dataset's trajectory list searched by the linked session id (its external id once imported), or by
 * the file name when the source gives no id: the store id of a trajectory imported apart is unknown.
 */
export function TrajectoryLinks({
  datasetId,
  metadata,
}: {
  datasetId: string;
  metadata: Metadata;
}) {
  const links = trajectoryLinks(metadata);
  if (links.length === 0) return null;
  return (
    <>
      <dt>Linked</dt>
      <dd>
        <ul className="trajectory-links" data-testid="trajectory-links">
          {links.map((link, position) => {
            const name = link.sessionId ?? link.path ?? 'unnamed';
            return (
              <li key={position}>
                {KIND_LABEL[link.kind]}{' '}
                <Link
                  to={{
                    page: 'trajectories',
                    datasetId,
                    query: { ...EMPTY_LIST_QUERY, q: name },
                  }}
                >
                  <span className="mono">{name}</span>
                </Link>
                {link.stepIndex !== null && ` (from step ${link.stepIndex + 1})`}
              </li>
            );
          })}
        </ul>
      </dd>
    </>
  );
}
