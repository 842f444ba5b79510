/**
 * Malformed and mutated bodies against every ingest endpoint of one server: edits of valid
 * documents (noise, cuts, duplicated slices, deep nesting, huge numbers, duplicate keys, empty
 * lines, bytes that are not UTF-8), random JSON and bytes, gzip and broken gzip, every content
 * type. Every answer is a 2xx or an error envelope with a catalogue code (docs/api.md), never a 5xx
 * or a dropped connection; the server stays up; the events acknowledged before the fuzzing are
 * still counted after it, and the stored event count equals those plus the sum of what the 200
 * answers reported as accepted.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { dispose, gzip, post, type Answer } from '../helpers/api';
import { assertNoCrash, editText, failureLines, fuzzRuns, textEditArb, type TextEdit } from '../helpers/fuzz';
import { postJson, request, TestServer } from '../helpers/server';
import { readStoredEvents } from '../helpers/storage';

const RUNS_PER_ENDPOINT = fuzzRuns(80);
const MARKER_INDEX = 'fuzzmarker';
const MARKER_EVENTS = 25;
const ES_JSON = 'application/vnd.elasticsearch+json; compatible-with=8';
const ES_NDJSON = 'application/vnd.elasticsearch+x-ndjson; compatible-with=8';
const CONTENT_TYPES = ['application/json', 'application/x-ndjson', ES_JSON, ES_NDJSON, 'text/plain', 'application/octet-stream', undefined];
const NOISE = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ',',
  ':',
  '\n',
  '\r',
  '\\',
  ' ',
  '0',
  '-',
  'e',
  '.',
  'x',
  'null',
  'true',
  '\u0000',
  '\u00e9',
  '\ud83d\ude00',
  '\ud800',
];

type Endpoint = 'ingest' | 'raw' | 'hec' | 'bulk' | 'es-bulk' | 'doc' | 'otlp';

interface Case {
  text: string;
  /** An edit of the text's bytes (for plain and gzip bodies). */
  edit: { kind: TextEdit; at: number; depth: number };
  /** plain text, gzip of it, random bytes, or bytes with a gzip header that are not gzip. */
  encoding: 'plain' | 'gzip' | 'bytes' | 'bad-gzip';
  bytes: Uint8Array;
  contentType: string | undefined;
  index: string | undefined;
}

// Valid-looking documents, later mutated.
const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null));
const fieldsArb = fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('_time', 'index', '__proto__', 'a.b', '')), scalar, {
  maxKeys: 4,
});
const timeArb = fc.oneof(
  fc.integer({ min: 0, max: 8_000_000_000 }),
  fc.double({ min: -1e12, max: 1e12 }),
  fc.string({ maxLength: 12 }),
  fc.constant(null),
);
const eventArb = fc.oneof(fc.string({ maxLength: 30, unit: 'binary' }), scalar, fc.jsonValue({ maxDepth: 2 }));

const nativeText = fc
  .array(
    fc.oneof(
      fc.record(
        {
          event: eventArb,
          time: timeArb,
          source: scalar,
          host: scalar,
          index: fc.constantFrom('main', 'web', 'Bad', '_x', ''),
          fields: fc.oneof(fieldsArb, scalar),
        },
        { requiredKeys: ['event'] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    { maxLength: 6 },
  )
  .map((items) => JSON.stringify(items));

const rawText = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 60, unit: 'binary' }),
      nativeText,
      fc.constantFrom('2024-01-15T10:00:00Z ERROR x', '<34>Oct 11 22:14:15 host app[1]: msg', '   ', ''),
    ),
    { maxLength: 8 },
  )
  .map((lines) => lines.join('\n'));

