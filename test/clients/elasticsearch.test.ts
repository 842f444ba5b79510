/**
 * The official Elasticsearch v8 client against the bulk-compatible endpoints: handshake, the bulk
 * helper (plain and gzip-compressed), single-document index, then the stored events.
 */
import { strict as assert } from 'assert';
import { Client } from '@elastic/elasticsearch';
import { assertFields, dispose, isoMicros, storedBy } from '../helpers/api';
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

describe('clients: @elastic/elasticsearch v8', function () {
  let server: TestServer;
  let client: Client;
  let stored: StoredEvent[] = [];

  before(async () => {
    server = await TestServer.start();
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
    const stats = await client.helpers.bulk<Doc>({
      datasource: docs('web', 500),
      onDocument: () => ({ index: { _index: 'web-logs' } }),
      onDrop: (doc) => dropped.push(doc),
      flushBytes: 16_000, // several bulk requests
      concurrency: 3,
    });
    assert.deepEqual(dropped, []);
    assert.equal(stats.total, 500);
    assert.equal(stats.successful, 500);
    assert.equal(stats.failed, 0);
    assert.equal(stats.aborted, false);
  });

  it('helpers.bulk through a gzip-compressing client', async () => {
    const gz = new Client({ node: `${server.url}/api/v1/es`, compression: true });
    try {
      const stats = await gz.helpers.bulk<Doc>({
        datasource: docs('gz', 100),
        onDocument: () => ({ create: { _index: 'web-gz' } }),
      });
      assert.equal(stats.successful, 100);
      assert.equal(stats.failed, 0);
    } finally {
      await gz.close();
    }
  });

  it('client.index() stores one document', async () => {
    const result = await client.index({ index: 'x', document: { uid: 'single', '@timestamp': '2024-06-02T12:00:00.250Z', level: 'warn' } });
    assert.equal(result.result, 'created');
    assert.ok(typeof result._id === 'string' && result._id !== '');
  });

  describe('stored events', () => {
    before(async () => {
      assert.equal(await server.stop(), 0, server.log);
      stored = await readStoredEvents(server.dataDir);
    });

    it('has every document once, source from _index, in index main, with the detected timestamp', () => {
      assert.equal(stored.length, 601);
      for (const [tag, source, count] of [['web', 'web-logs', 500], ['gz', 'web-gz', 100]] as const) {
        for (const doc of docs(tag, count)) {
          const timeKey = TIME_KEYS.find((key) => key in doc)!;
          assertFields(
            storedBy(stored, 'uid', doc.uid),
            { source, index: 'main', _time: isoMicros(doc[timeKey] as string), status: doc.status, message: doc.message },
            doc.uid,
          );
        }
      }
      assertFields(storedBy(stored, 'uid', 'single'), { source: 'x', index: 'main', _time: isoMicros('2024-06-02T12:00:00.250Z'), level: 'warn' });
    });
  });
});
