/**
 * ShardQuery.Fragments: many fragments on one long-lived call to a peer. A real engine served over
 * gRPC from this process; the answers come from the test's own events. The caller's side
 * (fragment-streams.ts, through RemoteShardTarget) and the callee's rules for frames, checked
 * with a raw client as a broken or hostile peer would send them.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import client from 'prom-client';
import { QuerySlots } from '../../../coordinator/query-slots';
import { ShardBusyError, type ShardFragment } from '../../../coordinator/scatter-gather';
import { FragmentStreams } from '../../../node/cluster/fragment-streams';
import { INVALID_FRAME_REFUSAL } from '../../../node/cluster/fragment-stream-service';
import type * as wire from '../../../node/cluster/grpc/messages';
import { PeerCallError, PeerClients } from '../../../node/cluster/grpc/peers';
import { SHARD_QUERY } from '../../../node/cluster/grpc/proto';
import { GrpcServer, REFUSAL_KEY } from '../../../node/cluster/grpc/server';
import { undecodableGuard } from '../../../node/cluster/grpc/undecodable';
import { protocolVersion } from '../../../node/cluster/grpc/wire';
import { RemoteShardTarget } from '../../../node/cluster/remote-shard-target';
import { ShardQueryMetrics } from '../../../node/cluster/shard-query-metrics';
import { addShardQueryService } from '../../../node/cluster/shard-query-service';
import { fragmentToWire } from '../../../node/cluster/shard-query-wire';
import { localScanSource } from '../../../node/core/local-scan-source';
import { QueryLimitError } from '../../../query/exec/limits';
import { decodeShardResult } from '../../../query/exec/shard-results';
import { QueryWorkerPool } from '../../../query/exec/session-pool';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { LogEvent } from '../../../storage/core/event';
import { keyString } from '../../../storage/core/partition';
import type { StorageEngine } from '../../../storage/engine';
import { engineHolding } from '../../helpers/engine';
import { mergedAnswer, sessionSpec } from '../../helpers/query-run';

const HOUR = 3_600_000_000;
const BASE = Date.UTC(2026, 0, 5) * 1000;
const PLACEMENT = { bucketSpanMicros: HOUR, partitions: 8 };
const RANGE = { fromMicros: 0, toMicros: BASE + 24 * HOUR, nowMicros: BASE + 24 * HOUR };

/** 3,000 events, one a second from BASE, over 6 hosts. */
const EVENTS: LogEvent[] = Array.from({ length: 3000 }, (_, i) => ({
  time: BASE + i * 1_000_000,
  raw: `line ${i}`,
  index: 'main',
  fields: { host: `h${i % 6}`, source: 'gen', n: i },
}));
const chunks = chunkEvents(EVENTS, PLACEMENT);
const keys = [...new Set(chunks.map((chunk) => keyString(chunk.key)))].sort();

/** The events of `keyList`'s chunks counted by host, from the test's own data (a chunk's `n` values name its events). */
function countsByHost(keyList: readonly string[]): Record<string, number> {
  const wanted = new Set(keyList);
  const counts: Record<string, number> = {};
  for (const chunk of chunks) {
    if (!wanted.has(keyString(chunk.key))) continue;
    const ns = chunk.fields.find((field) => field.name === 'n')?.numbers;
    assert.ok(ns !== null && ns !== undefined && ns.length === chunk.count);
    for (const n of ns) {
      const host = String(EVENTS[n]!.fields.host);
      counts[host] = (counts[host] ?? 0) + 1;
    }
  }
  return counts;
}

const COUNT_BY_HOST = 'from main | stats count() by host';

/** A result's rows as host → count. */
function hostCounts(data: ReturnType<typeof mergedAnswer>): Record<string, number> {
  assert.equal(data.type, 'aggregate');
  const out: Record<string, number> = {};
  if (data.type !== 'aggregate') return out;
  const host = data.columns.indexOf('host');
  const count = data.columns.indexOf('count');
  for (const row of data.rows) out[String(row[host])] = Number(row[count]);
  return out;
}

/** Reads a raw Fragments call until it ends: the replies, and the status it ended with. */
function drained(
  call: grpc.ClientDuplexStream<wire.FragmentFrame, wire.FragmentReply>,
): Promise<{ replies: wire.FragmentReply[]; status: grpc.StatusObject }> {
  const replies: wire.FragmentReply[] = [];
  return new Promise((resolve) => {
    call.on('data', (reply: wire.FragmentReply) => replies.push(reply));
    call.on('error', () => undefined);
    call.on('status', (status: grpc.StatusObject) => resolve({ replies, status }));
  });
}

