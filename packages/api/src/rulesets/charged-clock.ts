/** Milliseconds read from a clock: wall time, or the process's CPU time. */
export type MillisecondSource = () => number;

/** The process's CPU time (every thread's, user and system) in milliseconds. */
export const processCpuMs: MillisecondSource = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * The time a custom rule is charged for: wall time, except while the process got no CPU at all.
 * A rule's limit is wall-clock so that a stuck rule stops on time, but on a machine whose cores
 * other processes hold (an RL trainer beside the reward service), wall time runs on while the rule
 * does not, and a rule well within its limit on a quiet machine failed and scored 0. Between two
 * readings the clock advances by the smaller of the wall and the CPU time that passed: the process
 * CPU counts every thread, so while this one is starved and the others run it is wall time again.
 */
export function chargedClock(
  wall: MillisecondSource = performance.now.bind(performance),
  cpu: MillisecondSource = processCpuMs,
): MillisecondSource {
  let lastWall = wall();
  let lastCpu = cpu();
  let charged = 0;
  return () => {
    const nowWall = wall();
    const nowCpu = cpu();
    charged += Math.max(0, Math.min(nowWall - lastWall, nowCpu - lastCpu));
    lastWall = nowWall;
    lastCpu = nowCpu;
    return charged;
  };
}
