/** The cluster (GET /cluster/status): each node, its state, and its share of the stored events. */
import { useEffect, useState } from 'preact/hooks';
import { Notice, problemText } from '../components/Notice';
import { json } from '../lib/api';
import { count, when } from '../lib/format';

interface NodeStatus {
  id: string;
  address: string;
  role: string;
  state: string;
  master?: boolean;
  catching_up?: boolean;
  last_heartbeat?: string | null;
  events?: number | null;
  storage_bytes?: number | null;
}

interface ClusterStatus {
  status: string;
  mode?: string;
  node_count: number;
  nodes?: NodeStatus[];
}

export function ClusterPage() {
  const [status, setStatus] = useState<ClusterStatus | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    json<ClusterStatus>('/cluster/status').then(
      (data) => {
        setStatus(data);
        setProblem(null);
      },
      (error) => setProblem(problemText(error, 'cluster status (GET /cluster/status)')),
    );
  }, [tick]);

  if (problem !== null) return <Notice text={problem} kind="error" />;
  if (status === null) return <p class="muted">Loading…</p>;
  const nodes = status.nodes ?? [];
  const total = nodes.reduce((sum, node) => sum + (node.events ?? 0), 0);
  return (
    <div class="list-page">
      <div class="row">
        <h1>Cluster</h1>
        <span class={`status status-${status.status}`}>{status.status}</span>
        <span class="muted">
          {status.mode ?? ''} · {status.node_count} node{status.node_count === 1 ? '' : 's'}
        </span>
        <button onClick={() => setTick((n) => n + 1)}>Refresh</button>
      </div>
      <table class="list" aria-label="Nodes">
        <thead>
          <tr>
            <th>Node</th>
            <th>Address</th>
            <th>Role</th>
            <th>State</th>
            <th>Events</th>
            <th>Share of events</th>
            <th>Last heartbeat</th>
          </tr>
        </thead>
        <tbody>
          {nodes.map((node) => {
            const share = total > 0 && typeof node.events === 'number' ? node.events / total : null;
            return (
              <tr key={node.id} data-node-id={node.id}>
                <td>
                  {node.id}
                  {node.master ? ' (master)' : ''}
                </td>
                <td>{node.address}</td>
                <td>{node.role}</td>
                <td>
                  <span class={`status status-${node.state}`}>{node.catching_up ? `${node.state}, catching up` : node.state}</span>
                </td>
                <td>{typeof node.events === 'number' ? count(node.events) : '–'}</td>
                <td>
                  {share === null ? (
                    '–'
                  ) : (
                    <span class="share">
                      <span class="share-bar" style={{ width: `${Math.round(share * 100)}%` }} />
                      {(share * 100).toFixed(1)}%
                    </span>
                  )}
                </td>
                <td>{when(node.last_heartbeat)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
