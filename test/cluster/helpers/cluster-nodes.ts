/**
 * Starts N clustered nodes of the real server (`scripts/trawl server` with --node-id, --grpc-listen
 * and --seeds) on loopback, each with its own data dir, node 1 the master, with short heartbeat
 * and failure intervals; and waits until every node sees every member up.
 */
import { waitUntil } from '../../helpers/api';
import { freePort, request, TestServer } from '../../helpers/server';

export interface ClusterNode {
  id: string;
  grpc: string;
  server: TestServer;
}

export interface ClusterOptions {
  /** Node ids are `${prefix}1` ... */
  prefix?: string;
  /** More `--set` overrides for every node (replication_factor, partitions, ...). */
  set?: Record<string, string | number | boolean>;
}

/** Heartbeats every 100 ms, down after 1 s of silence: a test sees a kill quickly. */
export const FAST_MEMBERSHIP = { 'cluster.heartbeat_interval': '100ms', 'cluster.failure_timeout': '1s' } as const;

export async function startClusterNodes(count: number, options: ClusterOptions = {}): Promise<ClusterNode[]> {
  const prefix = options.prefix ?? 'node';
  const grpcPorts = await Promise.all(Array.from({ length: count }, () => freePort()));
  const seeds = grpcPorts.map((port) => `127.0.0.1:${port}`);
  const started = await Promise.allSettled(
    seeds.map((grpc, i) =>
      TestServer.start({
        args: ['--node-id', `${prefix}${i + 1}`, '--grpc-listen', grpc, '--seeds', seeds.join(',')],
        set: { ...FAST_MEMBERSHIP, ...options.set },
      }),
    ),
  );
  const servers = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failure = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure !== undefined) {
    await Promise.all(servers.map((server) => server.kill()));
    throw failure.reason;
  }
  const nodes = servers.map((server, i) => ({ id: `${prefix}${i + 1}`, grpc: seeds[i]!, server }));
  await waitForMembers(nodes, nodes.map((node) => node.id));
  return nodes;
}

/** Waits until each of `observers` reports exactly the ids in `up` as up (the others down). */
export async function waitForMembers(observers: readonly ClusterNode[], up: readonly string[], timeoutMs = 30_000): Promise<void> {
  const wanted = [...up].sort().join(',');
  for (const node of observers) {
    await waitUntil(
      async () => {
        const status = (await request(`${node.server.api}/cluster/status`)).body?.data;
        const seen = ((status?.nodes ?? []) as { id: string; state: string }[]).filter((each) => each.state === 'up').map((each) => each.id);
        return seen.sort().join(',') === wanted;
      },
      timeoutMs,
      `${node.id} to see ${wanted} up`,
    );
  }
}

export async function stopClusterNodes(nodes: readonly ClusterNode[]): Promise<void> {
  await Promise.all(nodes.map((node) => node.server.stop()));
}
