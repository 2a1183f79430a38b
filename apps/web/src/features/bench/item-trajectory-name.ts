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
