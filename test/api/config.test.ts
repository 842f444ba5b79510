/**
 * Config sources and their precedence (defaults < YAML file < TRAWL_* env < flags), validation at
 * startup, SIGHUP reload of the file, PATCH /config, and a clean SIGTERM exit.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import path from 'path';
import { assertError, dispose, post, waitUntil } from '../helpers/api';
import { request, runServerToExit, tempDir as makeTempDir, TestServer, type ExitedServer } from '../helpers/server';

/** Temp dirs made here (config files, data dirs of failed starts), removed after the file. */
const made: string[] = [];
function tempDir(prefix?: string): string {
  const dir = makeTempDir(prefix);
  made.push(dir);
  return dir;
}

/** Writes the file whole at once (a temp file renamed over it), so a reload never reads it half written. */
function writeConfig(file: string, text: string): void {
  fs.writeFileSync(`${file}.tmp`, text);
  fs.renameSync(`${file}.tmp`, file);
}

function body(bytes: number): string {
  // A native batch of about `bytes` bytes.
  const pad = Math.max(0, bytes - '[{"event":""}]'.length);
  return JSON.stringify([{ event: 'x'.repeat(pad) }]);
}

const SECTIONS = [
  'listen',
  'data_dir',
  'retention',
  'log_level',
  'storage',
  'query',
  'ingest',
  'http',
  'tail',
  'tls',
  'auth',
  'views',
  'server',
  'buffer_manager',
  'cluster',
  'profiles',
];

