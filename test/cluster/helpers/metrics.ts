/** A node's Prometheus metrics (GET /metrics at the root), read as numbers. */
import { request } from '../../helpers/server';
import type { ClusteredServer } from './clustered-servers';

/** The value of `name{labels}` (labels as written, e.g. `target="node3"`); 0 when the series is absent. */
export async function metricValue(node: ClusteredServer, name: string, labels = ''): Promise<number> {
  const answer = await request(`${node.server.url}/metrics`);
  if (answer.status !== 200) throw new Error(`${node.id} /metrics: ${answer.status}`);
  const series = labels === '' ? name : `${name}{${labels}}`;
  for (const line of answer.text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return 0;
}

/** The sum of every series of `name` (all label values). */
export async function metricSum(node: ClusteredServer, name: string): Promise<number> {
  const answer = await request(`${node.server.url}/metrics`);
  if (answer.status !== 200) throw new Error(`${node.id} /metrics: ${answer.status}`);
  let sum = 0;
  for (const line of answer.text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
