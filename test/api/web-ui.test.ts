/**
 * The web UI's files over HTTP from a real server: each script and style the page names is sent in
 * brotli or gzip to a client that accepts it (decompressing to the built file's bytes) and plain to
 * one that does not, keeping its caching rules, also under a proxy's path prefix; index.html is
 * sent plain, never cached. Needs the UI built (`npm run build:ui`, run by `npm install`).
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import http from 'http';
import path from 'path';
import zlib from 'zlib';
import { dispose } from '../helpers/api';
import { startPrefixProxy, type PrefixProxy } from '../helpers/prefix-proxy';
import { REPO_ROOT, TestServer } from '../helpers/server';

const ASSETS = path.join(REPO_ROOT, 'dist', 'ui', 'assets');

interface BytesAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET with exactly these headers (fetch would add its own Accept-Encoding and decode the body). */
function getBytes(url: string, headers: Record<string, string> = {}): Promise<BytesAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('api: web UI files, compressed', function () {
  this.timeout(30_000);
  let server: TestServer | undefined;
  let proxy: PrefixProxy | undefined;
  /** The page's script and style, as `./assets/NAME`. */
  let assets: string[];

  before(async () => {
    assert.ok(fs.existsSync(ASSETS), `the UI is built into ${ASSETS} (npm run build:ui)`);
    server = await TestServer.start();
    proxy = await startPrefixProxy(server.url);
    const page = await getBytes(`${server.url}/`);
    assert.equal(page.status, 200);
    assets = [...page.body.toString('utf8').matchAll(/(?:src|href)="(\.\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    assert.deepEqual(assets.map((asset) => path.extname(asset)).sort(), ['.css', '.js'], `the page names its script and style: ${assets}`);
  });

  after(async () => {
    await proxy?.close();
    await dispose(server);
  });

  /** The built file an asset URL names, as the build wrote it. */
  const built = (asset: string) => fs.readFileSync(path.join(ASSETS, path.basename(asset)));

  it('sends each asset plain to a client that accepts no encoding', async () => {
    for (const asset of assets) {
      const answer = await getBytes(`${server!.url}/${asset.slice(2)}`);
      assert.equal(answer.status, 200, asset);
      assert.equal(answer.headers['content-encoding'], undefined, `${asset} is not encoded`);
      assert.ok(answer.body.equals(built(asset)), `${asset}: the built file's bytes`);
      assert.match(answer.headers['cache-control'] ?? '', /immutable/);
      assert.match(answer.headers.vary ?? '', /accept-encoding/i, 'a shared cache keeps the encodings apart');
    }
  });

  it('sends brotli to a client that accepts it, decompressing to the plain bytes, with the same type and caching', async () => {
    for (const asset of assets) {
      const url = `${server!.url}/${asset.slice(2)}`;
      const [plain, brotli] = await Promise.all([getBytes(url), getBytes(url, { 'accept-encoding': 'br' })]);
      assert.equal(brotli.status, 200, asset);
      assert.equal(brotli.headers['content-encoding'], 'br', asset);
      assert.ok(brotli.body.length < plain.body.length / 2, `${asset}: ${brotli.body.length} bytes in brotli, ${plain.body.length} plain`);
      assert.ok(zlib.brotliDecompressSync(brotli.body).equals(plain.body), `${asset}: decompresses to the plain answer`);
      assert.equal(brotli.headers['content-type'], plain.headers['content-type']);
      assert.equal(brotli.headers['cache-control'], plain.headers['cache-control']);
      assert.match(brotli.headers.vary ?? '', /accept-encoding/i, 'a shared cache keeps the encodings apart');
    }
  });

  it('sends gzip to a client that accepts only gzip, and brotli to a browser that accepts both', async () => {
    for (const asset of assets) {
      const url = `${server!.url}/${asset.slice(2)}`;
      const gzip = await getBytes(url, { 'accept-encoding': 'gzip' });
      assert.equal(gzip.headers['content-encoding'], 'gzip', asset);
      assert.ok(zlib.gunzipSync(gzip.body).equals(built(asset)), `${asset}: gunzips to the built file`);
      const browser = await getBytes(url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      assert.equal(browser.headers['content-encoding'], 'br', asset);
    }
  });

  it('sends brotli through a proxy that serves the node under a path prefix', async () => {
    const script = assets.find((asset) => asset.endsWith('.js'))!;
    const answer = await getBytes(`${proxy!.url}${script.slice(2)}`, { 'accept-encoding': 'br' });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-encoding'], 'br');
    assert.ok(zlib.brotliDecompressSync(answer.body).equals(built(script)));
    assert.deepEqual(proxy!.outside, [], 'nothing asked outside the prefix');
  });

  it('answers 404 for an asset that is not there, whatever the client accepts', async () => {
    const missing = await getBytes(`${server!.url}/assets/main-NOSUCHFILE.js`, { 'accept-encoding': 'br, gzip' });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(missing.body.toString('utf8')).error.code, 'NOT_FOUND');
  });

  it('sends a file too small to compress plain, and index.html plain and uncached', async () => {
    const small = fs.readdirSync(ASSETS).find((name) => name.endsWith('.LEGAL.txt'));
    assert.ok(small !== undefined, 'the build writes the bundle legal comments beside it');
    assert.equal(fs.existsSync(path.join(ASSETS, `${small}.br`)), false, 'no compressed copy of a small file');
    const legal = await getBytes(`${server!.url}/assets/${small}`, { 'accept-encoding': 'br, gzip' });
    assert.equal(legal.status, 200);
    assert.equal(legal.headers['content-encoding'], undefined);
    assert.ok(legal.body.equals(fs.readFileSync(path.join(ASSETS, small))));

    const page = await getBytes(`${server!.url}/`, { 'accept-encoding': 'br, gzip' });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-encoding'], undefined);
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.ok(page.body.equals(fs.readFileSync(path.join(ASSETS, '..', 'index.html'))));
  });
});
