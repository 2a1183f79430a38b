import type { PromptFolder } from '@terrarium/worlds';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '@terrarium/db';
import { SimSpec } from '@terrarium/schema';
import { z } from 'zod';
import { findDataset, findTrajectory } from '../simulate/find-trajectory';
import { SimulatorError } from '../simulate/sim-spec';
import { MAX_SIMULATED_STEPS, MaxSimulatedSteps } from '../simulate/simulate-caps';
import { simulateTrajectory } from '../simulate/simulate-trajectory';
import { fieldIssues, INTERNAL_ERROR_MESSAGE, issuesMessage } from '../trpc';
import { sendError, sendJson } from './json-response';
import { BodyError, readJsonBody } from './read-json-body';

/** The body of `POST /api/simulate`, what `terrarium simulate` sends to a running server. */
export const SimulateParams = z.strictObject({
  dataset: z.string().trim().min(1, 'required'),
  /** Store id or the source's id; default the dataset's first trajectory. */
  trajectory: z.string().min(1).optional(),
  sim: SimSpec,
  maxSteps: MaxSimulatedSteps.optional(),
});
export type SimulateParams = z.infer<typeof SimulateParams>;

/** `POST /api/simulate` with a JSON SimulateParams body → SimulationResult. */
export async function respondToSimulate(
  request: IncomingMessage,
  response: ServerResponse,
  store: Store,
  prompts: PromptFolder | null = null,
): Promise<void> {
  if (request.method !== 'POST') {
    request.resume();
    response.setHeader('allow', 'POST');
    return sendError(
      response,
      405,
      'use POST with a JSON body {dataset, trajectory?, sim, maxSteps?}',
    );
  }
  const disconnected = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) disconnected.abort(new Error('client disconnected'));
  });
  try {
    const params = SimulateParams.safeParse(await readJsonBody(request));
    if (!params.success) {
      const issues = fieldIssues(params.error);
      return sendError(response, 400, issuesMessage(issues), issues);
    }
    const dataset = await findDataset(store, params.data.dataset);
    const trajectory = await findTrajectory(store, dataset, params.data.trajectory);
    const result = await simulateTrajectory(store, trajectory.id, params.data.sim, {
      maxSteps: params.data.maxSteps ?? MAX_SIMULATED_STEPS,
      signal: disconnected.signal,
      prompts,
    });
    return sendJson(response, 200, result);
  } catch (error) {
    if (disconnected.signal.aborted) return;
    if (error instanceof SimulatorError) {
      return sendError(response, error.status, error.message, [
        { field: error.field, message: error.reason },
      ]);
    }
    if (error instanceof BodyError) return sendError(response, error.status, error.message);
    console.error('POST /api/simulate failed:', error);
    return sendError(response, 500, INTERNAL_ERROR_MESSAGE);
  }
}
