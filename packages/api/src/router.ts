import { authRouter } from './auth/router';
import { benchRouter } from './bench/router';
import { datasetsRouter } from './datasets/router';
import { labelsRouter } from './labels/router';
import { trajectoriesRouter } from './trajectories/router';
import { simulateRouter } from './simulate/router';
import { modelsRouter } from './models/router';
import { worldsRouter } from './worlds/router';
import { rulesetsRouter } from './rulesets/router';
import { curriculumRouter } from './curriculum/router';
import { importsRouter } from './imports/router';
import { createRouter } from './trpc';

export const appRouter = createRouter({
  datasets: datasetsRouter,
  trajectories: trajectoriesRouter,
  simulate: simulateRouter,
  models: modelsRouter,
  bench: benchRouter,
  auth: authRouter,
  labels: labelsRouter,
  worlds: worldsRouter,
  rulesets: rulesetsRouter,
  curriculum: curriculumRouter,
  imports: importsRouter,
});

/** The only thing the web app imports from here (as a type): procedures, inputs and outputs. */
export type AppRouter = typeof appRouter;