const hecText = fc
  .array(
    fc.oneof(
      fc.record(
        {
          event: eventArb,
          time: timeArb,
          host: scalar,
          source: scalar,
          sourcetype: scalar,
          index: fc.constantFrom('main', 'Bad', ''),
          fields: fc.oneof(fieldsArb, scalar),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    { maxLength: 6 },
  )
  .chain((objects) => fc.constantFrom('\n', '', ' ', '\r\n').map((sep) => objects.map((o) => JSON.stringify(o)).join(sep)));

const bulkText = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.record({ index: fc.record({ _index: fc.oneof(fc.string({ maxLength: 10 }), scalar), _id: scalar }, { requiredKeys: [] }) }),
        fc
          .constantFrom('index', 'create', 'delete', 'update', 'bogus')
          .chain((action) => fc.record({ _index: fc.string({ maxLength: 6 }) }).map((meta) => ({ [action]: meta }))),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      fc.oneof(
        fc.record({ '@timestamp': timeArb, msg: fc.string({ maxLength: 10 }), n: scalar }, { requiredKeys: [] }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    ),
    { maxLength: 6 },
  )
  .map((pairs) => pairs.flatMap(([action, doc]) => [JSON.stringify(action), JSON.stringify(doc)]).join('\n') + '\n');

const docText = fc
  .oneof(fc.record({ '@timestamp': timeArb, msg: eventArb, level: scalar }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 3 }))
  .map((doc) => JSON.stringify(doc));

const anyValue = fc.oneof(
  fc.record({ stringValue: fc.string({ maxLength: 10 }) }),
  fc.record({ intValue: fc.oneof(fc.integer(), fc.string({ maxLength: 22 }), fc.constant('9223372036854775807')) }),
  fc.record({ doubleValue: fc.double() }),
  fc.record({ boolValue: fc.boolean() }),
  fc.jsonValue({ maxDepth: 2 }),
);
const attributesArb = fc.oneof(
  fc.array(
    fc.record({
      key: fc.oneof(
        fc.constantFrom('service.name', 'host.name', 'deployment.environment', '_time', '__proto__'),
        fc.string({ maxLength: 8 }),
      ),
      value: anyValue,
    }),
    { maxLength: 4 },
  ),
  scalar,
);
const otlpText = fc
  .record(
    {
      resourceLogs: fc.array(
        fc.record(
          {
            resource: fc.oneof(fc.record({ attributes: attributesArb }, { requiredKeys: [] }), scalar),
            scopeLogs: fc.array(
              fc.record(
                {
                  scope: fc.jsonValue({ maxDepth: 1 }),
                  logRecords: fc.array(
                    fc.oneof(
                      fc.record(
                        {
                          timeUnixNano: fc.oneof(fc.constant('1700000000000000000'), fc.string({ maxLength: 20 }), fc.integer()),
                          body: anyValue,
                          severityText: scalar,
                          severityNumber: fc.oneof(fc.integer({ min: -2, max: 30 }), fc.string({ maxLength: 22 })),
                          attributes: attributesArb,
                        },
                        { requiredKeys: [] },
                      ),
                      scalar,
                    ),
                    { maxLength: 4 },
                  ),
                },
                { requiredKeys: [] },
              ),
              { maxLength: 2 },
            ),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
    },
    { requiredKeys: [] },
  )
  .map((body) => JSON.stringify(body));

/** Up to three edits: insert noise, delete or duplicate a slice, or cut the text. */
const mutations = fc.array(
  fc.record({
    kind: fc.constantFrom('insert', 'delete', 'dup', 'cut'),
    at: fc.nat(),
    len: fc.integer({ min: 1, max: 8 }),
    noise: fc.constantFrom(...NOISE),
  }),
  { maxLength: 3 },
);

function mutate(text: string, edits: { kind: string; at: number; len: number; noise: string }[]): string {
  let out = text;
  for (const edit of edits) {
    const at = out.length === 0 ? 0 : edit.at % (out.length + 1);
    if (edit.kind === 'insert') out = out.slice(0, at) + edit.noise + out.slice(at);
    else if (edit.kind === 'delete') out = out.slice(0, at) + out.slice(at + edit.len);
    else if (edit.kind === 'dup') out = out.slice(0, at + edit.len) + out.slice(at);
    else out = out.slice(0, at);
  }
  return out;
}

function caseArb(endpoint: Endpoint): fc.Arbitrary<Case> {
  const base = { ingest: nativeText, raw: rawText, hec: hecText, bulk: bulkText, 'es-bulk': bulkText, doc: docText, otlp: otlpText }[
    endpoint
  ];
  const text = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(base, mutations).map(([t, edits]) => mutate(t, edits)) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200, unit: 'binary' }) },
    // Occasionally over the 8kb limit (413, or truncation on raw).
    {
      weight: 1,
      arbitrary: fc.tuple(base, fc.integer({ min: 1, max: 400 })).map(([t, n]) => (endpoint === 'raw' ? `${t}\n`.repeat(n) : t.repeat(n))),
    },
  );
  const type =
    endpoint === 'otlp'
      ? fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/x-protobuf', undefined)
      : fc.constantFrom(...CONTENT_TYPES);
  return fc.record({
    text,
    edit: textEditArb,
    encoding: fc.constantFrom<Case['encoding']>('plain', 'plain', 'plain', 'gzip', 'bytes', 'bad-gzip'),
    bytes: fc.uint8Array({ maxLength: 64 }),
    contentType: type,
    index: fc.constantFrom(undefined, 'main', 'fuzz', 'Bad Index', '_x', ''),
  });
}

const PATHS: Record<Endpoint, string> = {
  ingest: '/ingest',
  raw: '/ingest/raw',
  hec: '/ingest/hec',
  bulk: '/ingest/bulk',
  'es-bulk': '/es/_bulk',
  doc: '/es/fuzz/_doc',
  otlp: '/otlp/v1/logs',
};

/** The records an OTLP request carried (a 200 answer stores those it does not name as rejected). */
function otlpRecords(text: string): number {
  const body = JSON.parse(text.trim() === '' ? '{}' : text) as {
    resourceLogs?: { scopeLogs?: { logRecords?: unknown[] | null }[] | null }[] | null;
  };
  let n = 0;
  for (const rl of body.resourceLogs ?? []) for (const sl of rl.scopeLogs ?? []) n += (sl.logRecords ?? []).length;
  return n;
}

/** Events a 2xx answer acknowledged. */
function acknowledged(endpoint: Endpoint, answer: Answer, text: string): number {
  switch (endpoint) {
    case 'ingest':
    case 'raw':
      assert.ok(Number.isInteger(answer.body?.data?.accepted), answer.text);
      return answer.body.data.accepted as number;
    case 'hec':
      assert.equal(answer.body?.text, 'Success', answer.text);
      assert.ok(Number.isInteger(answer.body.accepted), answer.text);
      return answer.body.accepted as number;
    case 'bulk':
    case 'es-bulk':
      assert.ok(Array.isArray(answer.body?.items), answer.text);
      return (answer.body.items as Record<string, { status: number }>[]).filter((item) => Object.values(item)[0]!.status === 201).length;
    case 'doc':
      assert.equal(answer.status, 201, answer.text);
      assert.equal(answer.body.result, 'created');
      return 1;
    case 'otlp': {
      // Records refused one by one (too old, too far ahead, bad fields) are counted in partialSuccess.
      if (answer.text === '') return otlpRecords(text);
      const rejected = Number(answer.body?.partialSuccess?.rejectedLogRecords);
      assert.ok(Number.isInteger(rejected) && rejected > 0, answer.text);
      return otlpRecords(text) - rejected;
    }
  }
}

describe('api: fuzzed ingest bodies', function () {
  let server: TestServer;

  async function markerCount(): Promise<number> {
    const answer = await postJson(`${server.api}/query`, { q: `from ${MARKER_INDEX} | stats count() as n`, from: '-1d', to: '+1h' });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.data.rows[0]?.[0] ?? 0;
  }

  before(async () => {
    server = await TestServer.start({ set: { 'ingest.max_body_size': '8kb' } });
    const now = Date.now() / 1000;
    const events = Array.from({ length: MARKER_EVENTS }, (_, i) => ({ event: `marker ${i}`, time: now - 60 + i, index: MARKER_INDEX }));
    assert.equal((await postJson(`${server.api}/ingest`, events)).body?.data?.accepted, MARKER_EVENTS);
    assert.equal(await markerCount(), MARKER_EVENTS);
  });

  after(async () => {
    await dispose(server);
  });

  // One test: the store check at its end counts what every endpoint's 200 answers acknowledged.
  it('every endpoint answers a 2xx or an error envelope for every body, never a 5xx or a dropped connection, and stores exactly what its 200 answers acknowledged', async function () {
    this.timeout(60_000 * Object.keys(PATHS).length);
    let acceptedTotal = 0;
    const statuses = new Map<number, number>();
    for (const endpoint of Object.keys(PATHS) as Endpoint[]) {
      try {
        await fc.assert(
          fc.asyncProperty(caseArb(endpoint), async (c) => {
            const headers: Record<string, string> = {};
            if (c.contentType !== undefined) headers['content-type'] = c.contentType;
            if (c.index !== undefined && endpoint === 'raw') headers['x-index'] = c.index;
            const edited = editText(c.text, c.edit);
            let body: Buffer;
            if (c.encoding === 'bytes') body = Buffer.from(c.bytes);
            else if (c.encoding === 'bad-gzip') body = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from(c.bytes)]);
            else body = c.encoding === 'gzip' ? gzip(edited) : edited;
            if (c.encoding === 'gzip' || c.encoding === 'bad-gzip') headers['content-encoding'] = 'gzip';
            const answer = await post(`${server.api}${PATHS[endpoint]}`, body, headers); // a dropped connection rejects here
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            if (assertNoCrash(answer, PATHS[endpoint]) !== null) return;
            assert.ok(answer.status === 200 || answer.status === 201, `${answer.status} ${answer.text}`);
            const plain = (c.encoding === 'bytes' ? Buffer.from(c.bytes) : edited).toString('utf8');
            acceptedTotal += acknowledged(endpoint, answer, plain);
          }),
          { numRuns: RUNS_PER_ENDPOINT },
        );
      } catch (error) {
        throw new Error(`${PATHS[endpoint]}: ${(error as Error).message}`, { cause: error });
      }
      const health = await request(`${server.url}/health`);
      assert.equal(health.status, 200, `server still up after ${PATHS[endpoint]}`);
    }

    assert.equal(await markerCount(), MARKER_EVENTS, 'the events acknowledged before the fuzzing are all counted');
    assert.equal(await server.stop(), 0, server.log);
    assert.deepEqual(failureLines(server.log), [], 'the server logged no failure');
    const stored = await readStoredEvents(server.dataDir);
    if (process.env.TRAWL_TEST_VERBOSE) console.log(`      statuses ${JSON.stringify([...statuses].sort())}, accepted ${acceptedTotal}`);
    assert.ok(acceptedTotal > 0, 'some requests were accepted');
    assert.equal(stored.length, MARKER_EVENTS + acceptedTotal);
  });
});
