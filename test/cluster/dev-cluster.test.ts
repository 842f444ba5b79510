/**
 * scripts/dev-cluster: N nodes of the real server on loopback, each with a share of the machine's
 * worker threads, one Ctrl-C for all; a node that cannot start stops the others; once all are up,
 * a node that exits leaves the others running, and a line on stdin kills or restarts one.
 */
import { strict as assert } from 'assert';
import { spawn, type ChildProcess } from 'child_process';
import net from 'net';
import path from 'path';
import { workerShare } from '../../scripts/cluster/dev-cluster';
import { waitUntil } from '../helpers/api';
import { canBind, freePortRun, REPO_ROOT, request, tempDir } from '../helpers/server';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'dev-cluster');

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function runScript(args: string[]): Run {
  const child = spawn(process.execPath, [SCRIPT, ...args], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('scripts/dev-cluster', function () {
  this.timeout(60_000);

  it('refuses a node count it cannot start, with its usage (exit 2)', async () => {
    for (const args of [[], ['0'], ['two'], ['3', '--bogus']]) {
      const run = runScript(args);
      assert.equal(await run.exited, 2, `dev-cluster ${args.join(' ')}`);
      assert.match(run.output(), /usage: scripts\/dev-cluster N/);
    }
  });

  it('a node that cannot start stops the cluster: its own message, then exit 1', async () => {
    const base = await freePortRun(2 * 2);
    // node1's HTTP port is taken.
    const blocker = net.createServer().listen(base, '127.0.0.1');
    try {
      const run = runScript(['2', '--base-port', String(base), '--data-dir', tempDir('trawl-dev-cluster-')]);
      assert.equal(await run.exited, 1);
      assert.match(run.output(), /node1 +\| trawl: /);
      assert.match(run.output(), /dev-cluster: node1 exited \(code 1\): stopping/);
    } finally {
      blocker.close();
    }
  });

  it('starts N nodes, prints their addresses, and one Ctrl-C stops them all (exit 0)', async function () {
    const base = await freePortRun(2 * 3);
    const dataDir = tempDir('trawl-dev-cluster-');
    const run = runScript(['3', '--base-port', String(base), '--data-dir', dataDir]);
    try {
      await waitUntil(() => /3 node\(s\) up/.test(run.output()), 45_000, `the cluster up:\n${run.output()}`);
      const nodes = [1, 2, 3].map((i) => ({
        id: `node${i}`,
        http: `127.0.0.1:${base + 2 * (i - 1)}`,
        grpc: `127.0.0.1:${base + 2 * (i - 1) + 1}`,
      }));
      // The address lines follow the "up" line, maybe in a later chunk of output.
      const printed = nodes.map(
        (node) =>
          new RegExp(
            [node.id, `http://${node.http}`, `grpc ${node.grpc}`, `data ${path.join(dataDir, node.id)}`].map(escapeRegExp).join(' +'),
          ),
      );
      await waitUntil(() => printed.every((line) => line.test(run.output())), 10_000, `every node's addresses printed:\n${run.output()}`);
      const status = await request(`http://${nodes[1]!.http}/api/v1/cluster/status`);
      assert.equal(status.status, 200);
      assert.equal(status.body.data.node_count, 3);
      const threads = (await request(`http://${nodes[2]!.http}/metrics`)).text;
      for (const pool of ['ingest', 'query', 'codec']) {
        assert.match(
          threads,
          new RegExp(`^trawl_worker_threads\\{pool="${pool}"\\} ${workerShare(3)}$`, 'm'),
          `${pool} workers: a share of the cores`,
        );
      }
      run.child.kill('SIGINT');
      assert.equal(await run.exited, 0, run.output());
      for (const node of nodes) assert.ok(await canBind(Number(node.http.split(':')[1])), `${node.id} stopped listening`);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('a node killed once all are up leaves the others running; `restart node2` starts it again on its data', async function () {
    const base = await freePortRun(2 * 2);
    const run = runScript(['2', '--base-port', String(base), '--data-dir', tempDir('trawl-dev-cluster-')]);
    const node1 = `http://127.0.0.1:${base}`;
    const node2 = `http://127.0.0.1:${base + 2}`;
    const since = (mark: number): string => run.output().slice(mark);
    try {
      await waitUntil(() => /2 node\(s\) up/.test(run.output()), 45_000, `the cluster up:\n${run.output()}`);
      await waitUntil(() => /commands on stdin/.test(run.output()), 10_000, `the commands printed:\n${run.output()}`);
      run.child.stdin!.write('kill node2\n');
      await waitUntil(
        () => /dev-cluster: node2 exited \(killed by SIGKILL\); the others keep running/.test(run.output()),
        10_000,
        `node2 killed:\n${run.output()}`,
      );
      assert.ok(await canBind(base + 2), 'node2 stopped listening');
      await waitUntil(
        async () => (await request(`${node1}/health`)).body?.data?.down_nodes?.includes('node2') === true,
        10_000,
        'node1 up, seeing node2 down',
      );
      assert.equal(run.child.exitCode, null, 'the script still runs');

      const mark = run.output().length;
      run.child.stdin!.write('restart node9\n');
      await waitUntil(() => /unknown command "restart node9"/.test(since(mark)), 10_000, `an unknown node refused:\n${since(mark)}`);
      run.child.stdin!.write('restart node2\n');
      await waitUntil(() => /dev-cluster: node2 is listening again/.test(since(mark)), 45_000, `node2 restarted:\n${since(mark)}`);
      await waitUntil(async () => (await request(`${node1}/health`)).body?.data?.down_nodes?.length === 0, 10_000, 'node1 to see node2 up');
      assert.equal((await request(`${node2}/api/v1/cluster/status`)).body.data.node_count, 2, 'node2 is back in its cluster');
      run.child.kill('SIGINT');
      assert.equal(await run.exited, 0, run.output());
    } finally {
      run.child.kill('SIGKILL');
    }
  });
});
