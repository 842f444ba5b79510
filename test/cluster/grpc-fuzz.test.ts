/**
 * Fuzzed calls on a node's gRPC port from a client that holds `cluster.secret`: every unary and
 * streaming method of every service of proto/trawl.proto, with messages built from the proto's
 * field types (random values of each type, missing fields, large repeated fields, random bytes
 * and mutated chunk records in the bytes fields, odd query texts and metadata writes in the text
 * ones), and with random bytes as the serialized message. A peer's message is checked like a
 * client's: no call ends UNKNOWN or INTERNAL (an exception that escaped a handler), the node
 * stays up and answers /health, and nothing stored changed but what calls answered OK stored.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { signProof, PROOF_KEY } from '../../node/cluster/grpc/call-proof';
import { MEMBERSHIP } from '../../node/cluster/grpc/proto';
import { REFUSAL_KEY } from '../../node/cluster/grpc/server';
import { protocolVersion } from '../../node/cluster/grpc/wire';
import { encodeChunkRecord } from '../../storage/buffer/chunk-record';
import { encodeJsonChunkRecord } from '../../storage/buffer/chunk-record-json';
import { chunkEvents } from '../../storage/buffer/event-chunk';
import type { LogEvent } from '../../storage/core/event';
import { keyString, type Placement } from '../../storage/core/partition';
import { waitUntil } from '../helpers/api';
import { briefReporter, failureLines, fuzzRuns, mutatedDocument } from '../helpers/fuzz';
import { freePort, postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, type ClusteredServer } from './helpers/clustered-servers';
import { BUCKET_SPAN_MICROS, PARTITIONS } from './helpers/placement';
import { LOADED_PROTO, protoMethods, type ProtoMethod } from './helpers/proto-methods';

const SECRET = 'fuzzing-the-grpc-port-0123456789';
const CALL_MS = 5_000;
const PLACEMENT: Placement = { bucketSpanMicros: BUCKET_SPAN_MICROS, partitions: PARTITIONS };
/** A member that never runs: a share from it passes the origin check, so the fuzzer reaches the record's. */
const GHOST = 'node2';
const MARKER_INDEX = 'grpcmarker';
const MARKER_EVENTS = 30;
const DAY_MICROS = 86_400_000_000;

interface FieldDescriptor {
  name: string;
  label: string;
  type: string;
  typeName: string;
}

/** Events a day ago, before any epoch but the first: this node alone owns their keys. */
function validEvents(): LogEvent[] {
  const at = Date.now() * 1000 - DAY_MICROS;
  return Array.from({ length: 20 }, (_, i) => ({
    time: at - i * 1_000_000,
    raw: `fuzzed share ${i}`,
    index: 'main',
    fields: { host: `h${i % 3}`, n: i, ok: i % 2 === 0 },
  }));
}

const CHUNKS = chunkEvents(validEvents(), PLACEMENT);
const RECORDS = [encodeChunkRecord(CHUNKS, PLACEMENT), encodeJsonChunkRecord(CHUNKS, PLACEMENT)];
const RECORD_KEYS = CHUNKS.map((chunk) => keyString(chunk.key));

/** A valid record, as it is or with bytes flipped or cut off. */
const recordBytes: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(...RECORDS),
  fc
    .tuple(fc.constantFrom(...RECORDS), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }))
    .map(([record, flips]) => {
      const out = Buffer.from(record);
      for (const [at, byte] of flips) out[at % out.length] = byte;
      return out;
    }),
  fc.tuple(fc.constantFrom(...RECORDS), fc.nat()).map(([record, cut]) => record.subarray(0, cut % record.length)),
);

const jsonBytes = fc.jsonValue({ maxDepth: 3 }).map((value) => Buffer.from(JSON.stringify(value)));
const anyBytes: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  jsonBytes,
  recordBytes,
);

