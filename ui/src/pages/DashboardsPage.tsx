/** Dashboards: the list (`#/dashboards`), one dashboard (`#/dashboards/<id>`) and its editor (`.../edit`, `#/dashboards/new`). */
import { useEffect, useState } from 'preact/hooks';
import { Notice, problemText } from '../components/Notice';
import { json } from '../lib/api';
import type { DashboardSummary } from '../lib/dashboard';
import { when } from '../lib/format';
import { routeHref, type Route } from '../lib/router';
import { DashboardEditor } from './DashboardEditor';
import { DashboardView } from './DashboardView';

export function DashboardsPage({ route }: { route: Route }) {
  const [, id, action] = route.path;
  if (id === 'new') return <DashboardEditor id={null} />;
  if (id !== undefined && action === 'edit') return <DashboardEditor id={id} />;
  if (id !== undefined) return <DashboardView id={id} />;
  return <DashboardList />;
}

function DashboardList() {
  const [dashboards, setDashboards] = useState<DashboardSummary[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    json<{ dashboards: DashboardSummary[] }>('/dashboards').then(
      (data) => setDashboards(data.dashboards),
      (error) => setProblem(problemText(error, 'dashboards (/dashboards)')),
    );
  }, []);
  return (
    <div class="list-page">
      <div class="row">
        <h1>Dashboards</h1>
        <a class="button" href={routeHref(['dashboards', 'new'])}>
          New dashboard
        </a>
      </div>
      {problem !== null && <Notice text={problem} kind="error" />}
      {dashboards !== null && dashboards.length === 0 && <Notice text="No dashboard yet." />}
      {dashboards !== null && dashboards.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Panels</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {dashboards.map((dashboard) => (
              <tr key={dashboard.id}>
                <td>
                  <a href={routeHref(['dashboards', dashboard.id])}>{dashboard.name}</a>
                </td>
                <td>{dashboard.panels_count}</td>
                <td>{when(dashboard.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
