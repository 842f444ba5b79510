/** What the cluster benches share: N real nodes on loopback, waited on until formed. */
import { freePort, request, TestServer } from '../../test/helpers/server';

/**
 * Starts `nodes` server processes seeded with each other (the master first: the others join
 * through it) with `set` on each, and waits until the cluster formed with every node up.
 */
export async function startBenchCluster(
  nodes: number,
  set: Record<string, string | number | boolean>,
  cli?: string,
  env?: Record<string, string>,
): Promise<TestServer[]> {
  const grpc = await Promise.all(Array.from({ length: nodes }, async () => `127.0.0.1:${await freePort()}`));
  const servers: TestServer[] = [];
  for (let i = 0; i < nodes; i++) {
    servers.push(
      await TestServer.start({ set, cli, env, args: ['--node-id', `n${i + 1}`, '--grpc-listen', grpc[i]!, '--seeds', grpc.join(',')] }),
    );
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = (await request(`${servers[0]!.api}/cluster/status`)).body.data;
    if (status.forming.length === 0 && status.nodes.every((node: { state: string }) => node.state === 'up')) break;
    if (Date.now() > deadline) throw new Error(`the cluster did not form: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return servers;
}
