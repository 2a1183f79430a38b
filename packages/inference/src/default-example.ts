import type { Action, Domain } from '@terrarium/schema';

/**
 * The Models page's default playground example, run against the demo tau2-bench dataset (its
 * neighbors come from there). One constant for the page and for the test that the shipped model
 * answers it with the tool's JSON (bundled-model.test.ts).
 */
export const DEFAULT_EXAMPLE: {
  domain: Domain;
  dataset: string;
  action: Action;
  /**
   * The shipped tasks whose trajectories make this very call, and how many of them the bundled
   * model trained on (its split.json; bundled-model.test.ts counts them): its answer is recall.
   */
  recordedIn: { tasks: number; trained: number };
} = {
  domain: 'tool',
  dataset: 'tau2-bench',
  action: {
    type: 'tool_call',
    name: 'get_data_usage',
    arguments: { customer_id: 'C1001', line_id: 'L1002' },
    callId: null,
  },
  recordedIn: { tasks: 5, trained: 4 },
};
