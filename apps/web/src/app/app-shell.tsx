import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { DatasetsPage } from '../features/datasets/datasets-page';
import { QuarantinePage } from '../features/datasets/quarantine-page';
import { ImportPage } from '../features/import/import-page';
import { ReplayPage } from '../features/replay/replay-page';
import { TrajectoryListPage } from '../features/trajectories/trajectory-list-page';
import { UserMenu } from '../features/auth/user-menu';
import { Link } from './link';
import { useTRPC } from './trpc';
import { navigate, useRoute } from './router';
import { EMPTY_LIST_QUERY, type Route } from './url-state';

// Loaded on first visit: the diff library and the fidelity metric labels stay out of the first paint.
const ComparePage = lazy(() =>
  import('../features/compare/compare-page').then((module) => ({ default: module.ComparePage })),
);
const BenchesPage = lazy(() =>
  import('../features/bench/benches-page').then((module) => ({ default: module.BenchesPage })),
);
const BenchRunPage = lazy(() =>
  import('../features/bench/bench-run-page').then((module) => ({ default: module.BenchRunPage })),
);
const RunComparePage = lazy(() =>
  import('../features/bench/run-compare-page').then((module) => ({
    default: module.RunComparePage,
  })),
);
const LabelingPage = lazy(() =>
  import('../features/labeling/labeling-page').then((module) => ({
    default: module.LabelingPage,
  })),
);
const LabelQueuePage = lazy(() =>
  import('../features/labeling/label-queue-page').then((module) => ({
    default: module.LabelQueuePage,
  })),
);
const AgreementPage = lazy(() =>
  import('../features/labeling/agreement-page').then((module) => ({
    default: module.AgreementPage,
  })),
);
// Monaco lives only in this chunk, never in the main bundle.
const RuleSetsPage = lazy(() =>
  import('../features/rule-sets/rule-sets-page').then((module) => ({
    default: module.RuleSetsPage,
  })),
);
const CurriculumPage = lazy(() =>
  import('../features/curriculum/curriculum-page').then((module) => ({
    default: module.CurriculumPage,
  })),
);
const WorldsPage = lazy(() =>
  import('../features/worlds/worlds-page').then((module) => ({ default: module.WorldsPage })),
);
const ModelsPage = lazy(() =>
  import('../features/models/models-page').then((module) => ({ default: module.ModelsPage })),
);

// What a labeler may open; the server refuses them the rest, which would otherwise show as a
// page of controls that each fail ("this needs the researcher role") or load nothing.
/** A replay opened by no search: nothing marked (one array, so the page's props stay equal). */
const NO_MARKS: readonly string[] = [];

const LABELER_PAGES: ReadonlySet<Route['page']> = new Set([
  'datasets',
  'labeling',
  'label-queue',
  'not-found',
]);

/** The Labeling page, with the address bar saying so (a labeler opening `/` or `/datasets`). */
function LabelerHome() {
  useEffect(() => navigate({ page: 'labeling' }, 'replace'), []);
  return <LabelingPage />;
}

function PageFor({ route, labeler }: { route: Route; labeler: boolean }) {
  if (labeler && !LABELER_PAGES.has(route.page)) {
    return (
      <div className="page" data-testid="researchers-only">
        <h1>For researchers</h1>
        <p>
          You are logged in as a labeler: this page is a researcher’s. Your label queues are under{' '}
          <Link to={{ page: 'labeling' }}>Labeling</Link>.
        </p>
      </div>
    );
  }
  switch (route.page) {
    case 'datasets':
      // A labeler's home is their queues, under their own address: the datasets are the
      // researchers'.
      return labeler ? <LabelerHome /> : <DatasetsPage />;
    case 'quarantine':
      return <QuarantinePage datasetId={route.datasetId} />;
    case 'trajectories':
      return <TrajectoryListPage datasetId={route.datasetId} query={route.query} />;
    case 'replay':
      return (
        <ReplayPage
          key={route.trajectoryId}
          datasetId={route.datasetId}
          trajectoryId={route.trajectoryId}
          step={route.step}
          marks={route.marks ?? NO_MARKS}
        />
      );
    case 'compare':
      return (
        <ComparePage
          key={route.trajectoryId}
          datasetId={route.datasetId}
          trajectoryId={route.trajectoryId}
          sims={route.sims}
          step={route.step}
          bench={route.bench}
        />
      );
    case 'models':
      return <ModelsPage />;
    case 'import':
      return <ImportPage />;
    case 'benches':
      return <BenchesPage />;
    case 'bench-run':
      return (
        <BenchRunPage
          key={route.runId}
          runId={route.runId}
          score={route.score}
          cell={route.cell}
          item={route.item}
        />
      );
    case 'bench-compare':
      return (
        <RunComparePage
          key={route.runId}
          runId={route.runId}
          otherRunId={route.otherRunId}
          score={route.score}
        />
      );
    case 'labeling':
      return <LabelingPage />;
    case 'label-queue':
      return <LabelQueuePage key={route.queueId} queueId={route.queueId} />;
    case 'label-agreement':
      return <AgreementPage key={route.queueId} queueId={route.queueId} />;
    case 'rule-sets':
      return <RuleSetsPage />;
    case 'worlds':
      return <WorldsPage datasetId={route.datasetId} />;
    case 'curriculum':
      return <CurriculumPage runId={route.runId} />;
    case 'not-found':
      return (
        <div className="page">
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{route.path}</code>.
          </p>
        </div>
      );
  }
}

