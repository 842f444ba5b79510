/**
 * The parts of authentication below HTTP: the token format, reading each Authorization form, the
 * privilege table, and the authenticator over a real metadata store (a key verified, remembered,
 * revoked, expired; a chosen root token).
 */
import { strict as assert } from 'assert';
import { Authenticator } from '../../../node/auth/authenticator';
import { credentialOf } from '../../../node/auth/credentials';
import { adoptRootToken, issueKey, revokeKey } from '../../../node/auth/key-issue';
import { requirementOf } from '../../../node/auth/privileges';
import { scopeGrants } from '../../../node/auth/scopes';
import { secretMatches, hashSecret } from '../../../node/auth/token-hash';
import { newSecret, splitToken, tokenOf } from '../../../node/auth/token';
import { MetadataStore } from '../../../node/metadata/store';
import { LocalMetadataWriter } from '../../../node/metadata/writer';
import type { StorageEngine } from '../../../storage/engine';
import { openTestEngine } from '../../helpers/engine';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('auth', function () {
  this.timeout(30_000);

  describe('token format', () => {
    it('splits a token into the key id and the secret, whatever `_` and `-` they hold', () => {
      for (const keyId of ['key_abc', 'key_a_b-c_', 'key__-_']) {
        const secret = newSecret();
        assert.equal(secret.length, 43);
        assert.deepEqual(splitToken(tokenOf(keyId, secret)), { keyId, secret });
      }
    });

    it('reads no other text as a token', () => {
      for (const text of ['', 'trawl_', `trawl_${'a'.repeat(43)}`, `other_key_x_${'a'.repeat(43)}`, 'trawl_key_x_short']) {
        assert.equal(splitToken(text), null, text);
      }
    });

    it('hashes with scrypt and matches only the same secret', async () => {
      const stored = await hashSecret('s3cret');
      assert.match(stored, /^scrypt\$16384\$8\$1\$/);
      assert.equal(await secretMatches('s3cret', stored), true);
      assert.equal(await secretMatches('s3cret!', stored), false);
      assert.equal(await secretMatches('s3cret', 'md5$x'), false);
      assert.notEqual(await hashSecret('s3cret'), stored, 'a new salt each time');
    });
  });

  describe('Authorization header forms', () => {
    const secret = 'S'.repeat(43);
    const token = tokenOf('key_abc', secret);
    const cases: [string, string | undefined, boolean, ReturnType<typeof credentialOf>][] = [
      ['no header', undefined, false, { kind: 'none' }],
      ['empty', '  ', false, { kind: 'none' }],
      ['Bearer', `Bearer ${token}`, false, { kind: 'token', token }],
      ['bearer, extra spaces', `  bearer   ${token} `, false, { kind: 'token', token }],
      ['ApiKey id:secret', `ApiKey ${b64(`key_abc:${secret}`)}`, false, { kind: 'token', token }],
      ['ApiKey id:token', `ApiKey ${b64(`key_abc:${token}`)}`, false, { kind: 'token', token }],
      ['ApiKey token', `ApiKey ${token}`, false, { kind: 'token', token }],
      ['Basic user:token', `Basic ${b64(`shipper:${token}`)}`, false, { kind: 'token', token }],
      ['Basic :token', `Basic ${b64(`:${token}`)}`, false, { kind: 'token', token }],
      ['Basic id:secret', `Basic ${b64(`key_abc:${secret}`)}`, false, { kind: 'token', token }],
      ['Basic user:chosen', `Basic ${b64('elastic:chosen root')}`, false, { kind: 'token', token: 'chosen root' }],
      ['Splunk on the collector', `Splunk ${token}`, true, { kind: 'token', token }],
    ];
    for (const [what, header, collector, expected] of cases) {
      it(what, () => assert.deepEqual(credentialOf(header, collector), expected));
    }

    it('refuses what it cannot read, saying why', () => {
      for (const header of [
        'Digest abc',
        'Bearer',
        'ApiKey %%%',
        `ApiKey ${b64('no-colon')}`,
        `Basic ${b64('user:')}`,
        `Splunk ${token}`,
      ]) {
        const credential = credentialOf(header, false);
        assert.equal(credential.kind, 'unreadable', header);
      }
    });
  });

  describe('privilege table', () => {
    const cases: [string, string, string | null][] = [
      ['GET', '/health', 'open'],
      ['HEAD', '/metrics', 'open'],
      ['OPTIONS', '/api/v1/query', 'open'],
      ['GET', '/api/v1/metrics', 'query'],
      ['POST', '/api/v1/ingest', 'ingest'],
      ['POST', '/api/v1/ingest/hec', 'ingest'],
      ['PUT', '/api/v1/es/:index/_doc/:id', 'ingest'],
      ['HEAD', '/api/v1/es', 'ingest'],
      ['POST', '/api/v1/otlp/v1/logs', 'ingest'],
      ['GET', '/api/v1/query/jobs/:id/stream', 'query'],
      ['DELETE', '/api/v1/query/jobs/:id', 'admin'],
      ['GET', '/api/v1/fields/:name/values', 'query'],
      ['GET', '/api/v1/tail', 'query'],
      ['POST', '/api/v1/alerts/:id/test', 'query'],
      ['POST', '/api/v1/alerts/:id/test-channels', 'admin'],
      ['PUT', '/api/v1/dashboards/:id', 'admin'],
      ['GET', '/api/v1/config', 'admin'],
      ['PATCH', '/api/v1/config', 'root'],
      ['DELETE', '/api/v1/auth/keys/:id', 'root'],
      ['POST', '/api/v1/cluster/nodes/:node_id/remove', 'root'],
      ['GET', '/api/v1/ingest', null],
      ['POST', '/api/v1/unknown', null],
      ['GET', '/other', null],
    ];
    for (const [method, url, need] of cases) {
      it(`${method} ${url}: ${need ?? 'no rule'}`, () => assert.equal(requirementOf(method, url), need));
    }

    it('scopes: admin reads, full does all but root, only root is root', () => {
      assert.equal(scopeGrants('admin', 'query'), true);
      assert.equal(scopeGrants('admin', 'ingest'), false);
      assert.equal(scopeGrants('full', 'ingest'), true);
      assert.equal(scopeGrants('full', 'root'), false);
      assert.equal(scopeGrants('root', 'root'), true);
      assert.equal(scopeGrants('query', 'admin'), false);
    });
  });

  describe('authenticator over the metadata store', () => {
    let engine: StorageEngine;
    let store: MetadataStore;
    let writer: LocalMetadataWriter;
    let nowMs = Date.now();
    let authenticator: Authenticator;

    before(async () => {
      engine = await openTestEngine();
      store = await MetadataStore.open(engine.records('metadata'));
      writer = new LocalMetadataWriter(store);
      authenticator = new Authenticator(store, () => nowMs);
    });

    after(async () => {
      await engine.close();
    });

    it('finds the key of a token, again from memory, and none for a wrong secret', async () => {
      const { record, token } = await issueKey(writer, { name: 'reader', scope: 'query', description: null, expiresAt: null });
      const expected = { id: record.id, name: 'reader', scope: 'query' };
      const [first, concurrent] = await Promise.all([authenticator.verify(token), authenticator.verify(token)]);
      assert.deepEqual(first, expected);
      assert.deepEqual(concurrent, expected);
      assert.deepEqual(await authenticator.verify(token), expected);
      assert.equal(await authenticator.verify(tokenOf(String(record.id), 'x'.repeat(43))), null);
      assert.equal(authenticator.lastUsedAt(String(record.id)), new Date(nowMs).toISOString());
    });

    it('a revoked key fails at once, though its token was remembered', async () => {
      const { record, token } = await issueKey(writer, { name: 'gone', scope: 'ingest', description: null, expiresAt: null });
      assert.notEqual(await authenticator.verify(token), null);
      await revokeKey(writer, String(record.id));
      assert.equal(await authenticator.verify(token), null);
    });

    it('an expired key fails from its expiry on', async () => {
      const expiresAt = new Date(nowMs + 60_000).toISOString();
      const { token } = await issueKey(writer, { name: 'short', scope: 'full', description: null, expiresAt });
      assert.notEqual(await authenticator.verify(token), null);
      nowMs += 60_000;
      assert.equal(await authenticator.verify(token), null);
    });

    it('checks many new tokens at once, a few at a time, each with its own answer', async () => {
      const { record, token } = await issueKey(writer, { name: 'among many', scope: 'query', description: null, expiresAt: null });
      const wrong = Array.from({ length: 12 }, (_, i) => tokenOf(String(record.id), `${i}`.padStart(43, 'w')));
      const answers = await Promise.all([...wrong, token].map((each) => authenticator.verify(each)));
      assert.deepEqual(
        answers.map((answer) => answer?.id ?? null),
        [...wrong.map(() => null), record.id],
      );
    });

    it('a chosen root token is found without a key id, and a wrong one is refused again after the key set changes', async () => {
      const chosen = 'an operator chose this';
      assert.equal(await authenticator.verify(chosen), null);
      const record = await adoptRootToken(writer, chosen);
      assert.deepEqual(await authenticator.verify(chosen), { id: record.id, name: 'root', scope: 'root' });
      assert.equal(await authenticator.verify('an operator chose that'), null);
    });
  });
});
