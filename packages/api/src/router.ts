import { datasetsRouter } from './datasets/router';
import { trajectoriesRouter } from './trajectories/router';
import { simulateRouter } from './simulate/router';
import { createRouter } from './trpc';

export const appRouter = createRouter({
  datasets: datasetsRouter,
  trajectories: trajectoriesRouter,
  simulate: simulateRouter,
});

/** The only thing the web app imports from here (as a type): procedures, inputs and outputs. */
export type AppRouter = typeof appRouter;
