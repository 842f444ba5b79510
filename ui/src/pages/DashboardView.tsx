/**
 * One dashboard: its panels on the 12-column grid at their positions, its variables as dropdowns
 * (a change re-runs the panels with the value), and a refresh interval.
 */
import { useEffect, useState } from 'preact/hooks';
import { Notice, problemText } from '../components/Notice';
import { PanelView } from '../components/PanelView';
import { VariablePicker } from '../components/VariablePicker';
import { json } from '../lib/api';
import type { Dashboard } from '../lib/dashboard';
import { routeHref } from '../lib/router';

const REFRESH = [
  { label: 'Off', ms: 0 },
  { label: '10s', ms: 10_000 },
  { label: '30s', ms: 30_000 },
  { label: '1m', ms: 60_000 },
  { label: '5m', ms: 300_000 },
];

export function DashboardView({ id }: { id: string }) {
  const [dashboard, setDashboard] = useState<Dashboard | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [refreshMs, setRefreshMs] = useState(0);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    json<Dashboard>(`/dashboards/${encodeURIComponent(id)}`).then(
      (found) => {
        setDashboard(found);
        setValues(Object.fromEntries((found.variables ?? []).map((variable) => [variable.name, variable.default ?? ''])));
      },
      (error) => setProblem(problemText(error, 'dashboards (/dashboards)')),
    );
  }, [id]);

  useEffect(() => {
    if (refreshMs === 0) return;
    const timer = setInterval(() => setTick((n) => n + 1), refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs]);

  if (problem !== null) return <Notice text={problem} kind="error" />;
  if (dashboard === null) return <p class="muted">Loading…</p>;
  const variables = dashboard.variables ?? [];
  return (
    <div class="dashboard">
      <div class="row">
        <h1>{dashboard.name}</h1>
        {variables.map((variable) => (
          <VariablePicker
            key={variable.name}
            variable={variable}
            value={values[variable.name] ?? ''}
            onChange={(value) => setValues((now) => ({ ...now, [variable.name]: value }))}
          />
        ))}
        <label>
          Refresh
          <select value={refreshMs} onChange={(event) => setRefreshMs(Number((event.target as HTMLSelectElement).value))}>
            {REFRESH.map((each) => (
              <option key={each.ms} value={each.ms}>
                {each.label}
              </option>
            ))}
          </select>
        </label>
        <button onClick={() => setTick((n) => n + 1)}>Refresh now</button>
        <a class="button" href={routeHref(['dashboards', id, 'edit'])}>
          Edit
        </a>
      </div>
      {dashboard.panels.length === 0 && <Notice text="This dashboard has no panel: edit it to add one." />}
      <div class="grid">
        {dashboard.panels.map((panel) => (
          <PanelView key={panel.id} panel={panel} variables={values} tick={tick} />
        ))}
      </div>
    </div>
  );
}