function navClass(active: boolean): string {
  return active ? 'nav-link nav-link-active' : 'nav-link';
}

/**
 * Whether the caller is a labeler: the server refuses them every researcher route, so the nav
 * offers only their queues rather than links that each end in "this needs the researcher role".
 */
function useIsLabeler(): boolean {
  const trpc = useTRPC();
  const whoami = useQuery(trpc.auth.whoami.queryOptions(undefined, { staleTime: Infinity }));
  return whoami.data?.kind === 'user' && whoami.data.role === 'labeler';
}

function LabelerNav({ route }: { route: Route }) {
  return (
    <nav aria-label="Main">
      <Link
        to={{ page: 'labeling' }}
        className={navClass(
          route.page === 'datasets' || route.page === 'labeling' || route.page === 'label-queue',
        )}
      >
        Labeling
      </Link>
    </nav>
  );
}

export function AppShell() {
  const route = useRoute();
  const labeler = useIsLabeler();
  return (
    <div className="app">
      <header className="app-header">
        <Link to={{ page: 'datasets' }} className="brand">
          Terrarium
        </Link>
        {labeler ? <LabelerNav route={route} /> : <ResearcherNav route={route} />}
        <UserMenu />
      </header>
      <main className="app-main">
        <Suspense fallback={<p className="status">Loading…</p>}>
          <PageFor route={route} labeler={labeler} />
        </Suspense>
      </main>
    </div>
  );
}

function ResearcherNav({ route }: { route: Route }) {
  return (
    <nav aria-label="Main">
      <Link
        to={{ page: 'datasets' }}
        className={navClass(
          route.page === 'datasets' ||
            route.page === 'quarantine' ||
            // One dataset's page (its trajectories) sits under Datasets, as its breadcrumb says.
            (route.page === 'trajectories' && route.datasetId !== null),
        )}
      >
        Datasets
      </Link>
      <Link
        to={{ page: 'trajectories', datasetId: null, query: EMPTY_LIST_QUERY }}
        className={navClass(
          (route.page === 'trajectories' && route.datasetId === null) ||
            route.page === 'replay' ||
            route.page === 'compare',
        )}
      >
        Trajectories
      </Link>
      <Link to={{ page: 'import' }} className={navClass(route.page === 'import')}>
        Import
      </Link>
      <Link to={{ page: 'models' }} className={navClass(route.page === 'models')}>
        Models
      </Link>
      <Link
        to={{ page: 'benches' }}
        className={navClass(
          route.page === 'benches' || route.page === 'bench-run' || route.page === 'bench-compare',
        )}
      >
        Benches
      </Link>
      <Link
        to={{ page: 'labeling' }}
        className={navClass(
          route.page === 'labeling' ||
            route.page === 'label-queue' ||
            route.page === 'label-agreement',
        )}
      >
        Labeling
      </Link>
      <Link to={{ page: 'rule-sets' }} className={navClass(route.page === 'rule-sets')}>
        Rule sets
      </Link>
      <Link to={{ page: 'worlds', datasetId: null }} className={navClass(route.page === 'worlds')}>
        Worlds
      </Link>
      <Link
        to={{ page: 'curriculum', runId: null }}
        className={navClass(route.page === 'curriculum')}
      >
        Curriculum
      </Link>
    </nav>
  );
}
