/**
 * The OpenTelemetry logs SDK with the OTLP/HTTP exporter (JSON) against /otlp/v1/logs, then the
 * stored events checked against the OTLP mapping table of docs/api.md; a structured body and every
 * attribute kind, queried back; the 415 answer to protobuf says how to send JSON; and a refused
 * record reaching the exporter as OTLP's partial success.
 */
import { strict as assert } from 'assert';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { assertFields, awaitEvents, dispose, post, storedByRaw } from '../helpers/api';
import { recordingExporter } from '../helpers/otlp';
import { TestServer } from '../helpers/server';
import { readStoredEvents } from '../helpers/storage';

describe('clients: OpenTelemetry logs SDK (OTLP/HTTP JSON)', function () {
  let server: TestServer;

  before(async () => {
    // The records carry fixed 2024 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { retention: '3650d' } });
  });

  after(async () => {
    await dispose(server);
  });

  it('exports log records that are stored per the mapping of docs/api.md', async () => {
    const exporter = new OTLPLogExporter({ url: `${server.api}/otlp/v1/logs` });
    const { recording, results } = recordingExporter(exporter);
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({
        'service.name': 'checkout',
        'host.name': 'web-7',
        'deployment.environment': 'staging',
        'service.version': '3.1.0',
        'cloud.region': 'eu-west-1',
      }),
      processors: [new BatchLogRecordProcessor({ exporter: recording })],
    });
    const logger = provider.getLogger('checkout-logger', '1.0.0');
    logger.emit({
      timestamp: new Date('2024-07-01T10:00:00.123Z'),
      severityNumber: 17,
      severityText: 'error',
      body: 'payment failed',
      attributes: { 'order.id': 'o-1', amount: 12.5, retries: 3, 'payment.ok': false },
    });
    logger.emit({
      timestamp: [1719828000, 456789000],
      severityNumber: 9,
      severityText: 'info',
      body: 'payment ok',
      attributes: { 'order.id': 'o-2' },
    });
    for (let i = 0; i < 50; i++) {
      logger.emit({ timestamp: 1719828001000 + i, severityText: 'debug', body: `tick ${i}`, attributes: { i } });
    }
    await provider.forceFlush();
    await provider.shutdown();
    assert.ok(results.length > 0, 'at least one export ran');
    assert.deepEqual(
      results,
      results.map(() => 0),
      `export results ${JSON.stringify(results)}`,
    );

    assert.equal(await server.stop(), 0, server.log);
    const stored = await readStoredEvents(server.dataDir);
    assert.equal(stored.length, 52);
    const resource = {
      index: 'staging',
      source: 'checkout',
      host: 'web-7',
      'resource.service.version': '3.1.0',
      'resource.cloud.region': 'eu-west-1',
    };
    const failed = storedByRaw(stored, 'payment failed');
    assertFields(failed, {
      ...resource,
      _time: 1719828000_123000,
      level: 'error',
      'order.id': 'o-1',
      amount: 12.5,
      retries: 3,
      'payment.ok': false,
    });
    for (const label of ['service.name', 'host.name', 'deployment.environment']) {
      assert.equal(failed[`resource.${label}`], undefined, `${label} is mapped to its own field, not resource.${label}`);
    }
    assertFields(storedByRaw(stored, 'payment ok'), { ...resource, _time: 1719828000_456789, level: 'info', 'order.id': 'o-2' });
    for (let i = 0; i < 50; i++) {
      assertFields(storedByRaw(stored, `tick ${i}`), { ...resource, _time: (1719828001000 + i) * 1000, level: 'debug', i });
    }
  });
});

