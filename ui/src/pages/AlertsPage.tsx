/** Alerts: the list with each status (`#/alerts`), and the editor of one (`#/alerts/<id>`, `#/alerts/new`). */
import { useEffect, useState } from 'preact/hooks';
import { Notice, problemText } from '../components/Notice';
import { json } from '../lib/api';
import type { Channel } from '../lib/channels';
import { when } from '../lib/format';
import { routeHref, type Route } from '../lib/router';
import { AlertEditor } from './AlertEditor';

export interface Alert {
  id: string;
  name: string;
  q: string;
  interval: string;
  enabled: boolean;
  channels: Channel[];
  status: 'ok' | 'triggered' | 'error';
  last_checked: string | null;
  last_triggered: string | null;
}

export function AlertsPage({ route }: { route: Route }) {
  const id = route.path[1];
  if (id !== undefined) return <AlertEditor key={id} id={id === 'new' ? null : id} />;
  return <AlertList />;
}

function AlertList() {
  const [alerts, setAlerts] = useState<Alert[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    json<{ alerts: Alert[] }>('/alerts').then(
      (data) => setAlerts(data.alerts),
      (error) => setProblem(problemText(error, 'alerts (/alerts)')),
    );
  }, []);
  return (
    <div class="list-page">
      <div class="row">
        <h1>Alerts</h1>
        <a class="button" href={routeHref(['alerts', 'new'])}>
          New alert
        </a>
      </div>
      {problem !== null && <Notice text={problem} kind="error" />}
      {alerts !== null && alerts.length === 0 && <Notice text="No alert yet." />}
      {alerts !== null && alerts.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Status</th>
              <th>Interval</th>
              <th>Last checked</th>
              <th>Last triggered</th>
            </tr>
          </thead>
          <tbody>
            {alerts.map((alert) => (
              <tr key={alert.id}>
                <td>
                  <a href={routeHref(['alerts', alert.id])}>{alert.name}</a>
                  {!alert.enabled && <span class="muted"> (disabled)</span>}
                </td>
                <td>
                  <span class={`status status-${alert.status}`}>{alert.status}</span>
                </td>
                <td>{alert.interval}</td>
                <td>{when(alert.last_checked)}</td>
                <td>{when(alert.last_triggered)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
