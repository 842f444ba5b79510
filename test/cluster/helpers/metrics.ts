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