describe('clients: OpenTelemetry logs SDK, structured bodies and every value kind', function () {
  let server: TestServer;

  before(async () => {
    // The records carry fixed 2024 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { retention: '3650d' } });
  });

  after(async () => {
    await dispose(server);
  });

  it('a map body becomes fields and JSON _raw; int, double, bool, bytes and array attributes keep their values', async () => {
    const exporter = new OTLPLogExporter({ url: `${server.api}/otlp/v1/logs` });
    const { recording, results } = recordingExporter(exporter);
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'kinds-svc', 'host.name': 'kinds-host' }),
      processors: [new BatchLogRecordProcessor({ exporter: recording })],
    });
    const logger = provider.getLogger('kinds');
    const body = { event: 'checkout', cart: { items: 3, total: 99.5, coupon: null, paid: true }, tags: ['a', 'b'] };
    logger.emit({ timestamp: new Date('2024-07-02T08:00:00.5Z'), severityText: 'WARN', body, attributes: { 'req.id': 'r-1' } });
    logger.emit({
      timestamp: new Date('2024-07-02T08:00:01Z'),
      severityText: 'info',
      body: 'kinds',
      attributes: { count: 7, ratio: 0.75, ok: true, raw_bytes: new Uint8Array([0, 1, 2, 255]), list: [1, 2, 3], names: ['x', 'y'] },
    });
    await provider.forceFlush();
    await provider.shutdown();
    assert.ok(results.length > 0, 'at least one export ran');
    assert.deepEqual(
      results,
      results.map(() => 0),
      `export results ${JSON.stringify(results)}`,
    );

    const events = await awaitEvents(server, 'from main | where source = "kinds-svc"', 2);
    const structured = events.find((e) => e['req.id'] === 'r-1');
    assert.ok(structured !== undefined, JSON.stringify(events));
    assert.deepEqual(JSON.parse(structured._raw), { event: 'checkout', cart: { items: 3, total: 99.5, paid: true }, tags: ['a', 'b'] });
    assertFields(structured, {
      _time: '2024-07-02T08:00:00.500Z',
      level: 'warn',
      host: 'kinds-host',
      event: 'checkout',
      'cart.items': 3,
      'cart.total': 99.5,
      'cart.paid': true,
      tags: '["a","b"]',
    });
    const kinds = events.find((e) => e._raw === 'kinds');
    assert.ok(kinds !== undefined, JSON.stringify(events));
    assertFields(kinds, {
      _time: '2024-07-02T08:00:01.000Z',
      level: 'info',
      count: 7,
      ratio: 0.75,
      ok: true,
      raw_bytes: Buffer.from([0, 1, 2, 255]).toString('base64'),
      list: '[1,2,3]',
      names: '["x","y"]',
    });
  });

  it('protobuf is refused with 415 and a message that says how to send JSON from each SDK or the Collector', async () => {
    const answer = await post(`${server.api}/otlp/v1/logs`, Buffer.from([0x0a, 0x00]), { 'content-type': 'application/x-protobuf' });
    assert.equal(answer.status, 415, answer.text);
    const message: string = answer.body.error.message;
    for (const hint of [
      'application/json',
      '@opentelemetry/exporter-logs-otlp-http',
      'opentelemetry-exporter-otlp-json-http',
      'otlphttp',
      'encoding: json',
    ]) {
      assert.ok(message.includes(hint), `415 message names ${hint}: ${message}`);
    }
  });
});

describe('clients: OpenTelemetry logs SDK, a refused record', function () {
  let server: TestServer;

  before(async () => {
    server = await TestServer.start();
  });

  after(async () => {
    diag.disable();
    await dispose(server);
  });

  it('reaches the exporter as a partial success naming the reason; the export succeeds and the other record is stored', async () => {
    const warnings: string[] = [];
    const record = (...args: unknown[]): void => void warnings.push(args.map(String).join(' '));
    diag.setLogger(
      { error: record, warn: record, info: () => undefined, debug: () => undefined, verbose: () => undefined },
      DiagLogLevel.WARN,
    );
    const exporter = new OTLPLogExporter({ url: `${server.api}/otlp/v1/logs` });
    const { recording, results } = recordingExporter(exporter);
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'late' }),
      processors: [new BatchLogRecordProcessor({ exporter: recording })],
    });
    const logger = provider.getLogger('late-logger');
    // Older than the default retention (7d): retention would delete it at once.
    logger.emit({ timestamp: new Date(Date.now() - 30 * 86_400_000), body: 'a month late' });
    logger.emit({ timestamp: new Date(Date.now() - 60_000), body: 'a minute late' });
    await provider.forceFlush();
    await provider.shutdown();
    assert.deepEqual(results, [0], 'a partial success is no failure to retry');
    const partial = warnings.filter((warning) => warning.includes('Received Partial Success response'));
    assert.equal(partial.length, 1, warnings.join('\n'));
    assert.match(partial[0]!, /"rejectedLogRecords":"1"/);
    assert.match(partial[0]!, /logRecords\[0\]: event time [^"]* is older than retention allows/);

    assert.equal(await server.stop(), 0, server.log);
    const stored = await readStoredEvents(server.dataDir);
    assert.deepEqual(
      stored.map((event) => event._raw),
      ['a minute late'],
    );
  });
});
