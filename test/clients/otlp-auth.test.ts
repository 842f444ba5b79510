/**
 * The OpenTelemetry logs SDK's OTLP/HTTP exporter against a server with auth on, the key in the
 * exporter's `headers` as collectors and SDKs are configured: an ingest key exports, a query key's
 * exports fail, as the SDK reports them.
 */
import { strict as assert } from 'assert';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { dispose } from '../helpers/api';
import { bearer, makeKey } from '../helpers/auth';
import { recordingExporter } from '../helpers/otlp';
import { postJson, TestServer } from '../helpers/server';

const ROOT = 'root token for the OTLP test';
const RECORDS = 20;

describe('clients: OpenTelemetry logs SDK with auth on', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await TestServer.start({ set: { 'auth.enabled': true }, env: { TRAWL_ROOT_TOKEN: ROOT } });
  });

  after(async () => {
    await dispose(server);
  });

  /** Emits RECORDS records tagged `tag` through an exporter sending `token`; the result code of each export (0 = SUCCESS). */
  async function exportWith(token: string, tag: string): Promise<number[]> {
    const exporter = new OTLPLogExporter({ url: `${server.api}/otlp/v1/logs`, headers: { Authorization: `Bearer ${token}` } });
    const { recording, results } = recordingExporter(exporter);
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'checkout' }),
      processors: [new BatchLogRecordProcessor({ exporter: recording })],
    });
    const logger = provider.getLogger('auth-test');
    for (let i = 0; i < RECORDS; i++) logger.emit({ severityText: 'info', body: `record ${i}`, attributes: { tag, i } });
    await provider.forceFlush();
    await provider.shutdown();
    return results;
  }

  async function countOf(tag: string, token: string): Promise<number> {
    const answer = await postJson(`${server.api}/query`, { q: `from * | where tag = "${tag}" | stats count() as n` }, bearer(token));
    assert.equal(answer.status, 200, answer.text);
    return answer.body.data.rows[0][0] as number;
  }

  it('an ingest key exports every record; a query key is refused and nothing is stored', async () => {
    const ingest = await makeKey(server.api, ROOT, { name: 'collector', scope: 'ingest' });
    const query = await makeKey(server.api, ROOT, { name: 'reader', scope: 'query' });
    const accepted = await exportWith(ingest.token, 'with-ingest-key');
    assert.ok(accepted.length > 0, 'at least one export ran');
    assert.deepEqual(
      accepted,
      accepted.map(() => 0),
      `export results ${JSON.stringify(accepted)}`,
    );
    assert.equal(await countOf('with-ingest-key', query.token), RECORDS);
    const refused = await exportWith(query.token, 'with-query-key');
    assert.ok(refused.length > 0, 'at least one export ran');
    assert.ok(
      refused.every((code) => code !== 0),
      `every export failed: ${JSON.stringify(refused)}`,
    );
    assert.equal(await countOf('with-query-key', query.token), 0);
  });
});
