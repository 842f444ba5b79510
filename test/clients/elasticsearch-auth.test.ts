/**
 * The official Elasticsearch v8 client against a server with auth on, configured each way its
 * users configure credentials: an API key as one string (sent as `ApiKey <token>`), as id and
 * api_key (sent as `ApiKey base64(id:api_key)`), user and password (Basic), and a bearer token.
 * An ingest key indexes through the handshake and the bulk helper; a wrong key or a query key
 * is refused with the status the client reads.
 */
import { strict as assert } from 'assert';
import { Client, errors, type ClientOptions } from '@elastic/elasticsearch';
import { dispose } from '../helpers/api';
import { bearer, makeKey, tokenParts, type MadeKey } from '../helpers/auth';
import { postJson, TestServer } from '../helpers/server';

const ROOT = 'root token for the client test';
const DOCS_PER_CLIENT = 25;

describe('clients: @elastic/elasticsearch v8 with auth on', function () {
  this.timeout(60_000);
  let server: TestServer;
  let ingest: MadeKey;
  let query: MadeKey;

  before(async () => {
    server = await TestServer.start({ set: { 'auth.enabled': true }, env: { TRAWL_ROOT_TOKEN: ROOT } });
    ingest = await makeKey(server.api, ROOT, { name: 'shipper', scope: 'ingest' });
    query = await makeKey(server.api, ROOT, { name: 'reader', scope: 'query' });
  });

  after(async () => {
    await dispose(server);
  });

  async function withClient<T>(auth: ClientOptions['auth'], use: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ node: `${server.url}/api/v1/es`, auth });
    try {
      return await use(client);
    } finally {
      await client.close();
    }
  }

  async function countOf(tag: string): Promise<number> {
    const answer = await postJson(`${server.api}/query`, { q: `from * | where tag = "${tag}" | stats count() as n` }, bearer(query.token));
    assert.equal(answer.status, 200, answer.text);
    return answer.body.data.rows[0][0] as number;
  }

  it('indexes with each way of giving the key: apiKey string, apiKey id and api_key, username and password, bearer', async () => {
    const { id, secret } = tokenParts(ingest.token);
    const configurations: [string, ClientOptions['auth']][] = [
      ['apikey-string', { apiKey: ingest.token }],
      ['apikey-pair', { apiKey: { id, api_key: secret } }],
      ['basic', { username: 'shipper', password: ingest.token }],
      ['bearer', { bearer: ingest.token }],
    ];
    for (const [tag, auth] of configurations) {
      const stats = await withClient(auth, async (client) => {
        const info = await client.info();
        assert.equal(info.version.number, '8.0.0', tag);
        return client.helpers.bulk({
          datasource: Array.from({ length: DOCS_PER_CLIENT }, (_, i) => ({ tag, n: i, message: `doc ${i} via ${tag}` })),
          onDocument: () => ({ index: { _index: 'auth-logs' } }),
        });
      });
      assert.equal(stats.successful, DOCS_PER_CLIENT, tag);
      assert.equal(stats.failed, 0, tag);
      assert.equal(await countOf(tag), DOCS_PER_CLIENT, `${tag}: stored`);
    }
  });

  it('a wrong key is refused with 401 and a query key with 403, as ResponseErrors the client reads', async () => {
    const refused: [string, ClientOptions['auth'], number][] = [
      ['wrong key', { apiKey: 'not-a-key' }, 401],
      ['query key', { apiKey: query.token }, 403],
    ];
    for (const [what, auth, status] of refused) {
      await withClient(auth, async (client) => {
        await assert.rejects(client.index({ index: 'auth-logs', document: { tag: 'refused', message: what } }), (error: unknown) => {
          assert.ok(error instanceof errors.ResponseError, `${what}: ${String(error)}`);
          assert.equal(error.statusCode, status, what);
          assert.equal((error.body as { error: { type: string } }).error.type, 'security_exception', what);
          return true;
        });
      });
    }
    assert.equal(await countOf('refused'), 0);
  });
});
