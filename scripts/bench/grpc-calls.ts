/**
 * `npm run bench -- grpc-calls [--runs N (3000)]`
 *
 * What one exchange between two nodes costs in CPU, client and server process summed, in two
 * shapes a query fragment could take: a server-streaming call of its own (how ShardQuery.Query
 * runs a fragment today: a request, a progress and a result message, the status), and the same
 * three messages on a stream that stays open (one long-lived call carrying many fragments). The
 * server runs in a child process on loopback, with the same @grpc/grpc-js the nodes use; the
 * messages are raw bytes of the sizes a small fragment sends, so no protobuf work is counted.
 * The ratio is what to quote: it is the share of a fragment's fixed cost a multiplexed stream
 * would save.
 */
import * as grpc from '@grpc/grpc-js';
import { fork, type ChildProcess } from 'child_process';
import { performance } from 'perf_hooks';
import { processCpuSeconds } from './process-cpu';

const REQUEST = Buffer.alloc(2_000, 1);
const PROGRESS = Buffer.alloc(200, 2);
const RESULT = Buffer.alloc(2_000, 3);
const WARM_RUNS = 1_000;

const bytes = { serialize: (value: Buffer): Buffer => value, deserialize: (value: Buffer): Buffer => value };
const SERVICE: grpc.ServiceDefinition = {
  Call: {
    path: '/bench.Exchange/Call',
    requestStream: false,
    responseStream: true,
    requestSerialize: bytes.serialize,
    requestDeserialize: bytes.deserialize,
    responseSerialize: bytes.serialize,
    responseDeserialize: bytes.deserialize,
  },
  Open: {
    path: '/bench.Exchange/Open',
    requestStream: true,
    responseStream: true,
    requestSerialize: bytes.serialize,
    requestDeserialize: bytes.deserialize,
    responseSerialize: bytes.serialize,
    responseDeserialize: bytes.deserialize,
  },
};

/** The child's side: answers each request with a progress and a result message. */
function serve(): void {
  const server = new grpc.Server();
  server.addService(SERVICE, {
    Call: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      call.write(PROGRESS);
      call.write(RESULT);
      call.end();
    },
    Open: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
      call.on('data', () => {
        call.write(PROGRESS);
        call.write(RESULT);
      });
      call.on('end', () => call.end());
    },
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error !== null) throw error;
    process.send?.({ port });
  });
}

function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(__filename, ['serve'], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`the bench server exited (${code})`)));
  });
}

interface Cost {
  clientMs: number;
  serverMs: number;
  wallMs: number;
}

/** CPU per exchange on both sides over `runs` exchanges, after WARM_RUNS unmeasured ones. */
async function measure(serverPid: number, runs: number, exchange: () => Promise<void>): Promise<Cost> {
  for (let i = 0; i < WARM_RUNS; i++) await exchange();
  const client = process.cpuUsage();
  const server = processCpuSeconds(serverPid);
  const started = performance.now();
  for (let i = 0; i < runs; i++) await exchange();
  const used = process.cpuUsage(client);
  return {
    clientMs: (used.user + used.system) / 1000 / runs,
    serverMs: ((processCpuSeconds(serverPid) - server) * 1000) / runs,
    wallMs: (performance.now() - started) / runs,
  };
}

export async function runGrpcCallsBench(options: { runs: number }): Promise<void> {
  const { child, port } = await startServer();
  const Client = grpc.makeGenericClientConstructor(SERVICE, 'Exchange');
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    const ownCall = (): Promise<void> =>
      new Promise((resolve, reject) => {
        const call = client.makeServerStreamRequest(SERVICE.Call!.path, bytes.serialize, bytes.deserialize, REQUEST, {
          deadline: Date.now() + 10_000,
        });
        call.on('data', () => undefined);
        call.on('end', () => resolve());
        call.on('error', reject);
      });
    const stream = client.makeBidiStreamRequest(SERVICE.Open!.path, bytes.serialize, bytes.deserialize);
    let waiting: { left: number; resolve: () => void; reject: (error: Error) => void } | null = null;
    stream.on('data', () => {
      if (waiting !== null && --waiting.left === 0) waiting.resolve();
    });
    stream.on('error', (error: Error) => waiting?.reject(error));
    const closed = new Promise<void>((resolve) => stream.on('status', () => resolve()));
    const onOpenStream = (): Promise<void> =>
      new Promise((resolve, reject) => {
        waiting = { left: 2, resolve, reject };
        stream.write(REQUEST);
      });
    const call = await measure(child.pid!, options.runs, ownCall);
    const open = await measure(child.pid!, options.runs, onOpenStream);
    stream.end();
    await closed;
    const row = (name: string, cost: Cost): string =>
      `| ${name} | ${cost.clientMs.toFixed(3)} | ${cost.serverMs.toFixed(3)} | ${(cost.clientMs + cost.serverMs).toFixed(3)} (${((cost.clientMs + cost.serverMs) / (call.clientMs + call.serverMs)).toFixed(2)}x) | ${cost.wallMs.toFixed(3)} |`;
    console.log(
      `\ngRPC exchange cost: a request, a progress and a result message; ${options.runs} exchanges after ${WARM_RUNS} unmeasured, per exchange`,
    );
    console.log('| shape | client CPU (ms) | server CPU (ms) | both (ms) | wall (ms) |');
    console.log('|---|---:|---:|---:|---:|');
    console.log(row('a server-streaming call each', call));
    console.log(row('on one open stream', open));
  } finally {
    client.close();
    child.kill();
  }
}

if (require.main === module && process.argv[2] === 'serve') serve();
