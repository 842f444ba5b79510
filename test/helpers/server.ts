/**
 * Starts the real server process (`scripts/trawl server`) on a free loopback port with its own
 * data dir, for black-box API tests.
 */
import { spawn, type ChildProcess } from 'child_process';
import fs from 'fs';
import net from 'net';
import os from 'os';
import path from 'path';

export const REPO_ROOT = findRepoRoot(__dirname);

function findRepoRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + start);
    dir = parent;
  }
  return dir;
}

/**
 * Ports handed out for servers to bind later, taken below the kernel's ephemeral range: a port from
 * that range can be taken by any outgoing connection (a node dialling a peer) between the probe and
 * the bind, and the kernel may hand the same one to two probes in a row. Counting up from a random
 * start never gives one port twice in this process.
 */
const HANDED_OUT_PORTS = { low: 10_000, high: ephemeralRangeStart() - 1 };
let nextPort = HANDED_OUT_PORTS.low + Math.floor(Math.random() * (HANDED_OUT_PORTS.high - HANDED_OUT_PORTS.low));

function ephemeralRangeStart(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function takeNextPort(): number {
  const port = nextPort;
  nextPort = nextPort >= HANDED_OUT_PORTS.high ? HANDED_OUT_PORTS.low : nextPort + 1;
  return port;
}

/** Whether a server could bind the loopback port now (nothing listens on it). */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port no one listens on, never handed out before by this process. */
export async function freePort(): Promise<number> {
  return freePortRun(1);
}

/** The first of `count` consecutive loopback ports no one listens on, none handed out before by this process. */
export async function freePortRun(count: number): Promise<number> {
  for (let tries = 0; tries < 1000; tries++) {
    if (nextPort + count - 1 > HANDED_OUT_PORTS.high) nextPort = HANDED_OUT_PORTS.low;
    const first = nextPort;
    const run = Array.from({ length: count }, () => takeNextPort());
    const free = await Promise.all(run.map(canBind));
    if (free.every(Boolean)) return first;
  }
  throw new Error(`no ${count} free consecutive ports in ${HANDED_OUT_PORTS.low}-${HANDED_OUT_PORTS.high}`);
}

/** Folders made by tempDir, removed when this process exits (TRAWL_KEEP_TEST_DIRS=1 keeps them to look at). */
const madeDirs: string[] = [];
process.on('exit', () => {
  if (process.env.TRAWL_KEEP_TEST_DIRS === '1') return;
  for (const dir of madeDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under the system's temp folder (a server's data dir, a config file's home). */
export function tempDir(prefix = 'trawl-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** What a `trawl server` that exits by itself printed: each stream, and both in arrival order. */
export interface ExitedServer {
  code: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

/**
 * Runs `trawl server` with arguments expected to make it exit (a refused config): its exit code
 * and what it printed. Killed after 20 s, so a server that starts instead fails the test.
 */
export async function runServerToExit(args: string[], env: Record<string, string> = {}): Promise<ExitedServer> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts', 'trawl'), 'server', '--listen', `127.0.0.1:${port}`, '--data-dir', tempDir(), ...args],
    { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const printed = { stdout: '', stderr: '', output: '' };
  child.stdout!.on('data', (chunk: Buffer) => {
    printed.stdout += chunk.toString();
    printed.output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    printed.stderr += chunk.toString();
    printed.output += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, ...printed };
}

export interface ServerOptions {
  dataDir?: string;
  /** `section.key=value` overrides passed as `--set`. */
  set?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
  args?: string[];
  /** Options for node itself, before the script (`--cpu-prof`). */
  nodeArgs?: string[];
  port?: number;
  /** The built CLI to run (another build's `dist/node/cli.js`, for benchmarks); default this repository's launcher. */
  cli?: string;
}

export class TestServer {
  private output = '';
  private exitPromise: Promise<number | null>;

  private constructor(
    readonly process: ChildProcess,
    readonly url: string,
    readonly port: number,
    readonly dataDir: string,
  ) {
    process.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    process.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exitPromise = new Promise((resolve) => process.on('exit', (code) => resolve(code)));
  }

  get api(): string {
    return `${this.url}/api/v1`;
  }

  get log(): string {
    return this.output;
  }

  static async start(options: ServerOptions = {}): Promise<TestServer> {
    const port = options.port ?? (await freePort());
    const dataDir = options.dataDir ?? tempDir();
    const launcher = options.cli ?? path.join(REPO_ROOT, 'scripts', 'trawl');
    const args = [...(options.nodeArgs ?? []), launcher, 'server', '--listen', `127.0.0.1:${port}`, '--data-dir', dataDir];
    for (const [key, value] of Object.entries(options.set ?? {})) args.push('--set', `${key}=${value}`);
    args.push(...(options.args ?? []));
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new TestServer(child, `http://127.0.0.1:${port}`, port, dataDir);
    await server.waitFor(/trawl listening on/, 30_000);
    return server;
  }

  /** Waits until the process output matches. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const check = (): void => {
        if (pattern.test(this.output)) return resolve();
        if (this.process.exitCode !== null) return reject(new Error(`server exited (${this.process.exitCode}):\n${this.output}`));
        if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${pattern}:\n${this.output}`));
        setTimeout(check, 25);
      };
      check();
    });
  }

  /** SIGTERM and wait for the exit code. */
  async stop(): Promise<number | null> {
    if (this.process.exitCode !== null) return this.process.exitCode;
    this.process.kill('SIGTERM');
    return this.exitPromise;
  }

  /** SIGKILL: no shutdown path runs. */
  async kill(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.kill('SIGKILL');
    await this.exitPromise;
  }

  exited(): Promise<number | null> {
    return this.exitPromise;
  }
}

/** fetch + JSON, returning status, headers and the parsed body (or text when not JSON). */
export async function request(
  url: string,
  init: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const response = await fetch(url, { method: init.method ?? 'GET', body: init.body, headers: init.headers });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body, text };
}

export function postJson(url: string, value: unknown, headers: Record<string, string> = {}) {
  return request(url, { method: 'POST', body: JSON.stringify(value), headers: { 'content-type': 'application/json', ...headers } });
}