const VALID_WRITES = [
  { collection: 'saved_queries', op: 'create', record: { name: 'fuzzed', q: 'from main | head 5' } },
  { collection: 'dashboards', op: 'create', record: { name: 'fuzzed', panels: [] } },
  {
    collection: 'alerts',
    op: 'create',
    record: {
      name: 'fuzzed',
      q: 'from main | stats count() as n',
      interval: '1h',
      enabled: false,
      channels: [{ type: 'webhook', config: { url: 'http://127.0.0.1:1/' } }],
    },
  },
  { collection: 'saved_queries', op: 'delete', id: 'sq_none' },
  { collection: 'api_keys', op: 'replace', id: 'x', record: {} },
];
const writeJson = fc.oneof(
  fc
    .constantFrom(...VALID_WRITES)
    .chain((write) => mutatedDocument(write))
    .map((doc) => JSON.stringify(doc) ?? ''),
  fc.string({ maxLength: 40 }),
);

const QUERY_TEXTS = [
  'from main | head 5',
  'from * | stats count() by host',
  'from main | where n > 3',
  'from main | sort n',
  `from ${MARKER_INDEX}`,
];
const queryTextArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...QUERY_TEXTS) },
  fc.tuple(fc.constantFrom(...QUERY_TEXTS), fc.string({ maxLength: 10 }), fc.nat()).map(([text, insert, at]) => {
    const i = at % (text.length + 1);
    return text.slice(0, i) + insert + text.slice(i);
  }),
  fc.string({ maxLength: 40 }),
);

const nowMicros = (): number => Date.now() * 1000;
const microsArb = fc.oneof(
  fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
  fc.integer({ min: -DAY_MICROS, max: DAY_MICROS }).map((offset) => nowMicros() - DAY_MICROS + offset),
  fc.maxSafeInteger(),
);
const keyArb = fc.oneof(
  fc
    .tuple(fc.constantFrom('main', MARKER_INDEX, '..', ''), fc.integer({ min: -2, max: 3 }), fc.integer({ min: -2, max: 20 }))
    .map(
      ([index, bucket, partition]) =>
        `${index}|${Math.floor((nowMicros() - DAY_MICROS) / BUCKET_SPAN_MICROS + bucket) * BUCKET_SPAN_MICROS}|${partition}`,
    ),
  fc.string({ maxLength: 20 }),
);
const nodeName = fc.oneof(fc.constantFrom('node1', GHOST, 'node3', '', '../x', 'x'.repeat(300)), fc.string({ maxLength: 10 }));

/** Values for fields whose names say what they hold, beside random values of their type. */
const BY_NAME: Record<string, fc.Arbitrary<unknown>> = {
  origin: fc.oneof({ weight: 4, arbitrary: fc.constant(GHOST) }, { weight: 1, arbitrary: nodeName }),
  from: nodeName,
  id: nodeName,
  node: nodeName,
  node_id: nodeName,
  http: fc.constantFrom('127.0.0.1:1', 'localhost:0', ':', 'x'),
  grpc: fc.constantFrom('127.0.0.1:1', '[::1]:2', 'host:99999', ''),
  role: fc.constantFrom('all', 'coordinator', 'shard', 'king'),
  layout: fc.constantFrom('', 'dealt', 'spiral'),
  members: fc.array(nodeName, { maxLength: 4 }),
  record: fc.oneof(recordBytes, anyBytes),
  data: anyBytes,
  write_json: writeJson,
  text: queryTextArb,
  variables_json: fc.oneof(
    { weight: 4, arbitrary: fc.constant('{}') },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })).map((value) => JSON.stringify(value)),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  ),
  keys: fc.array(keyArb, { maxLength: 5 }),
  // A KeyRun's: an index the node holds (or not a name), buckets near the marker events', partitions of the cluster's and beyond.
  index: fc.constantFrom('main', MARKER_INDEX, '..', '', 'a|b'),
  buckets: fc.array(
    fc
      .integer({ min: -2, max: 3 })
      .map((bucket) => Math.floor((nowMicros() - DAY_MICROS) / BUCKET_SPAN_MICROS + bucket) * BUCKET_SPAN_MICROS),
    { maxLength: 4 },
  ),
  partitions: fc.array(fc.integer({ min: -2, max: 20 }), { maxLength: 5 }),
  // A fragment's listed index names (IndexNames): the ones the node holds or not, and names no index may have.
  names: fc.array(fc.constantFrom('main', MARKER_INDEX, 'app-x', '', 'Upper', 'a|b'), { maxLength: 4 }),
  index_patterns: fc.array(fc.constantFrom('main', '*', MARKER_INDEX, '', '[', '**?'), { maxLength: 3 }),
  from_micros: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null).map(() => nowMicros() - 2 * DAY_MICROS) },
    { weight: 1, arbitrary: microsArb },
  ),
  to_micros: fc.oneof({ weight: 3, arbitrary: fc.constant(null).map(() => nowMicros() + DAY_MICROS) }, { weight: 1, arbitrary: microsArb }),
  now_micros: fc.oneof({ weight: 3, arbitrary: fc.constant(null).map(() => nowMicros()) }, { weight: 1, arbitrary: microsArb }),
  limit: fc.oneof(fc.nat(20), fc.constant(Number.MAX_SAFE_INTEGER)),
  offset: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(50) }),
  hint_log: fc.constantFrom('abcdef0123456789', '', 'a/b', 'x'.repeat(100)),
  share_id: fc.oneof(
    fc.constant(''),
    fc
      .tuple(
        fc.integer({ min: -DAY_MICROS / 1000, max: DAY_MICROS / 1000 }).map((offset) => Date.now() + offset),
        fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 16, maxLength: 16 }),
        fc.nat(9),
      )
      .map(([ms, hex, part]) => `${ms}-${hex}-${part}`),
    fc.string({ maxLength: 30 }),
  ),
  fragment_id: fc.constantFrom('', 'f1', 'x'.repeat(500)),
  hints_for: fc.array(nodeName, { maxLength: 3 }),
};

