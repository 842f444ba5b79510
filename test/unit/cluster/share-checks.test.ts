/**
 * The checks a peer's share passes before it is stored: origin, hint, field names and the keys
 * this node owns under the epochs it knows, each refusal with its status, reason and message.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import type { ClusterState } from '../../../node/cluster/cluster-state';
import { RpcRefusal } from '../../../node/cluster/grpc/server';
import { ownersOf } from '../../../node/cluster/ring';
import { checkChunks, checkHint, checkOrigin, refusalRecorder } from '../../../node/cluster/share-checks';
import { chunkEvents, type EventChunk } from '../../../storage/buffer/event-chunk';
import type { Placement } from '../../../storage/core/partition';

const HOUR = 3600e6;
const PLACEMENT: Placement = { bucketSpanMicros: HOUR, partitions: 8 };
const member = (id: string) => ({ id, http: `${id}:1`, grpc: `${id}:2`, role: 'all' as const });
/** node1 and node2 from the start; node3 joins at hour 10. */
const STATE: ClusterState = {
  version: 4,
  members: ['node1', 'node2', 'node3'].map(member),
  epochs: [
    { epoch: 0, fromMicros: 0, members: ['node1', 'node2'] },
    { epoch: 1, fromMicros: 10 * HOUR, members: ['node1', 'node2', 'node3'] },
  ],
  removed: [],
  forming: [],
  storedAlone: [],
  forgotten: [],
};

function refused(check: () => void, code: grpc.status, reason: string, message: RegExp): void {
  assert.throws(
    check,
    (error: unknown) => error instanceof RpcRefusal && error.code === code && error.reason === reason && message.test(error.message),
  );
}

function chunksAt(hour: number, fields: Record<string, string> = {}): EventChunk[] {
  return chunkEvents(
    Array.from({ length: 40 }, (_, i) => ({ time: hour * HOUR + i, raw: `e${i}`, index: 'main', fields: { host: `h${i}`, ...fields } })),
    PLACEMENT,
  );
}

describe('share checks', () => {
  it('takes a share from another member only', () => {
    checkOrigin('node2', 'node1', STATE);
    refused(
      () => checkOrigin('node9', 'node1', STATE),
      grpc.status.FAILED_PRECONDITION,
      'unknown-origin',
      /node "node9" is not a member of the cluster as node node1 knows it \(state v4, 3 members\)/,
    );
    refused(
      () => checkOrigin('node1', 'node1', STATE),
      grpc.status.INVALID_ARGUMENT,
      'invalid-origin',
      /names this node \(node1\) as its origin/,
    );
    refused(
      () => checkOrigin('x'.repeat(1_000_000), 'node1', STATE),
      grpc.status.FAILED_PRECONDITION,
      'unknown-origin',
      /^node "x{140}\.\.\." is not a member/,
    );
  });

  it('takes a hint with a log name of at most 64 letters, digits, _ or -, and a whole seq from 1', () => {
    checkHint('0123456789abcdef', 1);
    for (const [log, seq] of [
      ['', 1],
      ['a'.repeat(65), 1],
      ['a/b', 1],
      ['log', 0],
      ['log', 1.5],
      ['log', Number.NaN],
    ] as const) {
      refused(() => checkHint(log, seq), grpc.status.INVALID_ARGUMENT, 'invalid-hint', /a hint names its log/);
    }
  });

  it('takes keys this node owns under the epoch in force at their bucket, and refuses the others by key', () => {
    for (const hour of [5, 12]) {
      const chunks = chunksAt(hour);
      const epochs = STATE.epochs;
      const mine = chunks.filter((chunk) => ownersOf(chunk.key, epochs, 1).includes('node3'));
      const others = chunks.filter((chunk) => !ownersOf(chunk.key, epochs, 1).includes('node3'));
      if (hour === 5) assert.equal(mine.length, 0, 'node3 owns nothing before its epoch');
      else checkChunks(mine, 'node1', 'node3', STATE, 1, HOUR);
      refused(
        () => checkChunks(others, 'node1', 'node3', STATE, 1, HOUR),
        grpc.status.FAILED_PRECONDITION,
        'not-owner',
        /node node3 does not own index main, bucket \S+, partition \d+ under the ring epochs it knows \(state v4; its owners are node[12]\)/,
      );
    }
    refused(
      () => checkChunks(chunksAt(12), 'node1', 'node3', { ...STATE, epochs: [] }, 1, HOUR),
      grpc.status.FAILED_PRECONDITION,
      'not-owner',
      /knows no ring epoch/,
    );
  });

  it('takes a key that starts a piece of a bucket at a ring epoch it knows, and refuses one that starts anywhere else', () => {
    // node3 joins at 12:30: the 12 o'clock bucket is split there.
    const split = 12 * HOUR + HOUR / 2;
    const state: ClusterState = { ...STATE, epochs: [STATE.epochs[0]!, { ...STATE.epochs[1]!, fromMicros: split }] };
    const placement: Placement = { ...PLACEMENT, splits: [split] };
    const after = chunkEvents(
      Array.from({ length: 40 }, (_, i) => ({ time: split + i, raw: `e${i}`, index: 'main', fields: { host: `h${i}` } })),
      placement,
    );
    assert.ok(
      after.every((chunk) => chunk.key.bucket === split),
      'keyed by the piece from 12:30',
    );
    const mine = after.filter((chunk) => ownersOf(chunk.key, state.epochs, 1).includes('node3'));
    assert.ok(mine.length > 0, 'node3 owns some of the piece');
    checkChunks(mine, 'node1', 'node3', state, 1, HOUR);
    const elsewhere = mine.map((chunk) => ({ ...chunk, key: { ...chunk.key, bucket: split + 1 }, minTime: split + 1 }));
    refused(
      () => checkChunks(elsewhere, 'node1', 'node3', state, 1, HOUR),
      grpc.status.FAILED_PRECONDITION,
      'not-owner',
      /knows no bucket or ring epoch that starts at/,
    );
  });

  it('refuses a field name ingest never stores', () => {
    const chunks = chunksAt(12, { _timestamp: 'x' });
    refused(
      () => checkChunks(chunks, 'node1', 'node1', STATE, 3, HOUR),
      grpc.status.INVALID_ARGUMENT,
      'invalid-record',
      /holds field "_timestamp", a name ingest never stores/,
    );
  });

  it('counts every refusal and logs the first of each origin and reason', () => {
    const lines: string[] = [];
    const counted: string[] = [];
    const record = refusalRecorder({ info: () => undefined, warn: (line) => lines.push(line), error: () => undefined }, (method, reason) =>
      counted.push(`${method}/${reason}`),
    );
    const notOwner = new RpcRefusal(grpc.status.FAILED_PRECONDITION, 'not-owner', 'not mine');
    record('Write', 'node2', notOwner);
    record('Write', 'node2', notOwner);
    record('ReplayHint', 'node2', new RpcRefusal(grpc.status.INVALID_ARGUMENT, 'invalid-record', 'bad'));
    record('Write', 'node3', notOwner);
    assert.deepEqual(counted, ['Write/not-owner', 'Write/not-owner', 'ReplayHint/invalid-record', 'Write/not-owner']);
    assert.deepEqual(lines, [
      'cluster: refused ShardWrite.Write from "node2" (not-owner; later ones from it are only counted): not mine',
      'cluster: refused ShardWrite.ReplayHint from "node2" (invalid-record; later ones from it are only counted): bad',
      'cluster: refused ShardWrite.Write from "node3" (not-owner; later ones from it are only counted): not mine',
    ]);
  });
});
