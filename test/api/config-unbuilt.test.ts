/**
 * Keys of features this version does not have (cluster roles, the empty
 * sections) are refused with a reason by every config source: the start (exit 1), PATCH /config
 * (400) and SIGHUP (the running config is kept), unless they hold their defaults.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import path from 'path';
import { assertError, dispose, waitUntil } from '../helpers/api';
import { request, runServerToExit, tempDir, TestServer } from '../helpers/server';

const NOT_AVAILABLE = /not available in this version; remove the key/;

function configFile(text: string): string {
  const file = path.join(tempDir('trawl-config-'), 'trawl.yaml');
  fs.writeFileSync(file, text);
  return file;
}

const patch = (server: TestServer, body: unknown) =>
  request(`${server.api}/config`, { method: 'PATCH', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

/** Replaces the file whole at once (a temp file renamed over it), so a reload never reads it half written. */
function replaceFile(file: string, text: string): void {
  fs.writeFileSync(`${file}.tmp`, text);
  fs.renameSync(`${file}.tmp`, file);
}

describe('api: config keys of features this version lacks', function () {
  this.timeout(60_000);

  it('the start fails with exit code 1 and names the key, the reason and the remedy on stderr', async () => {
    const cases: [string, string[], Record<string, string>, string][] = [
      ['env cluster.role', [], { TRAWL_CLUSTER_ROLE: 'shard' }, 'cluster.role'],
      ['--set cluster.role', ['--set', 'cluster.role=coordinator'], {}, 'cluster.role'],
      ['file cluster.role', ['--config', configFile('cluster:\n  role: shard\n')], {}, 'cluster.role'],
      ['file views', ['--config', configFile('views:\n  errors_by_host:\n    query: from main\n')], {}, 'views.errors_by_host'],
      ['file profiles (empty value)', ['--config', configFile('profiles:\n  slow: 4\n')], {}, 'profiles.slow'],
      ['file profiles', ['--config', configFile('profiles:\n  fast: {}\n')], {}, 'profiles.fast'],
    ];
    const runs = await Promise.all(cases.map(([, args, env]) => runServerToExit(args, env)));
    assert.equal(runs.length, cases.length);
    runs.forEach(({ code, stdout, stderr }, i) => {
      const [tag, , , key] = cases[i]!;
      assert.equal(code, 1, `${tag}: exit code\n${stdout}${stderr}`);
      assert.ok(stderr.includes(key), `${tag}: stderr names ${key}:\n${stderr}`);
      assert.match(stderr, NOT_AVAILABLE, tag);
      assert.doesNotMatch(stdout + stderr, /trawl listening/, tag);
    });
    const env = runs[0]!.stderr;
    assert.match(env, /TRAWL_CLUSTER_ROLE/, 'an environment variable is named as the source');
    assert.match(env, /or set it to its default \("all"\)/, 'the default is offered');
  });

  describe('defaults written out explicitly', () => {
    let server: TestServer;

    before(async () => {
      const file = configFile(
        [
          'tail:',
          '  heartbeat_interval: 15000ms', // the default, in other units
          '  max_sessions: 100',
          '  max_session_duration: 1d',
          'auth:',
          '  enabled: false',
          '  root_token: null',
          'alerts:',
          '  min_interval: 10s',
          '  max_concurrent_checks: 10',
          '  send_timeout: 10s',
          '  chat_bot_api: null',
          'cluster:',
          '  node_id: node-a', // in use on one node
          '  grpc_listen: 127.0.0.1:7999',
          '  seeds: []',
          '  role: all',
          '  replication_factor: 1',
          '  partitions: 16',
          '  bucket_span: 2h',
          '  heartbeat_interval: 1s',
          '  failure_timeout: 5s',
          'server: {}',
          'views: {}',
          'profiles: {}',
          '',
        ].join('\n'),
      );
      server = await TestServer.start({ args: ['--config', file], env: { TRAWL_AUTH_ENABLED: 'false' } });
    });

    after(async () => {
      await dispose(server);
    });

    it('start, and GET /config shows them', async () => {
      const config = (await request(`${server.api}/config`)).body.data;
      assert.equal(config.auth.enabled, false);
      assert.equal(config.tail.heartbeat_interval, '15000ms');
      assert.equal(config.cluster.node_id, 'node-a');
      assert.equal(config.cluster.grpc_listen, '127.0.0.1:7999');
      assert.equal(config.cluster.bucket_span, '2h');
      assert.deepEqual(config.cluster.seeds, []);
    });

    it('PATCH /config refuses such a key with 400 VALIDATION_ERROR naming it, and changes nothing', async () => {
      const before = (await request(`${server.api}/config`)).body.data;
      const cases: [unknown, string][] = [
        [{ query: { max_concurrent: 3 }, cluster: { role: 'shard' } }, 'cluster.role'],
        [{ views: { recent: {} } }, 'views.recent'],
      ];
      for (const [body, key] of cases) {
        const answer = await patch(server, body);
        assertError(answer, 400, 'VALIDATION_ERROR', JSON.stringify(body));
        assert.ok(answer.body.error.message.includes(key), `names ${key}: ${answer.body.error.message}`);
        assert.match(answer.body.error.message, NOT_AVAILABLE);
      }
      assert.deepEqual((await request(`${server.api}/config`)).body.data, before, 'a refused patch changes nothing');
    });
  });

  describe('SIGHUP', () => {
    let server: TestServer;
    let file: string;

    before(async () => {
      file = configFile('ingest:\n  max_body_size: 1kb\n');
      server = await TestServer.start({ args: ['--config', file] });
    });

    after(async () => {
      await dispose(server);
    });

    it('a reloaded file with such a key fails the reload, logs why and keeps the running config', async () => {
      const before = (await request(`${server.api}/config`)).body.data;
      assert.equal(before.ingest.max_body_size, '1kb');
      replaceFile(file, 'ingest:\n  max_body_size: 8kb\ncluster:\n  role: shard\n');
      server.process.kill('SIGHUP');
      await server.waitFor(
        /config reload failed, keeping the running config: [^\n]*cluster\.role = "shard": cluster mode is not available in this version/,
        10_000,
      );
      assert.deepEqual((await request(`${server.api}/config`)).body.data, before);
      // The same file without the key reloads.
      replaceFile(file, 'ingest:\n  max_body_size: 8kb\n');
      server.process.kill('SIGHUP');
      await waitUntil(async () => (await request(`${server.api}/config`)).body.data.ingest.max_body_size === '8kb', 10_000, 'the reload');
    });
  });
});