/** Random values of a scalar proto type, the edges of its range among them. */
function scalarArb(type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'TYPE_STRING':
      return fc.oneof(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20, unit: 'binary' }), fc.constant('x'.repeat(70_000)));
    case 'TYPE_BYTES':
      // Now and then 8 MiB, well within the 64 MiB a request may have.
      return fc.oneof(
        { weight: 40, arbitrary: anyBytes },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }).map((byte) => Buffer.alloc(8 * 1024 * 1024, byte)) },
      );
    case 'TYPE_BOOL':
      return fc.boolean();
    case 'TYPE_DOUBLE':
      return fc.double();
    case 'TYPE_UINT32':
      return fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constant(0xffffffff), fc.nat());
    case 'TYPE_UINT64':
      return fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(2 ** 63), fc.maxSafeNat());
    case 'TYPE_INT64':
    case 'TYPE_SINT64':
    case 'TYPE_INT32':
    case 'TYPE_SINT32':
      return fc.oneof(
        fc.integer({ min: -4, max: 4 }),
        fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
        fc.maxSafeInteger(),
      );
    default:
      throw new Error(`no generator for proto type ${type}: add one`);
  }
}

/** 20,000 copies of one short value of the field's type (a message type's: an empty message). */
function largeRepeated(field: FieldDescriptor): fc.Arbitrary<unknown[]> {
  const short: fc.Arbitrary<unknown> =
    field.type === 'TYPE_MESSAGE'
      ? fc.constant({})
      : field.type === 'TYPE_STRING'
        ? fc.string({ maxLength: 8 })
        : field.type === 'TYPE_BYTES'
          ? fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes))
          : scalarArb(field.type);
  return short.map((value) => Array.from({ length: 20_000 }, () => value));
}

const messageArbs = new Map<string, fc.Arbitrary<Record<string, unknown>>>();

