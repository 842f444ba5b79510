/**
 * The official Elasticsearch v8 client against the bulk-compatible endpoints: handshake, the bulk
 * helper (plain and gzip-compressed), single-document index, refused documents, then the stored
 * events; the calls around writing (ping, health, templates, index creation, the bulk helper's final
 * refresh) and the errors the client reads.
 */
import { strict as assert } from 'assert';
import { Client, errors } from '@elastic/elasticsearch';
import { assertFields, dispose, isoMicros, queryEvents, storedBy } from '../helpers/api';
import { TestServer } from '../helpers/server';
import { readStoredEvents, type StoredEvent } from '../helpers/storage';

const TIME_KEYS = ['@timestamp', 'timestamp', 'time', 'ts', 'datetime'] as const;
const BASE = Date.parse('2024-06-01T00:00:00Z');

interface Doc {
  uid: string;
  message: string;
  status: number;
  [timeKey: string]: string | number;
}

function docs(tag: string, count: number): Doc[] {
  return Array.from({ length: count }, (_, i) => ({
    uid: `${tag}-${i}`,
    message: `GET /item/${i} served`,
    status: 200 + (i % 5),
    [TIME_KEYS[i % TIME_KEYS.length]!]: new Date(BASE + i * 1000).toISOString(),
  }));
}

type BulkStats = Awaited<ReturnType<Client['helpers']['bulk']>>;

/** 500 documents through the bulk helper, in several requests. */
function bulkWeb(client: Client, onDrop: (doc: unknown) => void = () => {}): Promise<BulkStats> {
  return client.helpers.bulk<Doc>({
    datasource: docs('web', 500),
    onDocument: () => ({ index: { _index: 'web-logs' } }),
    onDrop,
    flushBytes: 16_000, // several bulk requests
    concurrency: 3,
  });
}

/** 100 documents through a gzip-compressing client. */
async function bulkGzip(url: string): Promise<BulkStats> {
  const gz = new Client({ node: `${url}/api/v1/es`, compression: true });
  try {
    return await gz.helpers.bulk<Doc>({
      datasource: docs('gz', 100),
      onDocument: () => ({ create: { _index: 'web-gz' } }),
    });
  } finally {
    await gz.close();
  }
}

function indexSingle(client: Client): ReturnType<Client['index']> {
  return client.index({ index: 'x', document: { uid: 'single', '@timestamp': '2024-06-02T12:00:00.250Z', level: 'warn' } });
}

// Older than the retention (3650d): refused, and the helper must not retry it (it retries 429 only).
const LATE = { uid: 'late', message: 'from 2001', '@timestamp': '2001-01-01T00:00:00Z', status: 200 };

/** One refused document and 3 stored ones. */
function bulkMixed(client: Client, onDrop: (doc: unknown) => void = () => {}): Promise<BulkStats> {
  return client.helpers.bulk<Doc>({
    datasource: [LATE, ...docs('mixed', 3)],
    onDocument: () => ({ index: { _index: 'web-mixed' } }),
    onDrop,
  });
}

describe('clients: @elastic/elasticsearch v8', function () {
  let server: TestServer;
  let client: Client;

  before(async () => {
    // The documents carry fixed 2024 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { retention: '3650d' } });
    client = new Client({ node: `${server.url}/api/v1/es` });
  });

  after(async () => {
    await client?.close();
    await dispose(server);
  });

  it('client.info() accepts the handshake: version 8.0.0', async () => {
    const info = await client.info();
    assert.equal(info.version.number, '8.0.0');
    assert.equal(info.version.build_flavor, 'default');
  });

  it('helpers.bulk indexes 500 documents: 500 successful, 0 failed', async () => {
    const dropped: unknown[] = [];
    const stats = await bulkWeb(client, (doc) => dropped.push(doc));
    assert.deepEqual(dropped, []);
    assert.equal(stats.total, 500);
    assert.equal(stats.successful, 500);
    assert.equal(stats.failed, 0);
    assert.equal(stats.aborted, false);
  });

  it('helpers.bulk through a gzip-compressing client', async () => {
    const stats = await bulkGzip(server.url);
    assert.equal(stats.successful, 100);
    assert.equal(stats.failed, 0);
  });

  it('client.index() stores one document', async () => {
    const result = await indexSingle(client);
    assert.equal(result.result, 'created');
    assert.ok(typeof result._id === 'string' && result._id !== '');
  });

  it('helpers.bulk drops a refused document once, with its 400 and reason, and indexes the rest', async () => {
    const dropped: { status: number; error: { type: string; reason: string } | null; document: unknown; retried: boolean }[] = [];
    const stats = await bulkMixed(client, (doc) => dropped.push(doc as (typeof dropped)[number]));
    assert.equal(stats.total, 4);
    assert.equal(stats.successful, 3);
    assert.equal(stats.failed, 1);
    assert.equal(dropped.length, 1);
    assert.equal(dropped[0]!.status, 400);
    assert.equal(dropped[0]!.retried, false);
    assert.deepEqual(dropped[0]!.document, LATE);
    assert.equal(dropped[0]!.error?.type, 'illegal_argument_exception');
    assert.match(dropped[0]!.error!.reason, /event time 2001-01-01T00:00:00.000000Z is older than retention allows/);
  });

  it('client.index() of a refused document throws a ResponseError with status 400 and the reason', async () => {
    await assert.rejects(
      client.index({ index: 'x', document: { uid: 'late-single', '@timestamp': '2001-01-01T00:00:00Z' } }),
      (error: unknown) => {
        assert.ok(error instanceof errors.ResponseError, String(error));
        assert.equal(error.statusCode, 400);
        assert.equal(error.body.error.type, 'illegal_argument_exception');
        assert.match(error.body.error.reason, /older than retention allows/);
        return true;
      },
    );
  });

  // A server of its own, written to as the tests above write, so that it counts exactly these writes.
  describe('stored events', () => {
    let stored: StoredEvent[] = [];

    before(async () => {
      const own = await TestServer.start({ set: { retention: '3650d' } });
      const writer = new Client({ node: `${own.url}/api/v1/es` });
      try {
        await bulkWeb(writer);
        await bulkGzip(own.url);
        await indexSingle(writer);
        await bulkMixed(writer);
        await assert.rejects(writer.index({ index: 'x', document: { uid: 'late-single', '@timestamp': '2001-01-01T00:00:00Z' } }));
      } finally {
        await writer.close();
      }
      assert.equal(await own.stop(), 0, own.log);
      stored = await readStoredEvents(own.dataDir);
      await dispose(own);
    });

    it('has every document once, source from _index, in index main, with the detected timestamp', () => {
      assert.equal(stored.length, 604);
      assert.equal(stored.filter((event) => String(event.uid).startsWith('late')).length, 0, 'refused documents are not stored');
      for (const [tag, source, count] of [
        ['web', 'web-logs', 500],
        ['gz', 'web-gz', 100],
        ['mixed', 'web-mixed', 3],
      ] as const) {
        for (const doc of docs(tag, count)) {
          const timeKey = TIME_KEYS.find((key) => key in doc)!;
          assertFields(
            storedBy(stored, 'uid', doc.uid),
            { source, index: 'main', _time: isoMicros(doc[timeKey] as string), status: doc.status, message: doc.message },
            doc.uid,
          );
        }
      }
      assertFields(storedBy(stored, 'uid', 'single'), {
        source: 'x',
        index: 'main',
        _time: isoMicros('2024-06-02T12:00:00.250Z'),
        level: 'warn',
      });
    });
  });
});

