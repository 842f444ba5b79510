/**
 * GET /fields, GET /fields/{name}/values and GET /sources against the real server, over a
 * generated dataset part flushed to segments (in two flushes) and part still in the write buffer;
 * every expected count, range, average, quantile, top value and source span is computed by the
 * test from the events it sent. Then the refusals.
 */
import { strict as assert } from 'assert';
import { assertError, dispose, waitUntil } from '../helpers/api';
import {
  assertFields,
  BASE_S,
  discoveryEvent,
  expectedSources,
  expectedValues,
  sourcesWithoutBytes,
  type IngestEvent,
} from '../helpers/discovery-data';
import { postJson, request, TestServer } from '../helpers/server';

const EVENTS = Array.from({ length: 2400 }, (_, i) => discoveryEvent(i));
const FLUSHED = 1600;

async function ingest(server: TestServer, events: readonly IngestEvent[]): Promise<void> {
  const answer = await postJson(`${server.api}/ingest`, events);
  assert.deepEqual(answer.body, { data: { accepted: events.length, failed: 0 } });
}

const bufferedEvents = async (server: TestServer): Promise<number> =>
  (await request(`${server.api}/cluster/status`)).body.data.buffered_events;

describe('api: discovery (fields, field values, sources)', function () {
  this.timeout(120_000);
  let server: TestServer;

  before(async () => {
    // Two flushes, then a restart that flushes no more: the last events stay buffered.
    const flushing = await TestServer.start({ set: { retention: '3650d', 'storage.flush_interval': '100ms' } });
    await ingest(flushing, EVENTS.slice(0, FLUSHED / 2));
    await waitUntil(async () => (await bufferedEvents(flushing)) === 0, 20_000, 'the first half flushed');
    await ingest(flushing, EVENTS.slice(FLUSHED / 2, FLUSHED));
    await waitUntil(async () => (await bufferedEvents(flushing)) === 0, 20_000, 'the second half flushed');
    assert.equal(await flushing.stop(), 0);
    server = await TestServer.start({ dataDir: flushing.dataDir, set: { retention: '3650d', 'storage.flush_interval': '1h' } });
    await ingest(server, EVENTS.slice(FLUSHED));
    assert.equal(await bufferedEvents(server), EVENTS.length - FLUSHED, 'the last events are buffered');
  });

  after(async () => {
    await dispose(server);
  });

  const get = (path: string, params: Record<string, string> = {}) => request(`${server.api}${path}?${new URLSearchParams(params)}`);

  it('GET /fields tells every field with its type, count, coverage and statistics', async () => {
    const answer = await get('/fields');
    assert.equal(answer.status, 200, answer.text);
    assertFields(answer.body.data.fields, EVENTS, 'all fields');
  });

  it('GET /fields narrows by name prefix, by source, and by time', async () => {
    const prefixed = await get('/fields', { prefix: 'u' });
    assert.deepEqual(
      prefixed.body.data.fields.map((field: { name: string }) => field.name),
      ['user'],
    );
    const auth = await get('/fields', { source: 'auth' });
    const names = auth.body.data.fields.map((field: { name: string }) => field.name);
    assert.ok(names.includes('user') && names.includes('status'), names.join());
    assert.ok(!names.includes('region'), `region is only sent from web: ${names.join()}`);
    const before = await get('/fields', { from: '2000-01-01T00:00:00Z', to: '2000-01-02T00:00:00Z' });
    assert.deepEqual(before.body.data.fields, [], 'no event before the data');
  });

  it('GET /fields/{name}/values counts the values exactly, with their share', async () => {
    const status = await get('/fields/status/values', { limit: '3' });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.body.data, expectedValues(EVENTS, 'status', 'integer', 3));
    assert.equal(status.body.meta.from, '1970-01-01T00:00:00.000Z');
    assert.ok(Date.parse(status.body.meta.to) <= Date.now());
    const user = await get('/fields/user/values');
    assert.deepEqual(user.body.data, expectedValues(EVENTS, 'user', 'string', 10), 'the default limit is 10');
    const from = new Date((BASE_S + 600) * 1000).toISOString();
    const to = new Date((BASE_S + 1200) * 1000).toISOString();
    const ranged = await get('/fields/source/values', { from, to, limit: '100' });
    const inRange = EVENTS.filter((event) => event.time >= BASE_S + 600 && event.time < BASE_S + 1200);
    assert.deepEqual(ranged.body.data, expectedValues(inRange, 'source', 'string', 100));
    assert.deepEqual([ranged.body.meta.from, ranged.body.meta.to], [from, to]);
    const unknown = await get('/fields/nosuchfield/values');
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.body.data, { field: 'nosuchfield', type: 'string', values: [], unique_count: 0, total_count: 0 });
  });

  it('GET /sources tells each source its events, first and last event, rate and stored bytes', async () => {
    const answer = await get('/sources');
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(sourcesWithoutBytes(answer.body.data.sources), expectedSources(EVENTS));
  });

  it('refuses bad parameters with the error envelope', async () => {
    assertError(await get('/fields', { from: 'yesterday-ish' }), 400, 'VALIDATION_ERROR', 'from');
    assertError(await get('/fields', { from: '-1h', to: '-2h' }), 400, 'VALIDATION_ERROR', 'from after to');
    assertError(await get('/fields', { nope: '1' }), 400, 'VALIDATION_ERROR', 'unknown parameter');
    assertError(await get('/sources', { to: 'soon' }), 400, 'VALIDATION_ERROR', 'sources to');
    for (const limit of ['0', '101', 'ten']) {
      assertError(await get('/fields/status/values', { limit }), 400, 'VALIDATION_ERROR', `limit ${limit}`);
    }
    assertError(await get('/fields/a%60b/values'), 400, 'VALIDATION_ERROR', 'a backtick in the name');
  });
});