/** Messages of type `typeName`: each field absent, of a random value of its type, or (by its name) a telling one. */
function messageArb(typeName: string, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const cached = depth === 0 ? messageArbs.get(typeName) : undefined;
  if (cached !== undefined) return cached;
  const definition = LOADED_PROTO[`trawl.v1.${typeName}`] as { type: { field: FieldDescriptor[] } } | undefined;
  if (definition === undefined) throw new Error(`message ${typeName} not in the proto`);
  const fields = definition.type.field;
  const members: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of fields) {
    if (field.name === 'protocol_version') {
      // Mostly this release's, so that the fuzzing reaches past the version check.
      members[field.name] = fc.oneof(
        { weight: 12, arbitrary: fc.constant(protocolVersion()) },
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.record({ major: fc.nat(3), minor: fc.nat(100) }, { requiredKeys: [] }) },
      );
      continue;
    }
    const typed: fc.Arbitrary<unknown> =
      field.type === 'TYPE_MESSAGE'
        ? depth >= 3
          ? fc.constant(null)
          : fc.oneof(fc.constant(null), messageArb(field.typeName, depth + 1))
        : scalarArb(field.type);
    const named = BY_NAME[field.name];
    const one =
      named !== undefined && field.label !== 'LABEL_REPEATED'
        ? fc.oneof({ weight: 3, arbitrary: named }, { weight: 1, arbitrary: typed })
        : typed;
    members[field.name] =
      field.label === 'LABEL_REPEATED'
        ? fc.oneof(
            { weight: 6, arbitrary: BY_NAME[field.name] ?? fc.array(one, { maxLength: 4 }) },
            { weight: 1, arbitrary: fc.array(one, { maxLength: 4 }) },
            // Large, well under the 64 MiB request limit: 20,000 short values.
            { weight: 1, arbitrary: largeRepeated(field) },
          )
        : one;
  }
  // Each field may be missing, but the version, which stands for itself being missing above.
  const required = fields.some((field) => field.name === 'protocol_version') ? ['protocol_version'] : [];
  const arb = fc.record(members, { requiredKeys: required });
  if (depth === 0) messageArbs.set(typeName, arb);
  return arb;
}

/** A request each method serves (or refuses for what it is, not for its shape), for the fuzzer to change a field or two of. */
function validRequest(method: string): Record<string, unknown> {
  const version = protocolVersion();
  const now = nowMicros();
  const range = { from_micros: now - 2 * DAY_MICROS, to_micros: now + DAY_MICROS };
  const ghost = { id: GHOST, http: '127.0.0.1:1', grpc: '127.0.0.1:2', role: 'all' };
  switch (method) {
    case 'Join':
      return { protocol_version: version, node: { id: 'node3', http: '127.0.0.1:3', grpc: '127.0.0.1:4', role: 'all' } };
    case 'Heartbeat':
      return { protocol_version: version, from: ghost, state_version: 1, payload_version: 0, hints_for: [] };
    case 'PullState':
      return { protocol_version: version, from: GHOST };
    case 'PushState':
      return {
        protocol_version: version,
        from: 'node1',
        state: { version: 99, members: [ghost] },
        payload: { version: 1, data: Buffer.from('{}') },
      };
    case 'Apply':
      return { protocol_version: version, write_json: JSON.stringify(VALID_WRITES[0]) };
    case 'Write':
      return { protocol_version: version, origin: GHOST, record: RECORDS[0], share_id: '', share_floor_ms: 0 };
    case 'ReplayHint':
      return {
        protocol_version: version,
        origin: GHOST,
        hint_log: 'abcdef0123456789',
        seq: 1 + (now % 1_000_000),
        record: RECORDS[0],
        share_id: '',
      };
    case 'Keys':
      return { protocol_version: version, index_patterns: ['main', MARKER_INDEX], ...range };
    case 'Query':
      return {
        protocol_version: version,
        text: 'from main | head 5',
        variables_json: '{}',
        ...range,
        now_micros: now,
        limit: 10,
        keys: RECORD_KEYS,
      };
    case 'RaiseFloor':
      return { protocol_version: version, fragment_id: 'f1', time: now };
    case 'Catalog':
      return { protocol_version: version, keys: RECORD_KEYS, ...range, prefix: '', source: '' };
    case 'Subscribe':
      return { protocol_version: version, text: 'from main | where n > 3', now_micros: now };
    default:
      return { protocol_version: version };
  }
}

/** Messages of the method's request type: half entirely random, half a valid request with one to three fields replaced (or left out). */
function requestArb(method: ProtoMethod, typeName: string): fc.Arbitrary<Record<string, unknown>> {
  const random = messageArb(typeName);
  const valid = validRequest(method.name);
  const changed = fc
    .tuple(random, fc.subarray(Object.keys(valid), { minLength: 1, maxLength: Math.min(3, Object.keys(valid).length) }))
    .map(([values, names]) => {
      const out = { ...validRequest(method.name) };
      for (const name of names) {
        if (name in values) out[name] = values[name];
        else delete out[name];
      }
      return out;
    });
  return fc.oneof(random, changed);
}

