/**
 * N clustered nodes of the real server (`scripts/trawl server` with --node-id, --grpc-listen and
 * --seeds) on loopback, node 1 the master, with short heartbeat and failure intervals; a node can
 * be killed and started again on its own ports and data dir.
 */
import { waitUntil } from '../../helpers/api';
import { freePort, request, tempDir, TestServer } from '../../helpers/server';

/** Heartbeats every 100 ms, down after 1 s of silence: a test sees a kill quickly. */
export const FAST_MEMBERSHIP = { 'cluster.heartbeat_interval': '100ms', 'cluster.failure_timeout': '1s' } as const;

export class ClusteredServer {
  constructor(
    readonly id: string,
    readonly grpc: string,
    readonly httpPort: number,
    readonly dataDir: string,
    private readonly args: string[],
    private readonly set: Record<string, string | number | boolean>,
    public server: TestServer,
    private readonly env: Record<string, string> = {},
  ) {}

  get api(): string {
    return this.server.api;
  }

  /** Starts the node again (after a kill or stop) on the same ports and data dir. */
  async restart(): Promise<void> {
    this.server = await TestServer.start({ port: this.httpPort, dataDir: this.dataDir, args: this.args, set: this.set, env: this.env });
  }
}

export interface ClusterOptions {
  /** More `--set` overrides for every node (replication_factor, ...). */
  set?: Record<string, string | number | boolean>;
  /** Overrides for node i (0-based) alone, after `set`. */
  setForNode?: (index: number) => Record<string, string | number | boolean>;
  /** Environment variables for every node (and its restarts). */
  env?: Record<string, string>;
  /** Headers of the requests that watch the nodes come up (an Authorization header with auth on). */
  headers?: Record<string, string>;
}

/** Starts `count` nodes (ids node1 ... nodeN, every node seeded with all) and waits until each sees all up. */
export async function startClusteredServers(count: number, options: ClusterOptions = {}): Promise<ClusteredServer[]> {
  const grpcPorts = await Promise.all(Array.from({ length: count }, () => freePort()));
  const httpPorts = await Promise.all(Array.from({ length: count }, () => freePort()));
  const seeds = grpcPorts.map((port) => `127.0.0.1:${port}`);
  const started = await Promise.allSettled(
    seeds.map(async (grpc, i) => {
      const id = `node${i + 1}`;
      const set = { ...FAST_MEMBERSHIP, ...options.set, ...options.setForNode?.(i) };
      const args = ['--node-id', id, '--grpc-listen', grpc, '--seeds', seeds.join(',')];
      const dataDir = tempDir('trawl-cluster-');
      const server = await TestServer.start({ port: httpPorts[i]!, dataDir, args, set, env: options.env });
      return new ClusteredServer(id, grpc, httpPorts[i]!, dataDir, args, set, server, options.env);
    }),
  );
  const nodes = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failure = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure !== undefined) {
    await Promise.all(nodes.map((node) => node.server.kill()));
    throw failure.reason;
  }
  await waitForUp(
    nodes,
    nodes.map((node) => node.id),
    undefined,
    options.headers,
  );
  return nodes;
}

/** Starts one more node (`id`, its own gRPC port) that joins the cluster of `nodes` through their seeds, with their settings. */
export async function joinClusteredServer(
  nodes: readonly ClusteredServer[],
  id: string,
  options: ClusterOptions = {},
): Promise<ClusteredServer> {
  const [grpcPort, httpPort] = await Promise.all([freePort(), freePort()]);
  const grpc = `127.0.0.1:${grpcPort}`;
  const args = ['--node-id', id, '--grpc-listen', grpc, '--seeds', nodes.map((node) => node.grpc).join(',')];
  const set = { ...FAST_MEMBERSHIP, ...options.set };
  const dataDir = tempDir('trawl-cluster-');
  const server = await TestServer.start({ port: httpPort, dataDir, args, set });
  return new ClusteredServer(id, grpc, httpPort, dataDir, args, set, server);
}

/** Waits until each of `observers` reports exactly the ids in `up` as up (the others down). */
export async function waitForUp(
  observers: readonly ClusteredServer[],
  up: readonly string[],
  timeoutMs = 30_000,
  headers: Record<string, string> = {},
): Promise<void> {
  const wanted = [...up].sort().join(',');
  for (const node of observers) {
    await waitUntil(
      async () => {
        const status = (await request(`${node.api}/cluster/status`, { headers })).body?.data;
        const seen = ((status?.nodes ?? []) as { id: string; state: string }[])
          .filter((each) => each.state === 'up')
          .map((each) => each.id);
        return seen.sort().join(',') === wanted;
      },
      timeoutMs,
      `${node.id} to see ${wanted} up`,
    );
  }
}

/**
 * Waits until none of `nodes` is catching up (its /health says `catching_up: false`): each has heard
 * every member's hint report since its start and none names it, so coordinators ask it for its keys.
 */
export async function waitForCaughtUp(nodes: readonly ClusteredServer[], timeoutMs = 30_000): Promise<void> {
  for (const node of nodes) {
    await waitUntil(
      async () => (await request(`${node.server.url}/health`)).body?.data?.catching_up === false,
      timeoutMs,
      `${node.id} to catch up`,
    );
  }
}

/** Stops every node that still runs (SIGTERM), or kills them when `kill`. */
export async function stopClusteredServers(nodes: readonly ClusteredServer[], kill = false): Promise<void> {
  await Promise.all(nodes.map((node) => (kill ? node.server.kill() : node.server.stop())));
}

/** A node's own stored events (`/stats` total_events: its storage alone, never the cluster's). */
export async function storedEvents(node: ClusteredServer): Promise<number> {
  const answer = await request(`${node.api}/stats`);
  if (answer.status !== 200) throw new Error(`${node.id} /stats: ${answer.status} ${answer.text}`);
  return answer.body.data.total_events as number;
}