describe('api: config', function () {
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('precedence: defaults < file < env < flags, and PATCH /config', () => {
    let server: TestServer;
    let dir: string;

    before(async () => {
      dir = tempDir('trawl-config-');
      writeConfig(
        path.join(dir, 'trawl.yaml'),
        [
          'listen: "127.0.0.1:1"', // the --listen flag wins
          'data_dir: /nonexistent/trawl-data', // the --data-dir flag wins
          'retention: 3d', // TRAWL_RETENTION wins
          'log_level: warn',
          'storage:',
          '  compaction_interval: 45s',
          'ingest:',
          '  max_body_size: 1kb',
          'query:',
          '  max_concurrent: 3',
          '  job_ttl: 2m',
          '',
        ].join('\n'),
      );
      server = await TestServer.start({
        args: ['--config', path.join(dir, 'trawl.yaml')],
        env: { TRAWL_INGEST_MAX_BODY_SIZE: '2kb', TRAWL_QUERY_MAX_CONCURRENT: '4', TRAWL_QUERY_SYNC_TIMEOUT: '45s', TRAWL_RETENTION: '5d' },
        set: { 'ingest.max_body_size': '3kb', 'query.default_result_limit': 500 },
      });
    });

    after(async () => {
      await dispose(server);
    });

    it('GET /config shows each key from the strongest source that sets it', async () => {
      const answer = await request(`${server.api}/config`);
      assert.equal(answer.status, 200, answer.text);
      const config = answer.body.data;
      for (const key of SECTIONS) assert.ok(key in config, `snapshot has ${key}`);
      assert.equal(config.listen, `127.0.0.1:${server.port}`, 'flag over file');
      assert.equal(config.data_dir, server.dataDir, 'flag over file');
      assert.equal(config.ingest.max_body_size, '3kb', 'flag over env over file');
      assert.equal(config.query.max_concurrent, 4, 'env over file');
      assert.equal(config.query.sync_timeout, '45s', 'env over default');
      assert.equal(config.query.default_result_limit, 500, 'flag over default');
      assert.equal(config.retention, '5d', 'env over file (top-level key)');
      assert.equal(config.storage.compaction_interval, '45s', 'file over default');
      assert.equal(config.log_level, 'warn', 'file over default');
      assert.equal(config.query.job_ttl, '2m', 'file over default');
      assert.equal(config.query.max_result_limit, 50000, 'default');
      assert.equal(config.storage.flush_interval, '1s', 'default');
      assert.equal(config.ingest.max_buffered_events, 2000000, 'default');
    });

    it("the effective body limit is the flag's 3kb", async () => {
      const ok = await post(`${server.api}/ingest`, body(2500), { 'content-type': 'application/json' });
      assert.deepEqual(ok.body, { data: { accepted: 1, failed: 0 } });
      assertError(await post(`${server.api}/ingest`, body(3500), { 'content-type': 'application/json' }), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('PATCH /config applies query.max_query_runtime', async () => {
      const answer = await request(`${server.api}/config`, {
        method: 'PATCH',
        body: JSON.stringify({ query: { max_query_runtime: '2m' } }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.data.config.query.max_query_runtime, '2m');
      assert.deepEqual(answer.body.data.restart_required, []);
      const after = await request(`${server.api}/config`);
      assert.equal(after.body.data.query.max_query_runtime, '2m');
      assert.equal(after.body.data.query.max_concurrent, 4, 'other keys of the section kept');
    });

    it('PATCH /config applies a live ingest limit at once', async () => {
      const answer = await request(`${server.api}/config`, {
        method: 'PATCH',
        body: JSON.stringify({ ingest: { max_body_size: '10kb' } }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(answer.status, 200, answer.text);
      const ok = await post(`${server.api}/ingest`, body(5000), { 'content-type': 'application/json' });
      assert.deepEqual(ok.body, { data: { accepted: 1, failed: 0 } });
    });

    it('PATCH /config refuses an ingest.max_body_size under 1kb, and the next patch undoes a tiny one whatever its size', async () => {
      const patchConfig = (text: string) =>
        request(`${server.api}/config`, { method: 'PATCH', body: text, headers: { 'content-type': 'application/json' } });
      for (const size of [0, '0', '512b']) {
        const refused = await patchConfig(JSON.stringify({ ingest: { max_body_size: size } }));
        assertError(refused, 400, 'VALIDATION_ERROR', `max_body_size ${JSON.stringify(size)}`);
        assert.match(refused.body.error.message, /ingest\.max_body_size must be at least 1kb/);
      }
      assert.equal((await request(`${server.api}/config`)).body.data.ingest.max_body_size, '10kb', 'a refused patch changes nothing');

      const tiny = await patchConfig(JSON.stringify({ ingest: { max_body_size: '1kb' } }));
      assert.equal(tiny.status, 200, tiny.text);
      assertError(await post(`${server.api}/ingest`, body(2000), { 'content-type': 'application/json' }), 413, 'PAYLOAD_TOO_LARGE');
      // Bigger than the new limit (JSON allows the padding): PATCH /config has a limit of its own.
      const undo = JSON.stringify({ ingest: { max_body_size: '10kb' } }) + ' '.repeat(4000);
      const undone = await patchConfig(undo);
      assert.equal(undone.status, 200, undone.text);
      const ok = await post(`${server.api}/ingest`, body(5000), { 'content-type': 'application/json' });
      assert.deepEqual(ok.body, { data: { accepted: 1, failed: 0 } });
      const huge = await patchConfig(JSON.stringify({ log_level: 'info' }) + ' '.repeat(70 * 1024));
      assertError(huge, 413, 'PAYLOAD_TOO_LARGE', 'past its own 64 KiB');
      assert.match(huge.body.error.message, /this endpoint's limit \(65536 bytes\)/);
    });

    it('PATCH /config rejects unknown or non-patchable top-level keys and invalid values with 400 VALIDATION_ERROR', async () => {
      const before = (await request(`${server.api}/config`)).body.data;
      for (const [patch, names] of [
        [{ bogus: 1 }, 'bogus'],
        [{ tls: { enabled: true } }, 'tls'],
        [{ query: { max_query_runtime: '1m' }, cluster: { seeds: ['a:1'] } }, 'cluster'],
        [{ query: { max_query_runtime: 'soon' } }, 'query.max_query_runtime'],
        [{ query: { no_such_key: 1 } }, 'query.no_such_key'],
      ] as [Record<string, unknown>, string][]) {
        const answer = await request(`${server.api}/config`, {
          method: 'PATCH',
          body: JSON.stringify(patch),
          headers: { 'content-type': 'application/json' },
        });
        assertError(answer, 400, 'VALIDATION_ERROR', JSON.stringify(patch));
        assert.ok(answer.body.error.message.includes(names), `message names ${names}: ${answer.body.error.message}`);
      }
      const after = (await request(`${server.api}/config`)).body.data;
      assert.deepEqual(after, before, 'a rejected patch changes nothing');
    });

    it('PATCH /config reports restart_required for listen and keeps serving', async () => {
      const answer = await request(`${server.api}/config`, {
        method: 'PATCH',
        body: JSON.stringify({ listen: '127.0.0.1:1' }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(answer.status, 200, answer.text);
      const required = answer.body.data.restart_required as unknown[];
      assert.ok(Array.isArray(required), answer.text);
      assert.equal(required.length, 1, answer.text);
      assert.ok(JSON.stringify(required[0]).includes('listen'), answer.text);
      const health = await request(`${server.url}/health`);
      assert.equal(health.status, 200);
    });

    it('SIGTERM exits 0', async () => {
      assert.equal(await server.stop(), 0, server.log);
    });
  });

  describe('SIGHUP reloads the file', () => {
    let server: TestServer;
    let file: string;

    before(async () => {
      file = path.join(tempDir('trawl-config-'), 'trawl.yaml');
      writeConfig(file, 'ingest:\n  max_body_size: 1kb\nquery:\n  max_concurrent: 2\n');
      server = await TestServer.start({ args: ['--config', file], set: { 'query.max_concurrent': 7 } });
    });

    after(async () => {
      await dispose(server);
    });

    const limit = async (): Promise<unknown> => (await request(`${server.api}/config`)).body.data.ingest.max_body_size;

    it('a new ingest.max_body_size in the file takes effect after SIGHUP; flags still win', async () => {
      assertError(
        await post(`${server.api}/ingest`, body(2000), { 'content-type': 'application/json' }),
        413,
        'PAYLOAD_TOO_LARGE',
        'before reload',
      );
      writeConfig(file, 'ingest:\n  max_body_size: 4kb\nquery:\n  max_concurrent: 3\n');
      server.process.kill('SIGHUP');
      await waitUntil(async () => (await limit()) === '4kb', 10_000, 'the reloaded limit');
      const ok = await post(`${server.api}/ingest`, body(2000), { 'content-type': 'application/json' });
      assert.deepEqual(ok.body, { data: { accepted: 1, failed: 0 } });
      assertError(
        await post(`${server.api}/ingest`, body(5000), { 'content-type': 'application/json' }),
        413,
        'PAYLOAD_TOO_LARGE',
        'after reload',
      );
      const config = (await request(`${server.api}/config`)).body.data;
      assert.equal(config.query.max_concurrent, 7, 'the --set flag still wins over the reloaded file');
    });

    it('an invalid file on SIGHUP keeps the running config and names the key', async () => {
      // A valid reload first, to a limit of its own, so that the running limit is known to be the file's.
      writeConfig(file, 'ingest:\n  max_body_size: 5kb\nquery:\n  max_concurrent: 3\n');
      server.process.kill('SIGHUP');
      await waitUntil(async () => (await limit()) === '5kb', 10_000, 'the reloaded limit');
      writeConfig(file, 'ingest:\n  max_body_size: lots\n');
      server.process.kill('SIGHUP');
      await server.waitFor(/reload failed[^\n]*ingest\.max_body_size/, 10_000);
      assert.equal(await limit(), '5kb');
      const ok = await post(`${server.api}/ingest`, body(2000), { 'content-type': 'application/json' });
      assert.equal(ok.status, 200);
    });

    it('PATCH /config log_level reaches the server log (silent: no more lines); SIGTERM exits 0', async () => {
      const answer = await request(`${server.api}/config`, {
        method: 'PATCH',
        body: JSON.stringify({ log_level: 'silent' }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal((await request(`${server.api}/config`)).body.data.log_level, 'silent');
      const offset = server.log.length;
      assert.equal(await server.stop(), 0, server.log);
      const after = server.log.slice(offset);
      assert.doesNotMatch(after, /\b(debug|info|warn|error)\b/, `logged after log_level=silent:\n${after}`);
    });
  });

  describe('invalid config at startup', () => {
    it('exits non-zero naming the key, for a flag, an env variable and the file', async () => {
      const dir = tempDir('trawl-config-');
      const badFile = path.join(dir, 'bad.yaml');
      writeConfig(badFile, 'query:\n  max_concurrent: -1\n');
      const unknownFile = path.join(dir, 'unknown.yaml');
      writeConfig(unknownFile, 'ingest:\n  bogus_key: 1\n');
      const cases: [string, Promise<ExitedServer>, string][] = [
        ['--set', runServerToExit(['--set', 'ingest.max_body_size=lots']), 'ingest.max_body_size'],
        ['env', runServerToExit([], { TRAWL_STORAGE_FLUSH_INTERVAL: 'soon' }), 'storage.flush_interval'],
        ['file', runServerToExit(['--config', badFile]), 'query.max_concurrent'],
        ['unknown key', runServerToExit(['--config', unknownFile]), 'ingest.bogus_key'],
        ['bad listen', runServerToExit(['--set', 'listen=nowhere']), 'listen'],
        [
          'block cache size',
          runServerToExit([], { TRAWL_BUFFER_MANAGER_BLOCK_CACHE_MAX_BYTES: 'plenty' }),
          'buffer_manager.block_cache_max_bytes',
        ],
      ];
      for (const [tag, pending, key] of cases) {
        const { code, output } = await pending;
        assert.ok(code !== 0 && code !== null, `${tag}: exit code ${code}\n${output}`);
        assert.ok(output.includes(key), `${tag}: output names ${key}:\n${output}`);
        assert.doesNotMatch(output, /trawl listening/, tag);
      }
    });
  });
});