const identity = (bytes: Buffer): Buffer => bytes;

interface Outcome {
  error: grpc.ServiceError | null;
  replies: Buffer[];
}

/** Calls `method` with `bytes` as its serialized request and a proof of the secret; a stream is read to its end (a tail's is canceled at its first message). */
function call(client: grpc.Client, method: ProtoMethod, bytes: Buffer): Promise<Outcome> {
  const { definition } = method;
  const metadata = new grpc.Metadata();
  metadata.set(PROOF_KEY, signProof(SECRET, GHOST, definition.path));
  const options = { deadline: Date.now() + CALL_MS };
  return new Promise((resolve) => {
    const replies: Buffer[] = [];
    if (definition.responseStream) {
      const stream = client.makeServerStreamRequest(definition.path, identity, identity, bytes, metadata, options);
      stream.on('data', (reply: Buffer) => {
        replies.push(reply);
        // A tail subscription runs until the caller leaves.
        if (method.service === 'Tail') stream.cancel();
      });
      stream.on('error', (error: grpc.ServiceError) => resolve({ error, replies }));
      stream.on('end', () => resolve({ error: null, replies }));
    } else {
      client.makeUnaryRequest(definition.path, identity, identity, bytes, metadata, options, (error, reply) => {
        if (reply !== undefined) replies.push(reply);
        resolve({ error: error ?? null, replies });
      });
    }
  });
}

