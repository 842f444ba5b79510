/**
 * `trawl cluster remove|forget <node_id> [--server HOST:PORT]`: asks a running node (any member;
 * it passes the request to the master) to take a node out of future placement, or to forget a
 * removed node that is down (giving up its data), and prints the answer.
 */
import { parseArgs } from 'util';

export const CLUSTER_USAGE =
  'usage: trawl cluster remove|forget <node_id> [--server HOST:PORT]   (default server 127.0.0.1:7480; with auth on, the root token in TRAWL_TOKEN)';

/** Exit code 0 when the node was removed or forgotten, 1 when the server refused or could not be reached, 2 on bad usage. */
export async function runClusterCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { server: { type: 'string' } } });
  } catch (error) {
    console.error(`trawl: ${(error as Error).message}\n${CLUSTER_USAGE}`);
    return 2;
  }
  const [action, nodeId, ...rest] = parsed.positionals;
  if ((action !== 'remove' && action !== 'forget') || nodeId === undefined || rest.length > 0) {
    console.error(`trawl: expected "cluster remove <node_id>" or "cluster forget <node_id>"\n${CLUSTER_USAGE}`);
    return 2;
  }
  const server = parsed.values.server ?? '127.0.0.1:7480';
  const base = /^https?:\/\//.test(server) ? server : `http://${server}`;
  let answer: Response;
  try {
    const token = process.env.TRAWL_TOKEN;
    const headers: Record<string, string> = token === undefined || token === '' ? {} : { authorization: `Bearer ${token}` };
    answer = await fetch(`${base}/api/v1/cluster/nodes/${encodeURIComponent(nodeId)}/${action}`, { method: 'POST', headers });
  } catch (error) {
    console.error(`trawl: ${base} did not answer: ${(error as Error).message}`);
    return 1;
  }
  const body = (await answer.json().catch(() => null)) as {
    data?: Record<string, unknown>;
    error?: { code: string; message: string };
  } | null;
  if (answer.ok && body?.data !== undefined && action === 'forget') {
    console.log(
      `node ${nodeId} forgotten: it is no longer a member, the data only it held is given up, and its id may join again as a new node`,
    );
    return 0;
  }
  if (answer.ok && body?.data !== undefined) {
    const { epoch, effective_from: from, ring } = body.data;
    console.log(
      `node ${nodeId} removed from future placement: ring epoch ${String(epoch)} from ${String(from)} places data on ${(ring as string[]).join(', ')}`,
    );
    return 0;
  }
  console.error(`trawl: ${answer.status} ${body?.error?.code ?? ''}: ${body?.error?.message ?? 'no answer body'}`);
  return 1;
}