describe('clients: @elastic/elasticsearch v8, the calls around writing', function () {
  let server: TestServer;
  let client: Client;

  before(async () => {
    // The documents carry fixed 2024 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { retention: '3650d' } });
    client = new Client({ node: `${server.url}/api/v1/es` });
  });

  after(async () => {
    await client?.close();
    await dispose(server);
  });

  it('ping, cluster health, templates, lifecycle policy and index creation succeed as no-ops', async () => {
    assert.equal(await client.ping(), true);
    const health = await client.cluster.health({ wait_for_status: 'yellow', timeout: '5s' });
    assert.equal(health.status, 'green');
    assert.equal(health.number_of_nodes, 1);
    assert.equal(await client.indices.existsIndexTemplate({ name: 'logs-tpl' }), false);
    assert.equal(
      (
        await client.indices.putIndexTemplate({
          name: 'logs-tpl',
          index_patterns: ['logs-*'],
          template: { settings: { number_of_shards: 1 } },
        })
      ).acknowledged,
      true,
    );
    assert.equal((await client.indices.putTemplate({ name: 'legacy-tpl', index_patterns: ['old-*'] })).acknowledged, true);
    assert.equal((await client.ilm.putLifecycle({ name: 'logs-policy', policy: { phases: { hot: { actions: {} } } } })).acknowledged, true);
    assert.equal(await client.indices.exists({ index: 'logs-app' }), false);
    const created = await client.indices.create({ index: 'logs-app', settings: { number_of_replicas: 0 } });
    assert.deepEqual([created.acknowledged, created.index], [true, 'logs-app']);
    const license = await client.license.get();
    assert.equal(license.license.status, 'active');
  });

  it('helpers.bulk with refreshOnCompletion resolves, and every document is searchable at once', async () => {
    const documents = Array.from({ length: 250 }, (_, i) => ({
      uid: `r-${i}`,
      message: `refresh ${i}`,
      '@timestamp': new Date(BASE + i * 1000).toISOString(),
      'log.level': 'warn',
    }));
    const stats = await client.helpers.bulk({
      datasource: documents,
      onDocument: () => ({ index: { _index: 'refreshed' } }),
      refreshOnCompletion: true,
      flushBytes: 8_000,
    });
    assert.equal(stats.successful, documents.length);
    assert.equal(stats.failed, 0);
    const events = await queryEvents(server, 'from main | where source = "refreshed"');
    assert.equal(events.length, documents.length, 'no wait after the refresh');
    for (const doc of documents) {
      const event = events.find((e) => e.uid === doc.uid);
      assert.ok(event !== undefined, doc.uid);
      assertFields(event, { _raw: doc.message, _time: doc['@timestamp'], level: 'warn' }, doc.uid);
    }
  });

  it("errors reach the client in Elasticsearch's shape: type and reason in the message, the status code", async () => {
    await assert.rejects(client.indices.get({ index: 'missing' }), (error: unknown) => {
      assert.ok(error instanceof errors.ResponseError, String(error));
      assert.equal(error.statusCode, 404);
      assert.match(error.message, /index_not_found_exception/);
      assert.equal(error.body.error.type, 'index_not_found_exception');
      assert.equal(error.body.error.code, 'NOT_FOUND');
      return true;
    });
    await assert.rejects(client.indices.create({ index: 'Bad-Name' }), (error: unknown) => {
      assert.ok(error instanceof errors.ResponseError, String(error));
      assert.equal(error.statusCode, 400);
      assert.match(error.message, /invalid_index_name_exception/);
      return true;
    });
  });
});