describe('cluster: fuzzed gRPC calls with the cluster secret', function () {
  // A longer hunt (FUZZ_RUNS) takes as long as it takes.
  this.timeout(process.env.FUZZ_RUNS ? 0 : 300_000);
  let node: ClusteredServer;
  let client: grpc.Client;
  const methods = protoMethods();
  /** What the calls answered OK stored: events appended by writes and hints, and members joined. */
  let appended = 0;
  const joined = new Set<string>();
  const tally = new Map<string, Map<string, number>>();

  function note(method: ProtoMethod, outcome: Outcome, sent: Buffer): void {
    const { error } = outcome;
    const context = sent.toString('base64').slice(0, 2000);
    const label = error === null ? 'OK' : `${grpc.status[error.code]} ${error.metadata?.get(REFUSAL_KEY)[0] ?? ''}`.trim();
    const name = `${method.service}.${method.name}`;
    const counts = tally.get(name) ?? new Map<string, number>();
    counts.set(label, (counts.get(label) ?? 0) + 1);
    tally.set(name, counts);
    if (error !== null) {
      assert.notEqual(error.code, grpc.status.UNKNOWN, `${name} ended UNKNOWN: ${error.details} for ${context}`);
      assert.notEqual(error.code, grpc.status.INTERNAL, `${name} ended INTERNAL: ${error.details} for ${context}`);
      assert.notEqual(error.code, grpc.status.DEADLINE_EXCEEDED, `${name} did not answer within ${CALL_MS} ms for ${context}`);
      return;
    }
    if (method.name === 'Write' || method.name === 'ReplayHint') {
      const reply = method.definition.responseDeserialize(outcome.replies[0]!) as { events: number };
      appended += reply.events;
    }
    if (method.name === 'Join') {
      joined.add((method.definition.requestDeserialize(sent) as { node: { id: string } }).node.id);
    }
  }

  async function markerCount(): Promise<number> {
    const answer = await postJson(`${node.api}/query`, { q: `from ${MARKER_INDEX} | stats count() as n`, from: '-1d', to: '+1h' });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.data.rows[0]?.[0] ?? 0;
  }

  async function memberIds(): Promise<string[]> {
    const status = (await request(`${node.api}/cluster/status`)).body.data;
    return (status.nodes as { id: string }[]).map((each) => each.id).sort();
  }

  before(async () => {
    [node] = await startClusteredServers(1, { env: { TRAWL_CLUSTER_SECRET: SECRET } });
    const now = Date.now() / 1000;
    const events = Array.from({ length: MARKER_EVENTS }, (_, i) => ({ event: `marker ${i}`, time: now - 60 + i, index: MARKER_INDEX }));
    assert.equal((await postJson(`${node.api}/ingest`, events)).body?.data?.accepted, MARKER_EVENTS);
    await waitUntil(async () => (await markerCount()) === MARKER_EVENTS, 20_000, 'the marker events to be counted');
    client = new grpc.Client(node.grpc, grpc.credentials.createInsecure());
    // A member at a port nothing listens on: shares from it get past the origin check.
    const ghost = {
      protocol_version: protocolVersion(),
      node: { id: GHOST, http: `127.0.0.1:${await freePort()}`, grpc: `127.0.0.1:${await freePort()}`, role: 'all' },
    };
    const joinMethod = methods.find((method) => method.name === 'Join')!;
    const outcome = await call(client, joinMethod, MEMBERSHIP.Join.requestSerialize(ghost));
    assert.equal(outcome.error, null, outcome.error?.details);
    joined.add(GHOST);
  });

  after(async () => {
    client?.close();
    if (process.env.TRAWL_TEST_VERBOSE) for (const [name, counts] of tally) console.log(`      ${name}: ${JSON.stringify([...counts])}`);
    if (node !== undefined) await stopClusteredServers([node]);
  });

  it('covers every service of the proto', () => {
    const names = new Set(methods.map((method) => method.service));
    for (const service of ['Membership', 'NodeInfo', 'Metadata', 'ShardWrite', 'ShardQuery', 'Tail'])
      assert.ok(names.has(service), service);
  });

  it('messages of the proto types: every method answers or refuses with a reason, never UNKNOWN or INTERNAL', async () => {
    const storedBefore = await storedEvents(node);
    const appendedBefore = appended;
    for (const method of methods) {
      // proto-loader's method definitions name their request type.
      const typeName = (method.definition as unknown as { requestType: { type: { name: string } } }).requestType.type.name;
      await fc.assert(
        fc.asyncProperty(requestArb(method, typeName), async (message) => {
          let bytes: Buffer;
          try {
            bytes = method.definition.requestSerialize(message);
          } catch {
            return; // a value protobufjs cannot write (no peer could send it either)
          }
          note(method, await call(client, method, bytes), bytes);
        }),
        { numRuns: fuzzRuns(60), reporter: briefReporter },
      );
      assert.equal(node.server.process.exitCode, null, `the node is up after ${method.service}.${method.name}`);
    }
    assert.equal((await request(`${node.server.url}/health`)).status, 200);
    assert.equal(
      await storedEvents(node),
      storedBefore + appended - appendedBefore,
      'the node stored what the writes answered OK appended, and nothing else',
    );
  });

  it('random bytes as the serialized message: every method refuses them without an exception', async () => {
    const storedBefore = await storedEvents(node);
    const appendedBefore = appended;
    for (const method of methods) {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
            recordBytes,
          ),
          async (bytes) => {
            note(method, await call(client, method, bytes), bytes);
          },
        ),
        { numRuns: fuzzRuns(20), reporter: briefReporter },
      );
      assert.equal(node.server.process.exitCode, null, `the node is up after ${method.service}.${method.name}`);
    }
    assert.equal((await request(`${node.server.url}/health`)).status, 200);
    assert.equal(await storedEvents(node), storedBefore + appended - appendedBefore);
  });

  it('stays up with what it held: the members joined, the marker events, well-formed metadata', async () => {
    assert.equal(node.server.process.exitCode, null);
    assert.deepEqual(await memberIds(), ['node1', ...joined].sort());
    assert.equal(await markerCount(), MARKER_EVENTS);
    for (const [path, list] of [
      ['queries', 'queries'],
      ['dashboards', 'dashboards'],
      ['alerts', 'alerts'],
    ] as const) {
      const answer = await request(`${node.api}/${path}`);
      assert.equal(answer.status, 200, answer.text);
      for (const record of answer.body.data[list] as Record<string, unknown>[])
        assert.equal(typeof record.name, 'string', JSON.stringify(record));
    }
    assert.deepEqual(failureLines(node.server.log), [], 'the server logged no failure');
  });
});
