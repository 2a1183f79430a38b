import { isBrowserSimSpec } from '../models/browser-sim-spec';
import type { SimulatorOption } from './sim-picker';

export interface ForkSims {
  options: SimulatorOption[];
  /** The first simulator on the page that can fork, else retrieval. */
  defaultSim: string;
  /** Set when the page runs a model in this browser, which a fork (run on the server) cannot use. */
  browserLeftOut: string | null;
}

function canFork(spec: string): boolean {
  return spec !== 'replay' && !isBrowserSimSpec(spec);
}

/**
 * The simulators a What-if fork can continue with. A fork is simulated and stored on the server,
 * so it takes what the server offers and what the page runs there (an endpoint added in Compare
 * runs on the server too: walk 48 found it missing), but neither replay (it answers only recorded
 * actions, and an edited action never was) nor a model decoded in this browser (walk 48: offered,
 * it failed on the server with advice that could not work).
 */
export function forkSims(
  available: readonly SimulatorOption[],
  pageSims: readonly string[],
): ForkSims {
  const options = available.filter((option) => canFork(option.spec));
  const offered = new Set(options.map((option) => option.spec));
  for (const spec of pageSims) {
    if (!canFork(spec) || offered.has(spec)) continue;
    offered.add(spec);
    options.push({
      spec,
      label: `${spec} (added on this page)`,
      description: 'Forking with it sends it this trajectory, as Run does.',
    });
  }
  return {
    options,
    defaultSim: pageSims.find(canFork) ?? 'retrieval',
    browserLeftOut: pageSims.find(isBrowserSimSpec) ?? null,
  };
}
