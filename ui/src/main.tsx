/**
 * The web UI served at `/` by every node: search, live tail, dashboards, alerts and the cluster,
 * one page with hash routes. Alt+1..5 go to the pages; `/` focuses the query editor.
 */
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { TokenPrompt } from './components/TokenPrompt';
import { navigate, routeHref, useRoute } from './lib/router';
import { AlertsPage } from './pages/AlertsPage';
import { ClusterPage } from './pages/ClusterPage';
import { DashboardsPage } from './pages/DashboardsPage';
import { SearchPage } from './pages/SearchPage';
import { TailPage } from './pages/TailPage';
import './styles.css';

const PAGES = [
  { path: 'search', label: 'Search' },
  { path: 'tail', label: 'Live tail' },
  { path: 'dashboards', label: 'Dashboards' },
  { path: 'alerts', label: 'Alerts' },
  { path: 'cluster', label: 'Cluster' },
];

function App() {
  const route = useRoute();
  const page = route.path[0] ?? 'search';

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      const typing = target.closest('input, textarea, select, .cm-editor') !== null;
      if (event.altKey && /^[1-5]$/.test(event.key)) {
        event.preventDefault();
        navigate([PAGES[Number(event.key) - 1]!.path]);
      } else if (event.key === '/' && !typing) {
        const editor = document.querySelector<HTMLElement>('.cm-content');
        if (editor !== null) {
          event.preventDefault();
          editor.focus();
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <>
      <a class="skip-link" href="#main" onClick={(event) => (event.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Trawl</span>
        <nav aria-label="Pages">
          {PAGES.map((each, index) => (
            <a
              key={each.path}
              href={routeHref([each.path])}
              aria-current={page === each.path ? 'page' : undefined}
              title={`Alt+${index + 1}`}
            >
              {each.label}
            </a>
          ))}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {page === 'search' && <SearchPage route={route} />}
        {page === 'tail' && <TailPage route={route} />}
        {page === 'dashboards' && <DashboardsPage route={route} />}
        {page === 'alerts' && <AlertsPage route={route} />}
        {page === 'cluster' && <ClusterPage />}
        {!PAGES.some((each) => each.path === page) && <p class="notice">No page here: choose one above.</p>}
      </main>
      <TokenPrompt />
    </>
  );
}

render(<App />, document.getElementById('app')!);
