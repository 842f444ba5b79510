/**
 * Dashboards against the real server: create, list (the list form), read, replace, delete; panel
 * defaults; the checks on the way in, each naming the field by its path; variables substituted into
 * a panel query when it runs; persistence across a kill.
 */
import { strict as assert } from 'assert';
import { assertError, dispose, type Answer } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function putJson(url: string, value: unknown): Promise<Answer> {
  return request(url, { method: 'PUT', body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });
}

const ERRORS_PANEL = {
  id: 'errors',
  title: 'Errors by host',
  type: 'bar',
  q: 'from main | where level = "error" | stats count() by host',
  position: { x: 0, y: 0, w: 6, h: 4 },
};
const HOST_PANEL = {
  id: 'host',
  title: 'One host',
  type: 'table',
  q: 'from main | where host = $host | head 10',
  from: '-24h',
  position: { x: 6, y: 0, w: 6, h: 4 },
};
const HOST_VARIABLE = { name: 'host', type: 'field_values', field: 'host', default: 'web-1', label: 'Host' };

function board(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Web', panels: [ERRORS_PANEL, HOST_PANEL], variables: [HOST_VARIABLE], ...overrides };
}

describe('api: dashboards', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  let api: string;

  beforeEach(async () => {
    server = await TestServer.start({ set: { 'query.max_query_length': 300 } });
    api = server.api;
  });

  afterEach(async () => {
    await dispose(server);
    server = undefined;
  });

  it('creates, lists in the list form, reads, replaces and deletes a dashboard', async () => {
    const created = await postJson(`${api}/dashboards`, board());
    assert.equal(created.status, 201, created.text);
    const dashboard = created.body.data;
    assert.match(dashboard.id, /^dsh_[A-Za-z0-9_-]+$/);
    assert.match(dashboard.created_at, ISO_UTC);
    assert.equal(dashboard.updated_at, dashboard.created_at);
    assert.deepEqual(
      dashboard,
      {
        id: dashboard.id,
        name: 'Web',
        panels: [{ ...ERRORS_PANEL, from: '-1h' }, HOST_PANEL],
        variables: [HOST_VARIABLE],
        created_at: dashboard.created_at,
        updated_at: dashboard.updated_at,
      },
      'a panel without from starts an hour back',
    );

    const list = await request(`${api}/dashboards`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, {
      data: {
        dashboards: [
          { id: dashboard.id, name: 'Web', created_at: dashboard.created_at, updated_at: dashboard.updated_at, panels_count: 2 },
        ],
      },
    });
    assert.deepEqual((await request(`${api}/dashboards/${dashboard.id}`)).body, { data: dashboard });

    const replaced = await putJson(`${api}/dashboards/${dashboard.id}`, { name: 'Web only', panels: [ERRORS_PANEL] });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(
      Object.keys(replaced.body.data).sort(),
      ['created_at', 'id', 'name', 'panels', 'updated_at'],
      'variables left out are gone',
    );
    assert.equal(replaced.body.data.created_at, dashboard.created_at);
    assert.ok(replaced.body.data.updated_at > dashboard.updated_at);
    assert.equal((await request(`${api}/dashboards`)).body.data.dashboards[0].panels_count, 1);

    assert.equal((await request(`${api}/dashboards/${dashboard.id}`, { method: 'DELETE' })).status, 204);
    assert.deepEqual((await request(`${api}/dashboards`)).body, { data: { dashboards: [] } });
    assertError(await request(`${api}/dashboards/${dashboard.id}`), 404, 'NOT_FOUND', 'deleted');
    assertError(await putJson(`${api}/dashboards/${dashboard.id}`, board()), 404, 'NOT_FOUND', 'PUT of a deleted id');
    assertError(await request(`${api}/dashboards/${dashboard.id}`, { method: 'DELETE' }), 404, 'NOT_FOUND', 'DELETE of a deleted id');
  });

  it('refuses a bad dashboard with 400 VALIDATION_ERROR naming the field by its path', async () => {
    const panel = (changes: Record<string, unknown>) => board({ panels: [ERRORS_PANEL, { ...HOST_PANEL, ...changes }] });
    const position = (changes: Record<string, unknown>) => panel({ position: { ...HOST_PANEL.position, ...changes } });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ panels: [ERRORS_PANEL] }, /^name is required$/],
      [{ name: 'x' }, /^panels is required$/],
      [board({ owner: 'me' }), /owner is not accepted/],
      [panel({ type: 'gauge' }), /^panels\[1\]\.type must be one of timechart, table, bar, line, area, stat, pie$/],
      [panel({ id: 'errors' }), /^panels\[1\]\.id "errors" is used by another panel/],
      [panel({ title: undefined }), /^panels\[1\]\.title is required$/],
      [panel({ q: 'from main | wher x' }), /^panels\[1\]\.q: /],
      [panel({ q: 'from main | where host = $hots' }), /^panels\[1\]\.q uses \$hots, which no entry of variables declares$/],
      [panel({ from: 'yesterday-ish' }), /^panels\[1\]\.from: /],
      [panel({ position: undefined }), /^panels\[1\]\.position is required$/],
      [position({ x: 12 }), /^panels\[1\]\.position\.x must be an integer from 0 to 11$/],
      [position({ x: -1 }), /^panels\[1\]\.position\.x must be an integer from 0 to 11$/],
      [position({ w: 0 }), /^panels\[1\]\.position\.w must be an integer from 1 to 12$/],
      [position({ w: 13 }), /^panels\[1\]\.position\.w must be an integer from 1 to 12$/],
      [position({ y: -1 }), /^panels\[1\]\.position\.y must be an integer >= 0$/],
      [position({ h: 1.5 }), /^panels\[1\]\.position\.h must be an integer >= 0$/],
      [board({ variables: [{ ...HOST_VARIABLE, type: 'query' }] }), /^variables\[0\]\.type must be one of field_values, custom$/],
      [board({ variables: [{ ...HOST_VARIABLE, field: undefined }] }), /^variables\[0\]\.field is required$/],
      [board({ variables: [HOST_VARIABLE, HOST_VARIABLE] }), /^variables\[1\]\.name "host" is declared twice$/],
      [panel({ q: `from main | where host = $host | ${'head 1 | '.repeat(40)}head 1` }), /query\.max_query_length is 300/],
    ];
    for (const [body, message] of cases) {
      const answer = await postJson(`${api}/dashboards`, body);
      assertError(answer, 400, 'VALIDATION_ERROR', JSON.stringify(body).slice(0, 120));
      assert.match(answer.body.error.message, message);
    }
    const created = await postJson(`${api}/dashboards`, board());
    assert.equal(created.status, 201);
    const refusedPut = await putJson(`${api}/dashboards/${created.body.data.id}`, position({ x: 12 }));
    assertError(refusedPut, 400, 'VALIDATION_ERROR', 'PUT');
    assertError(await postJson(`${api}/dashboards`, board({ id: 'dsh_mine' })), 400, 'VALIDATION_ERROR', 'id is set by the server');
    assert.equal((await request(`${api}/dashboards`)).body.data.dashboards.length, 1, 'nothing refused was kept');
  });

  it('accepts a custom variable with its own values, and runs a panel query with the chosen value', async () => {
    const custom = { name: 'host', type: 'custom', field: 'host', values: ['web-1', 'web-2'], default: 'web-2' };
    const created = await postJson(`${api}/dashboards`, board({ variables: [custom] }));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.data.variables, [custom]);

    const now = Math.floor(Date.now() / 1000);
    const events = [
      { event: 'a', host: 'web-1', time: now },
      { event: 'b', host: 'web-2', time: now },
      { event: 'c', host: 'web-2', time: now },
    ];
    assert.equal((await postJson(`${api}/ingest`, events)).status, 200);
    const hostPanel = created.body.data.panels[1];
    const run = await postJson(`${api}/query`, { q: hostPanel.q, from: hostPanel.from, variables: { host: 'web-2' } });
    assert.equal(run.status, 200, run.text);
    assert.deepEqual(run.body.data.events.map((event: { _raw: string }) => event._raw).sort(), ['b', 'c']);
  });

  it('keeps dashboards across a kill of the server', async () => {
    const a = (await postJson(`${api}/dashboards`, board())).body.data;
    const b = (await postJson(`${api}/dashboards`, board({ name: 'Second', variables: undefined, panels: [ERRORS_PANEL] }))).body.data;
    const dataDir = server!.dataDir;
    await server!.kill();
    server = await TestServer.start({ dataDir });
    assert.deepEqual((await request(`${server.api}/dashboards/${a.id}`)).body.data, a);
    assert.deepEqual(
      (await request(`${server.api}/dashboards`)).body.data.dashboards.map((item: { id: string }) => item.id),
      [a.id, b.id],
    );
  });
});
