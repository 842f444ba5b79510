/**
 * `scripts/dev-cluster N`: N Trawl nodes on loopback for development. Node i (node1, node2, ...)
 * listens for HTTP on PORT+2(i-1) and for gRPC on the port after it (PORT is 7480, so node1 has the
 * single node's defaults), keeps its data in DIR/node<i>, and every node gets the same seeds, node1's
 * first: node1 is the master. Each output line is prefixed with its node. Ctrl-C (or SIGTERM)
 * stops every node cleanly. The cluster is up once every node lists every node. A node that cannot start stops the others and the script exits 1;
 * once all are up, a node that exits leaves the others running (to try the failure cases), and
 * lines on stdin stop, kill or restart one: `stop node2`, `kill node2`, `restart node2`.
 */
import { spawn, type ChildProcess } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import readline from 'readline';

const USAGE = `usage: scripts/dev-cluster N [--base-port PORT] [--data-dir DIR] [-- SERVER-FLAGS...]
  N nodes on 127.0.0.1: node i serves HTTP on PORT+2(i-1) and gRPC on the next port
  (PORT 7480), keeps its data in DIR/node<i> (DIR ./data/dev-cluster); node1 is the master.
  Each node runs cores/N worker threads of each pool (server.*_workers, at least 1).
  SERVER-FLAGS go to every node (e.g. -- --set storage.flush_interval=2s). Ctrl-C stops all.
  Once all are up, type \`stop nodeI\` (SIGTERM), \`kill nodeI\` (SIGKILL) or \`restart nodeI\`.`;

const COMMANDS = 'stop nodeI, kill nodeI, restart nodeI';

const MAX_NODES = 32;
/** A node must be listening this soon after it starts (it waits for the master to answer its join). */
const READY_TIMEOUT_MS = 60_000;

export interface NodePlan {
  id: string;
  http: string;
  grpc: string;
  dataDir: string;
}

export function planCluster(count: number, basePort: number, dataDir: string): NodePlan[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `node${i + 1}`,
    http: `127.0.0.1:${basePort + 2 * i}`,
    grpc: `127.0.0.1:${basePort + 2 * i + 1}`,
    dataDir: path.join(dataDir, `node${i + 1}`),
  }));
}

/**
 * Worker threads of each pool a node: a share of the machine's cores, since every node would
 * otherwise size its pools for the whole machine (SERVER-FLAGS may set them again).
 */
export function workerShare(nodes: number, cores = os.availableParallelism()): number {
  return Math.max(1, Math.floor(cores / nodes));
}

/** `scripts/trawl server` flags of one node: the cluster's flags, then the caller's (later flags win). */
export function serverArgs(node: NodePlan, plan: readonly NodePlan[], extra: readonly string[]): string[] {
  const share = workerShare(plan.length);
  return [
    'server',
    '--node-id',
    node.id,
    '--listen',
    node.http,
    '--grpc-listen',
    node.grpc,
    '--seeds',
    plan.map((each) => each.grpc).join(','),
    '--data-dir',
    node.dataDir,
    '--set',
    `server.ingest_workers=${share}`,
    '--set',
    `server.query_workers=${share}`,
    '--set',
    `server.codec_workers=${share}`,
    ...extra,
  ];
}

interface Options {
  count: number;
  basePort: number;
  dataDir: string;
  extra: string[];
}

function parseOptions(argv: string[]): Options {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const extra = split === -1 ? [] : argv.slice(split + 1);
  let basePort = 7480;
  let dataDir = path.join('data', 'dev-cluster');
  const positionals: string[] = [];
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    if (arg === '--base-port' || arg === '--data-dir') {
      const value = own[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      if (arg === '--data-dir') dataDir = value;
      else {
        basePort = Number(value);
        if (!Number.isInteger(basePort) || basePort < 1 || basePort > 65535 - 2 * MAX_NODES)
          throw new Error(`--base-port must be a port number, not "${value}"`);
      }
    } else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
    else positionals.push(arg);
  }
  const count = Number(positionals[0]);
  if (positionals.length !== 1 || !Number.isInteger(count) || count < 1 || count > MAX_NODES) {
    throw new Error(`N must be a whole number from 1 to ${MAX_NODES}`);
  }
  return { count, basePort, dataDir, extra };
}

interface Running {
  node: NodePlan;
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<number | null>;
}

function launch(node: NodePlan, plan: readonly NodePlan[], extra: readonly string[]): Running {
  fs.mkdirSync(node.dataDir, { recursive: true });
  const launcher = path.join(__dirname, '..', '..', '..', 'scripts', 'trawl');
  const child = spawn(process.execPath, [launcher, ...serverArgs(node, plan, extra)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const prefix = (line: string): string => `${node.id.padEnd(7)}| ${line}`;
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    console.log(prefix(line));
    if (/trawl listening on/.test(line)) markReady();
  });
  readline.createInterface({ input: child.stderr! }).on('line', (line) => console.error(prefix(line)));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { node, child, ready, exited };
}

