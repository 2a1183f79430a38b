import { DatasetsPage } from '../features/datasets/datasets-page';
import { QuarantinePage } from '../features/datasets/quarantine-page';
import { ImportPage } from '../features/import/import-page';
import { ReplayPage } from '../features/replay/replay-page';
import { TrajectoryListPage } from '../features/trajectories/trajectory-list-page';
import { Link } from './link';
import { useRoute } from './router';
import { EMPTY_LIST_QUERY, type Route } from './url-state';

function PageFor({ route }: { route: Route }) {
  switch (route.page) {
    case 'datasets':
      return <DatasetsPage />;
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
        />
      );
    case 'import':
      return <ImportPage />;
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

export function AppShell() {
  const route = useRoute();
  return (
    <div className="app">
      <header className="app-header">
        <Link to={{ page: 'datasets' }} className="brand">
          Terrarium
        </Link>
        <nav aria-label="Main">
          <Link
            to={{ page: 'datasets' }}
            className={navClass(route.page === 'datasets' || route.page === 'quarantine')}
          >
            Datasets
          </Link>
          <Link
            to={{ page: 'trajectories', datasetId: null, query: EMPTY_LIST_QUERY }}
            className={navClass(route.page === 'trajectories' || route.page === 'replay')}
          >
            Trajectories
          </Link>
          <Link to={{ page: 'import' }} className={navClass(route.page === 'import')}>
            Import
          </Link>
        </nav>
      </header>
      <main className="app-main">
        <PageFor route={route} />
      </main>
    </div>
  );
}