const start = (id: number, request: wire.ShardQueryRequest, timeoutMs = 30_000): wire.FragmentFrame => ({
  protocol_version: protocolVersion(),
  id,
  start: request,
  timeout_ms: timeoutMs,
});

const cancel = (id: number): wire.FragmentFrame => ({ protocol_version: protocolVersion(), id, cancel: true, timeout_ms: 0 });

describe('ShardQuery.Fragments: many fragments on one call', function () {
  this.timeout(60_000);
  let pool: QueryWorkerPool;
  let engine: StorageEngine;
  let server: GrpcServer;
  let port: number;
  let slots: QuerySlots;
  let registry: client.Registry;
  /** The calls the server was asked for, by method path. */
  const calls: string[] = [];
  /** Frames the server read on Fragments calls. */
  let framesRead = 0;
  /** Fragments calls whose caller said it sends no more. */
  let callsEnded = 0;
  const peers = new PeerClients(100);
  const streams = new FragmentStreams(peers);

  const counting: grpc.ServerInterceptor = (descriptor, call) => {
    calls.push(descriptor.path);
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMessage((message, next) => {
        if (descriptor.path === SHARD_QUERY.Fragments.path) framesRead++;
        next(message);
      })
      .withOnReceiveHalfClose((next) => {
        if (descriptor.path === SHARD_QUERY.Fragments.path) callsEnded++;
        next();
      })
      .build();
    return new grpc.ServerInterceptingCall(call, new grpc.ResponderBuilder().withStart((next) => next(listener)).build());
  };

  async function serve(): Promise<void> {
    server = new GrpcServer({ interceptors: [counting, undecodableGuard] });
    slots = new QuerySlots(() => 10);
    registry = new client.Registry();
    addShardQueryService(
      server,
      {
        engine,
        source: localScanSource(engine),
        workers: pool,
        fragment: { maxQueryMemoryBytes: () => 1e9, pool: null, heldIndexes: () => engine.heldIndexNames() },
        slots,
        maxQueryRuntimeMs: () => 30_000,
        metrics: new ShardQueryMetrics(registry),
      },
      (error) => assert.fail(error),
    );
    port = await server.listen(`127.0.0.1:${port ?? 0}`);
  }

  before(async () => {
    pool = new QueryWorkerPool(2);
    engine = await engineHolding(chunks, { placement: PLACEMENT });
    await serve();
  });

  after(async () => {
    streams.close();
    peers.close();
    await server.close(100);
    await pool.close();
    await engine.close();
  });

  const address = (): string => `127.0.0.1:${port}`;
  /** `frames` on a raw Fragments call, as a peer of any kind could send them, then its end: the replies and the status. */
  const exchange = (frames: readonly wire.FragmentFrame[]): ReturnType<typeof drained> => {
    const call = peers
      .client(address())
      .makeBidiStreamRequest(
        SHARD_QUERY.Fragments.path,
        SHARD_QUERY.Fragments.requestSerialize,
        SHARD_QUERY.Fragments.responseDeserialize,
      ) as grpc.ClientDuplexStream<wire.FragmentFrame, wire.FragmentReply>;
    const ended = drained(call);
    for (const frame of frames) call.write(frame);
    call.end();
    return ended;
  };
  const target = (deadlineMs = Date.now() + 30_000, onStream = true): RemoteShardTarget =>
    new RemoteShardTarget('a', address(), peers, deadlineMs, 5_000, onStream ? streams : null);
  const fragment = (keyList: readonly string[], text = COUNT_BY_HOST): ShardFragment => ({
    spec: sessionSpec(text, RANGE),
    keys: [...keyList],
  });
  const run = (keyList: readonly string[], on = target(), signal = new AbortController().signal) =>
    on.run(fragment(keyList), { signal, onRows: null });
  const served = async (outcome: string): Promise<number> => {
    const metric = (await registry.getMetricsAsJSON()).find((each) => each.name === 'trawl_shard_fragments_total');
    return Number((metric?.values ?? []).find((value) => value.labels.outcome === outcome)?.value ?? 0);
  };

  it('answers fragments started together on one call, each as a Query call answers it', async () => {
    assert.ok(keys.length >= 6, `the events span ${keys.length} keys`);
    const parts = [keys.slice(0, 2), keys.slice(2, 3), keys.slice(3), keys, [keys[0]!], keys.slice(1, 5)];
    calls.length = 0;
    const onStream = await Promise.all(parts.map((part) => run(part)));
    assert.deepEqual(calls, [SHARD_QUERY.Fragments.path], 'one Fragments call, no Query call');
    const again = await Promise.all(parts.map((part) => run(part)));
    assert.deepEqual(calls, [SHARD_QUERY.Fragments.path], 'the call stays open for the next fragments');
    const onQueryCalls = await Promise.all(parts.map((part) => run(part, target(undefined, false))));
    assert.equal(calls.filter((path) => path === SHARD_QUERY.Query.path).length, parts.length);
    parts.forEach((part, i) => {
      const spec = fragment(part).spec;
      const expected = countsByHost(part);
      assert.ok(Object.keys(expected).length > 0);
      assert.deepEqual(hostCounts(mergedAnswer([{ result: onStream[i]! }], spec)), expected);
      assert.deepEqual(hostCounts(mergedAnswer([{ result: again[i]! }], spec)), expected);
      assert.deepEqual(hostCounts(mergedAnswer([{ result: onQueryCalls[i]! }], spec)), expected);
    });
  });

  it('a canceled fragment stops on the callee and sends nothing more; the next on the call is answered', async () => {
    const canceledBefore = await served('canceled');
    const request = fragmentToWire(fragment(keys));
    const { replies, status } = await exchange([start(1, request), cancel(1), start(2, request)]);
    assert.equal(status.code, grpc.status.OK);
    assert.deepEqual(
      replies.filter((reply) => reply.id === 1),
      [],
      'nothing for the canceled fragment',
    );
    const last = replies.filter((reply) => reply.id === 2).at(-1);
    assert.equal(last?.message?.body, 'result');
    // Counted once its work stopped, which may come after the other fragment's answer.
    while ((await served('canceled')) < canceledBefore + 1) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await served('canceled'), canceledBefore + 1);
  });

  it('answers a fragment started again under the id of one it canceled', async () => {
    const request = fragmentToWire(fragment(keys));
    const { replies, status } = await exchange([start(1, request), cancel(1), start(1, request)]);
    assert.equal(status.code, grpc.status.OK);
    const results = replies.filter((reply) => reply.id === 1 && reply.message?.body === 'result');
    assert.equal(results.length, 1, 'the second run answered, the first not');
    assert.deepEqual(
      hostCounts(mergedAnswer([{ result: decodeShardResult(results[0]!.message!.result!) }], fragment(keys).spec)),
      countsByHost(keys),
    );
  });

  it('passes a refusal on as the Query call would: a callee without a free slot is busy', async () => {
    const taken: (() => void)[] = [];
    for (let release = slots.tryTake(); release !== null; release = slots.tryTake()) taken.push(release);
    try {
      await assert.rejects(run(keys), ShardBusyError);
    } finally {
      for (const release of taken) release();
    }
    assert.deepEqual(countsByHost(keys), hostCounts(mergedAnswer([{ result: await run(keys) }], fragment(keys).spec)));
  });

  it('a fragment past its deadline fails QUERY_TIMEOUT', async () => {
    await assert.rejects(run(keys, target(Date.now() - 1)), (error) => error instanceof QueryLimitError && error.code === 'QUERY_TIMEOUT');
  });

  it('ends the call INVALID_ARGUMENT for a frame that breaks its rules, and refuses an export on it', async () => {
    const request = fragmentToWire(fragment(keys));
    const broken: { name: string; frames: wire.FragmentFrame[] }[] = [
      { name: 'id 0', frames: [start(0, request)] },
      { name: 'a start of a running id', frames: [start(1, request), start(1, request)] },
      { name: 'no body', frames: [{ protocol_version: protocolVersion(), id: 1, timeout_ms: 0 }] },
      { name: 'no protocol version', frames: [{ ...start(1, request), protocol_version: null }] },
    ];
    for (const { name, frames } of broken) {
      const { status } = await exchange(frames);
      assert.equal(status.code, grpc.status.INVALID_ARGUMENT, name);
      assert.equal(status.metadata.get(REFUSAL_KEY)[0], INVALID_FRAME_REFUSAL, name);
    }
    const { replies, status } = await exchange([start(1, { ...request, stream: true }), start(2, request)]);
    assert.equal(status.code, grpc.status.OK);
    const exportReply = replies.find((reply) => reply.id === 1);
    assert.equal(exportReply?.failure?.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(exportReply?.failure?.reason, 'invalid-fragment');
    assert.equal(replies.filter((reply) => reply.id === 2).at(-1)?.message?.body, 'result');
  });

  it('answers any frame a peer may send with replies or an INVALID_ARGUMENT end, never INTERNAL', async () => {
    const frame = fc.record({
      id: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(2 ** 53 + 2)),
      body: fc.constantFrom('start', 'cancel', 'none'),
      text: fc.oneof(fc.constant(COUNT_BY_HOST), fc.constant('from main | head 3'), fc.string()),
      keys: fc.oneof(fc.constant(keys.slice(0, 2)), fc.array(fc.string(), { maxLength: 2 })),
      timeoutMs: fc.oneof(fc.constant(0), fc.nat({ max: 60_000 })),
      limit: fc.oneof(fc.nat({ max: 1000 }), fc.constant(-1)),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 4 }), async (frames) => {
        const { replies, status } = await exchange(
          frames.map((each) => {
            const request = { ...fragmentToWire(fragment([])), text: each.text, keys: each.keys, limit: each.limit };
            const body = each.body === 'start' ? { start: request } : each.body === 'cancel' ? { cancel: true } : {};
            return { protocol_version: protocolVersion(), id: each.id, timeout_ms: each.timeoutMs, ...body };
          }),
        );
        assert.ok(status.code === grpc.status.OK || status.code === grpc.status.INVALID_ARGUMENT, `${status.code}: ${status.details}`);
        for (const reply of replies) {
          assert.ok(reply.body === 'message' || reply.body === 'failure');
          if (reply.body === 'failure') assert.notEqual(reply.failure?.code, grpc.status.INTERNAL, reply.failure?.details);
        }
        // Every fragment a well-formed call started was answered: a result or a failure last.
        if (status.code === grpc.status.OK) {
          const started = new Set(frames.filter((each) => each.body === 'start').map((each) => each.id));
          const canceled = new Set(frames.filter((each) => each.body === 'cancel').map((each) => each.id));
          for (const id of started) {
            if (canceled.has(id)) continue;
            const last = replies.filter((reply) => reply.id === id).at(-1);
            assert.ok(last?.body === 'failure' || last?.message?.body === 'result', `fragment ${id} was answered`);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('ends a call no fragment used for a while; the next fragment opens another', async () => {
    const quick = new FragmentStreams(peers, 50);
    try {
      const on = new RemoteShardTarget('a', address(), peers, Date.now() + 30_000, 5_000, quick);
      calls.length = 0;
      const ended = callsEnded;
      assert.deepEqual(hostCounts(mergedAnswer([{ result: await run(keys, on) }], fragment(keys).spec)), countsByHost(keys));
      while (callsEnded === ended) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(hostCounts(mergedAnswer([{ result: await run(keys, on) }], fragment(keys).spec)), countsByHost(keys));
      assert.deepEqual(calls, [SHARD_QUERY.Fragments.path, SHARD_QUERY.Fragments.path]);
    } finally {
      quick.close();
    }
  });

  it('a callee that stops answers the fragments it runs, then ends the call; the next fragment opens a new call', async () => {
    const read = framesRead;
    const running = run(keys);
    // Once the callee runs it, the close drains the call instead of holding the shutdown to its grace (60 s, past this test's timeout).
    while (framesRead === read) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const closed = server.close(60_000);
    assert.deepEqual(hostCounts(mergedAnswer([{ result: await running }], fragment(keys).spec)), countsByHost(keys));
    await closed;
    const failure = await run(keys).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(failure instanceof PeerCallError && failure.unreachable, String(failure));
    await serve();
    // The channel reconnects after its backoff, as it does to a peer that came back.
    const channel = peers.client(address()).getChannel();
    while (channel.getConnectivityState(true) !== grpc.connectivityState.READY) {
      await new Promise((resolve) => channel.watchConnectivityState(channel.getConnectivityState(false), Date.now() + 1000, resolve));
    }
    calls.length = 0;
    assert.deepEqual(hostCounts(mergedAnswer([{ result: await run(keys) }], fragment(keys).spec)), countsByHost(keys));
    assert.deepEqual(calls, [SHARD_QUERY.Fragments.path]);
  });
});
