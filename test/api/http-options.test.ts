import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import fs from 'fs';
import https from 'https';
import path from 'path';
import { waitUntil } from '../helpers/api';
import { postJson, request, tempDir, TestServer } from '../helpers/server';

describe('HTTP options: rate limit, CORS, TLS', () => {
  it('answers 429 RATE_LIMITED past ingest.rate_limit events/s per client, and stores only accepted batches', async () => {
    // 10 events/s: the bucket holds 10, so a second batch of 10 right after the first must wait a second.
    const server = await TestServer.start({ set: { 'ingest.rate_limit': 10 } });
    try {
      const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ event: `limited ${i}` }));
      assert.equal((await postJson(`${server.api}/ingest`, batch(10))).status, 200);
      const refused = await postJson(`${server.api}/ingest`, batch(10));
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, 'RATE_LIMITED');
      // The bucket is empty: 10 events take a second to come back.
      assert.equal(refused.headers.get('retry-after'), '1');
      const tooBig = await postJson(`${server.api}/ingest`, batch(50));
      assert.equal(tooBig.status, 429);
      // 50 events at 10 a second: at least 4 seconds however full the bucket is.
      assert.ok(Number(tooBig.headers.get('retry-after')) >= 4, `Retry-After ${tooBig.headers.get('retry-after')}`);
      assert.match(tooBig.body.error.message, /smaller batches/);
      // The bucket refills at 10 events a second: a batch of 10 passes again within about a second.
      const refusedAt = Date.now();
      await waitUntil(async () => (await postJson(`${server.api}/ingest`, batch(10))).status === 200, 5_000, 'the bucket to refill');
      assert.ok(Date.now() - refusedAt >= 500, `refilled after ${Date.now() - refusedAt} ms`);
      const stats = (await request(`${server.api}/stats`)).body.data;
      assert.equal(stats.total_events, 20);
    } finally {
      await server.stop();
    }
  });

  it('sends CORS headers only for configured origins', async () => {
    const server = await TestServer.start({ set: { 'http.cors_origins': 'https://ui.example.com' } });
    try {
      const allowed = await request(`${server.api}/stats`, { headers: { origin: 'https://ui.example.com' } });
      assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://ui.example.com');
      const other = await request(`${server.api}/stats`, { headers: { origin: 'https://evil.example.com' } });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
      const preflight = await request(`${server.api}/ingest`, {
        method: 'OPTIONS',
        headers: { origin: 'https://ui.example.com', 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.status, 204);
    } finally {
      await server.stop();
    }
  });

  it('serves HTTPS with tls.enabled and the configured certificate', async () => {
    const dir = tempDir('trawl-tls-');
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
      {
        stdio: 'ignore',
      },
    );
    const server = await TestServer.start({ set: { 'tls.enabled': true, 'tls.cert_file': cert, 'tls.key_file': key } });
    try {
      assert.match(server.log, /trawl listening on https:\/\//);
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get(
            { host: '127.0.0.1', port: server.port, path: '/health', ca: fs.readFileSync(cert), rejectUnauthorized: false },
            (response) => {
              let text = '';
              response.on('data', (chunk: Buffer) => (text += chunk.toString()));
              response.on('end', () => resolve(text));
            },
          )
          .on('error', reject);
      });
      assert.equal(JSON.parse(body).data.status, 'healthy');
    } finally {
      await server.stop();
    }
  });
});
