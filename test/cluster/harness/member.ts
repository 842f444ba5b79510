/**
 * One cluster member in its own process, for the multi-process membership tests (membership is not
 * wired into the CLI yet): its own storage engine in its data dir, a gRPC server, a Membership,
 * and a small replicated payload (a note) to carry with the state.
 *
 * Run: node dist/test/cluster/harness/member.js '<MemberConfig JSON>'. It prints one JSON line
 * `{"event":"ready"}` once a member, or `{"event":"failed","error":{...}}` and exits 1 (as the
 * server will on a refused join). Then it answers JSON-line commands on stdin (`{"seq":1,"op":"view"}`)
 * with `{"seq":1,"ok":true,"result":...}`. SIGTERM closes everything and exits 0.
 */
import readline from 'readline';
import { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import type { NodeRecords } from '../../../storage/node-records';
import { membershipStatus } from '../../../node/cluster/cluster-status';
import type { Role } from '../../../node/cluster/cluster-state';
import { PeerClients } from '../../../node/cluster/grpc/peers';
import { GrpcServer } from '../../../node/cluster/grpc/server';
import { Membership, type ReplicatedPayload } from '../../../node/cluster/membership';
import { cachedStats, engineNodeStats } from '../../../node/cluster/node-stats';

export interface MemberConfig {
  id: string;
  http: string;
  grpc: string;
  role?: Role;
  seeds: string[];
  dataDir: string;
  heartbeatMs: number;
  failureMs: number;
  joinTimeoutMs: number;
  bucketSpanMs: number;
}

interface Note {
  version: number;
  text: string;
}

/** The harness's replicated payload: a versioned note kept in the node's records. */
class ReplicatedNote implements ReplicatedPayload {
  private constructor(
    private readonly records: NodeRecords,
    public note: Note,
  ) {}

  static async open(records: NodeRecords): Promise<ReplicatedNote> {
    const stored = await records.get('note');
    return new ReplicatedNote(records, stored === null ? { version: 0, text: '' } : (JSON.parse(stored.toString()) as Note));
  }

  version(): number {
    return this.note.version;
  }

  current(): { version: number; data: Buffer } | null {
    return this.note.version === 0 ? null : { version: this.note.version, data: Buffer.from(this.note.text) };
  }

  /** Any note may replace another. */
  problem(): string | null {
    return null;
  }

  async install(version: number, data: Buffer): Promise<void> {
    await this.set({ version, text: data.toString() });
  }

  async set(note: Note): Promise<void> {
    await this.records.put('note', Buffer.from(JSON.stringify(note)));
    this.note = note;
  }
}

const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`);

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '') as MemberConfig;
  const engine = await StorageEngine.open({
    dataDir: config.dataDir,
    placement: { bucketSpanMicros: config.bucketSpanMs * 1000, partitions: 1 },
    flushIntervalMs: 3_600_000,
    segmentMaxEvents: 262_144,
    compressionLevel: 3,
    fsync: false,
    compactionIntervalMs: 3_600_000,
    retentionMs: 100 * 365 * 86_400_000,
    codecWorkers: 0,
  });
  engine.start();
  const logger = {
    info: (message: string) => process.stderr.write(`${config.id} info ${message}\n`),
    warn: (message: string) => process.stderr.write(`${config.id} warn ${message}\n`),
    error: (message: string) => process.stderr.write(`${config.id} error ${message}\n`),
  };
  const server = new GrpcServer();
  const peers = new PeerClients(config.heartbeatMs);
  const note = await ReplicatedNote.open(engine.records('note'));
  const membership = new Membership({
    self: { id: config.id, http: config.http, grpc: config.grpc, role: config.role ?? 'all' },
    seeds: config.seeds,
    records: engine.records('cluster'),
    server,
    peers,
    bucketSpanMicros: config.bucketSpanMs * 1000,
    heartbeatIntervalMs: config.heartbeatMs,
    failureTimeoutMs: config.failureMs,
    stats: cachedStats(() => engineNodeStats(engine), config.heartbeatMs / 2),
    logger,
    joinTimeoutMs: config.joinTimeoutMs,
  });
  membership.carryPayload(note);
  const events: { event: string; id?: string; version?: number; atMs: number }[] = [];
  membership.on('state', (state) => events.push({ event: 'state', version: state.version, atMs: Date.now() }));
  membership.on('member-up', (id) => events.push({ event: 'member-up', id, atMs: Date.now() }));
  membership.on('member-down', (id) => events.push({ event: 'member-down', id, atMs: Date.now() }));

  try {
    await server.listen(config.grpc);
    await membership.start();
  } catch (error) {
    const { name, message, reason } = error as Error & { reason?: string };
    print({ event: 'failed', error: { name, reason, message } });
    await Promise.all([membership.close(), server.close(0)]);
    peers.close();
    await engine.close();
    process.exit(1);
  }

  const commands: Record<string, (command: Record<string, any>) => Promise<unknown> | unknown> = {
    view: () => ({ state: membership.state(), members: membership.members(), master: membership.master(), isMaster: membership.isMaster }),
    status: () => membershipStatus(membership, { dataDir: config.dataDir, replicationFactor: 1 }),
    events: () => events,
    remove: (command) => membership.remove(command.id as string),
    ingest: async (command) => {
      const batch: LogEvent[] = [];
      for (let i = 0; i < (command.count as number); i++) {
        batch.push({
          time: (command.timeMs as number) * 1000 + i,
          raw: `${config.id} event ${i}`,
          index: command.index as string,
          fields: { host: config.id },
        });
      }
      await engine.appendEvents(batch);
      return batch.length;
    },
    flush: async () => (await engine.flush()).length,
    publish: async (command) => {
      await note.set({ version: note.version() + 1, text: command.text as string });
      return membership.publishPayload();
    },
    note: () => note.note,
  };

  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const command = JSON.parse(line) as Record<string, any>;
    const run = commands[command.op as string];
    Promise.resolve()
      .then(() => {
        if (run === undefined) throw new Error(`unknown op ${command.op}`);
        return run(command);
      })
      .then(
        (result) => print({ seq: command.seq, ok: true, result }),
        (error: Error & { reason?: string }) =>
          print({ seq: command.seq, ok: false, error: { name: error.name, reason: error.reason, message: error.message } }),
      );
  });

  process.on('SIGTERM', () => {
    void (async () => {
      await membership.close();
      await server.close(1000);
      peers.close();
      await engine.close();
      process.exit(0);
    })();
  });
  print({ event: 'ready' });
}

main().catch((error: Error) => {
  print({ event: 'failed', error: { name: error.name, message: error.stack ?? error.message } });
  process.exit(1);
});
