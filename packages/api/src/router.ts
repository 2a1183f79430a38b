import { benchRouter } from './bench/router';
import { datasetsRouter } from './datasets/router';
import { trajectoriesRouter } from './trajectories/router';
import { simulateRouter } from './simulate/router';
import { modelsRouter } from './models/router';
import { createRouter } from './trpc';

export const appRouter = createRouter({
  datasets: datasetsRouter,
  trajectories: trajectoriesRouter,
  simulate: simulateRouter,
  models: modelsRouter,
  bench: benchRouter,
});

/** The only thing the web app imports from here (as a type): procedures, inputs and outputs. */
export type AppRouter = typeof appRouter;
