/**
 * The Elasticsearch endpoints shippers call before or after writing (cluster health, `_cat/health`,
 * `_refresh`, templates, lifecycle policies, index creation, licence, `HEAD /`), answered as no-ops in
 * Elasticsearch 8's shapes, and Elasticsearch's error shape on every error of the compatible paths.
 */
import { strict as assert } from 'assert';
import { assertElasticError, dispose, gzip, post, type Answer } from '../helpers/api';
import { request, TestServer } from '../helpers/server';

const JSON_CT = { 'content-type': 'application/json' };

function assertElastic(answer: Answer, what: string): void {
  assert.equal(answer.headers.get('x-elastic-product'), 'Elasticsearch', `${what}: x-elastic-product`);
}

describe('api: Elasticsearch endpoints around writing', function () {
  let server: TestServer;
  let es: string;

  before(async () => {
    server = await TestServer.start();
    es = `${server.api}/es`;
  });

  after(async () => {
    await dispose(server);
  });

  it('GET /_cluster/health (and /_cluster/health/{index}): one green node at once, whatever it waits for', async () => {
    const handshake = await request(`${es}/`);
    for (const path of [
      '/_cluster/health',
      '/_cluster/health?wait_for_status=yellow&timeout=30s&wait_for_nodes=%3E%3D1',
      '/_cluster/health/logs-2024.06.01',
    ]) {
      const answer = await request(`${es}${path}`);
      assert.equal(answer.status, 200, `${path}: ${answer.text}`);
      assertElastic(answer, path);
      assert.equal(answer.body.cluster_name, handshake.body.cluster_name, path);
      assert.equal(answer.body.status, 'green', path);
      assert.equal(answer.body.timed_out, false, path);
      assert.equal(answer.body.number_of_nodes, 1, path);
      assert.equal(answer.body.number_of_data_nodes, 1, path);
      assert.equal(answer.body.unassigned_shards, 0, path);
      assert.equal(answer.body.active_shards_percent_as_number, 100, path);
    }
  });

  it('GET /_cat/health: a text line by default, a header with ?v, an array of text values with ?format=json', async () => {
    const columns = [
      'epoch',
      'timestamp',
      'cluster',
      'status',
      'node.total',
      'node.data',
      'shards',
      'pri',
      'relo',
      'init',
      'unassign',
      'unassign.pri',
      'pending_tasks',
      'max_task_wait_time',
      'active_shards_percent',
    ];
    const text = await request(`${es}/_cat/health`);
    assert.equal(text.status, 200, text.text);
    assertElastic(text, '_cat/health');
    assert.match(text.headers.get('content-type') ?? '', /^text\/plain/);
    const lines = text.text.split('\n');
    assert.deepEqual(lines.slice(1), [''], 'one line and its newline');
    const cells = lines[0]!.split(/ +/);
    assert.equal(cells.length, columns.length, text.text);
    assert.equal(cells[3], 'green');
    assert.ok(Math.abs(Number(cells[0]) - Date.now() / 1000) < 60, `epoch ${cells[0]}`);

    const verbose = await request(`${es}/_cat/health?v`);
    assert.deepEqual(verbose.text.split('\n')[0]!.split(/ +/), columns);

    const json = await request(`${es}/_cat/health?format=json`);
    assert.equal(json.status, 200, json.text);
    assert.ok(Array.isArray(json.body) && json.body.length === 1, json.text);
    assert.deepEqual(Object.keys(json.body[0]), columns);
    assert.equal(json.body[0].status, 'green');
    assert.equal(json.body[0]['node.total'], '1');

    assertElasticError(await request(`${es}/_cat/health?format=yaml`), 400, 'INVALID_REQUEST', 'format=yaml');
  });

  it('_refresh: POST and GET, on all indexes and on one, answer the shards object', async () => {
    for (const [method, path] of [
      ['POST', '/_refresh'],
      ['GET', '/_refresh'],
      ['POST', '/logs-x/_refresh'],
      ['GET', '/_all/_refresh'],
    ] as const) {
      const answer = await request(`${es}${path}`, { method });
      assert.equal(answer.status, 200, `${method} ${path}: ${answer.text}`);
      assertElastic(answer, path);
      assert.deepEqual(answer.body, { _shards: { total: 1, successful: 1, failed: 0 } }, `${method} ${path}`);
    }
  });

  it('templates and lifecycle policies: creation is acknowledged, a lookup answers 404 as for one never created', async () => {
    const body = JSON.stringify({ index_patterns: ['logs-*'], template: { settings: { number_of_shards: 1 } }, priority: 200 });
    for (const kind of ['_index_template', '_template', '_component_template', '_ilm/policy']) {
      for (const method of ['PUT', 'POST']) {
        const created = await request(`${es}/${kind}/template_logs?create=true`, { method, body, headers: JSON_CT });
        assert.equal(created.status, 200, `${method} ${kind}: ${created.text}`);
        assertElastic(created, kind);
        assert.deepEqual(created.body, { acknowledged: true }, `${method} ${kind}`);
      }
      const head = await request(`${es}/${kind}/template_logs`, { method: 'HEAD' });
      assert.equal(head.status, 404, `HEAD ${kind}`);
      assert.equal(head.text, '', `HEAD ${kind} has no body`);
      const get = await request(`${es}/${kind}/template_logs`);
      assertElasticError(get, 404, 'NOT_FOUND', `GET ${kind}`);
      assert.equal(get.body.error.type, 'resource_not_found_exception');
      assert.match(get.body.error.reason, /template_logs/);
      const bad = await request(`${es}/${kind}/t`, { method: 'PUT', body: '{"index_patterns":', headers: JSON_CT });
      assertElasticError(bad, 400, 'INVALID_JSON', `PUT ${kind} with a broken body`);
      assert.equal(bad.body.error.type, 'parse_exception');
    }
  });

  it('PUT /{index} is acknowledged (date-math names too); HEAD and GET answer 404; invalid names answer 400', async () => {
    const created = await request(`${es}/app-logs`, {
      method: 'PUT',
      body: JSON.stringify({ settings: { number_of_replicas: 0 } }),
      headers: JSON_CT,
    });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(created.body, { acknowledged: true, shards_acknowledged: true, index: 'app-logs' });
    const noBody = await request(`${es}/other-logs`, { method: 'PUT' });
    assert.deepEqual(noBody.body, { acknowledged: true, shards_acknowledged: true, index: 'other-logs' });
    const dateMath = '<logstash-{now/d}-000001>';
    const rollover = await request(`${es}/${encodeURIComponent(dateMath)}`, {
      method: 'PUT',
      body: '{"aliases":{"logstash":{"is_write_index":true}}}',
      headers: JSON_CT,
    });
    assert.equal(rollover.status, 200, rollover.text);
    assert.equal(rollover.body.index, dateMath);

    const head = await request(`${es}/app-logs`, { method: 'HEAD' });
    assert.equal(head.status, 404);
    const get = await request(`${es}/app-logs`);
    assertElasticError(get, 404, 'NOT_FOUND', 'GET /{index}');
    assert.equal(get.body.error.type, 'index_not_found_exception');

    for (const name of ['App-Logs', '_private', '-dash', 'a*b', 'a,b', 'a b']) {
      const answer = await request(`${es}/${encodeURIComponent(name)}`, { method: 'PUT' });
      assertElasticError(answer, 400, 'INVALID_REQUEST', `PUT /${name}`);
      assert.equal(answer.body.error.type, 'invalid_index_name_exception');
    }
  });

  it("HEAD / answers 200 without a body (the clients' ping)", async () => {
    const answer = await request(`${es}/`, { method: 'HEAD' });
    assert.equal(answer.status, 200);
    assert.equal(answer.text, '');
    assertElastic(answer, 'HEAD /');
  });

  it('GET /_license and /_xpack: an active basic licence, lifecycle management available', async () => {
    const license = await request(`${es}/_license`);
    assert.equal(license.status, 200, license.text);
    assert.equal(license.body.license.status, 'active');
    assert.equal(license.body.license.type, 'basic');
    const xpack = await request(`${es}/_xpack`);
    assert.equal(xpack.status, 200, xpack.text);
    assert.equal(xpack.body.license.status, 'active');
    assert.deepEqual(xpack.body.features.ilm, { available: true, enabled: true });
  });

  it('errors on the compatible paths carry type, reason and status beside code and message; other paths keep the plain envelope', async () => {
    const cases: [string, Promise<Answer>, number, string, string][] = [
      [
        'unknown endpoint',
        request(`${es}/logs/_search`, { method: 'POST', body: '{}', headers: JSON_CT }),
        404,
        'NOT_FOUND',
        'resource_not_found_exception',
      ],
      ['unknown nested endpoint', request(`${es}/_nodes/http`), 404, 'NOT_FOUND', 'resource_not_found_exception'],
      ['_doc invalid JSON', post(`${es}/idx/_doc`, '{"broken":', JSON_CT), 400, 'INVALID_JSON', 'parse_exception'],
      [
        '_bulk corrupt gzip',
        post(`${es}/_bulk`, Buffer.from('not gzip'), { 'content-encoding': 'gzip' }),
        400,
        'INVALID_REQUEST',
        'illegal_argument_exception',
      ],
      [
        '/ingest/bulk corrupt gzip',
        post(`${server.api}/ingest/bulk`, Buffer.from('not gzip'), { 'content-encoding': 'gzip' }),
        400,
        'INVALID_REQUEST',
        'illegal_argument_exception',
      ],
    ];
    for (const [what, pending, status, code, type] of cases) {
      const answer = await pending;
      assertElasticError(answer, status, code, what);
      assert.equal(answer.body.error.type, type, what);
      assertElastic(answer, what);
    }
    const gzipped = await post(`${es}/_bulk`, gzip('{"index":{"_index":"gz"}}\n{"message":"fine"}\n'), {
      'content-type': 'application/x-ndjson',
      'content-encoding': 'gzip',
    });
    assert.equal(gzipped.status, 200, 'a good body is no error');
    assert.equal(gzipped.body.status, undefined, 'a success carries no top-level status');

    const plain = await request(`${server.api}/no-such-endpoint`);
    assert.equal(plain.status, 404);
    assert.deepEqual(Object.keys(plain.body), ['error']);
    assert.deepEqual(Object.keys(plain.body.error).sort(), ['code', 'message']);
  });
});