/** How many members a node lists, or null while it does not answer. */
async function memberCount(node: NodePlan): Promise<number | null> {
  try {
    const answer = await fetch(`http://${node.http}/api/v1/cluster/status`, { signal: AbortSignal.timeout(2000) });
    const body = (await answer.json()) as { data?: { node_count?: number; status?: string } };
    return body.data?.status === 'forming' ? null : (body.data?.node_count ?? null);
  } catch {
    return null;
  }
}

/** Waits until every node lists every node (true), or READY_TIMEOUT_MS passed (false). */
async function allSeeAll(plan: readonly NodePlan[]): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const counts = await Promise.all(plan.map(memberCount));
    if (counts.every((count) => count === plan.length)) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

export async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`dev-cluster: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const plan = planCluster(options.count, options.basePort, options.dataDir);
  /** Each node's latest process. */
  const running = new Map<string, Running>();
  let stopping = false;
  let allUp = false;

  const stopAll = async (reason: string, failed: boolean): Promise<never> => {
    stopping = true;
    const all = [...running.values()];
    console.log(`dev-cluster: ${reason}: stopping ${all.length} node(s)`);
    for (const each of all) if (each.child.exitCode === null) each.child.kill('SIGTERM');
    const codes = await Promise.all(all.map((each) => each.exited));
    const unclean = all.flatMap((each, i) => (codes[i] === 0 ? [] : [`${each.node.id} (${codes[i]})`]));
    if (unclean.length > 0 && !failed) console.error(`dev-cluster: not every node exited cleanly: ${unclean.join(', ')}`);
    process.exit(failed || unclean.length > 0 ? 1 : 0);
  };
  const onSignal = (signal: string): void => {
    if (!stopping) void stopAll(`${signal} received`, false);
    else {
      console.log('dev-cluster: stopping at once');
      for (const each of running.values()) each.child.kill('SIGKILL');
    }
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  const start = (node: NodePlan): Promise<void> => {
    const launched = launch(node, plan, options.extra);
    running.set(node.id, launched);
    void launched.exited.then((code) => {
      if (stopping) return;
      // Until every node is up, one that exits is a cluster that cannot start.
      if (!allUp) void stopAll(`${node.id} exited (code ${code})`, true);
      else if (running.get(node.id) === launched) {
        const how = code === null ? `killed by ${launched.child.signalCode}` : `code ${code}`;
        console.log(`dev-cluster: ${node.id} exited (${how}); the others keep running (\`restart ${node.id}\` starts it again)`);
      }
    });
    const late = setTimeout(() => {
      if (!stopping && !allUp) void stopAll(`${node.id} was not listening after ${READY_TIMEOUT_MS / 1000} s`, true);
    }, READY_TIMEOUT_MS);
    return launched.ready.finally(() => clearTimeout(late));
  };

  const command = async (line: string): Promise<void> => {
    const [verb, id, ...rest] = line.trim().split(/\s+/);
    if (verb === undefined || verb === '') return;
    const node = plan.find((each) => each.id === id);
    if (!['stop', 'kill', 'restart'].includes(verb) || node === undefined || rest.length > 0) {
      console.log(`dev-cluster: unknown command "${line.trim()}"; commands: ${COMMANDS} (I from 1 to ${plan.length})`);
      return;
    }
    const current = running.get(node.id)!;
    const alive = current.child.exitCode === null && current.child.signalCode === null;
    if (verb === 'restart') {
      if (alive) {
        current.child.kill('SIGTERM');
        await current.exited;
      }
      if (stopping) return;
      console.log(`dev-cluster: starting ${node.id}`);
      const ready = start(node);
      // A node that cannot start says why in its own lines, and the exit line follows.
      if (await Promise.race([ready.then(() => true), running.get(node.id)!.exited.then(() => false)]))
        console.log(`dev-cluster: ${node.id} is listening again`);
      return;
    }
    if (!alive) return console.log(`dev-cluster: ${node.id} is not running (\`restart ${node.id}\` starts it)`);
    current.child.kill(verb === 'kill' ? 'SIGKILL' : 'SIGTERM');
  };

  // The master first, so the others' joins find it.
  const [master, ...others] = plan;
  await start(master!);
  await Promise.all(others.map(start));
  // Listening is not yet formed: the last joins reach every node with the master's next state.
  if (!(await allSeeAll(plan))) await stopAll(`the cluster did not form within ${READY_TIMEOUT_MS / 1000} s`, true);
  allUp = true;
  console.log(`dev-cluster: ${plan.length} node(s) up; node1 is the master. Ctrl-C stops all.`);
  for (const node of plan) console.log(`  ${node.id.padEnd(7)} http://${node.http}  grpc ${node.grpc}  data ${node.dataDir}`);
  console.log(`dev-cluster: commands on stdin: ${COMMANDS}`);
  // One command at a time, in the order typed.
  let commands = Promise.resolve();
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    commands = commands.then(() => command(line));
  });
}
