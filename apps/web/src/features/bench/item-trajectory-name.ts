import type { CellItem } from '@terrarium/schema';
import { trajectoryName, type TrajectoryName } from '../trajectories/trajectory-name';

/**
 * The name of the trajectory a bench item was taken from, as the trajectory lists name it (task
 * and trial, instance id, or source id), so that items of one turn with the same action tell
 * apart. Null for an item imported from a bench file: it names no trajectory.
 */
export function itemTrajectoryName(item: Pick<CellItem, 'trajectory'>): TrajectoryName | null {
  return item.trajectory === null ? null : trajectoryName(item.trajectory);
}

/** How many characters of the name the item list's column shows. */
const SHOWN = 18;
/** Of those, how many of the name's end: where instance numbers and trials are. */
const TAIL = 11;

/**
 * A name short enough for the item list's column, cut in its middle: the end of a name is what
 * tells its rows apart (`marshmallow-code__marshmallow-1359` and `-1343`), which an ellipsis at the
 * end would hide. The whole name is on hover.
 */
export function shortName(name: string): string {
  if (name.length <= SHOWN) return name;
  return `${name.slice(0, SHOWN - TAIL - 1)}…${name.slice(-TAIL)}`;
}
