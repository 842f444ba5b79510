/**
 * winston with winston-elasticsearch, unmodified, against the Elasticsearch-compatible API: the
 * transport polls `_cluster/health`, checks its index template, then bulk-writes action lines that
 * carry `"attempts":0`. Every event must arrive with its message, level, time and index.
 */
import { strict as assert } from 'assert';
import { Client } from '@elastic/elasticsearch';
import winston from 'winston';
import { ElasticsearchTransport } from 'winston-elasticsearch';
import { assertFields, awaitEvents, dispose } from '../helpers/api';
import { TestServer } from '../helpers/server';

const BASE = Date.parse('2024-06-03T09:00:00Z');
const LEVELS = ['info', 'warn', 'error', 'debug'] as const;

describe('clients: winston-elasticsearch', function () {
  let server: TestServer;
  let client: Client | undefined;
  let logger: winston.Logger | undefined;

  before(async () => {
    // The events carry fixed 2024 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { retention: '3650d' } });
  });

  after(async () => {
    logger?.end();
    await client?.close();
    await dispose(server);
  });

  it('every logged event arrives with its message, level, time and index; the transport reports no error', async () => {
    const problems: string[] = [];
    client = new Client({ node: `${server.url}/api/v1/es` });
    // internalLogger (not in the package's typings) receives every failed item.
    const options = {
      level: 'debug',
      client,
      index: 'winston-app',
      flushInterval: 100,
      retryLimit: 3,
      internalLogger: (...args: unknown[]) =>
        problems.push(`internal: ${args.map((a) => (a instanceof Error ? a.message : JSON.stringify(a))).join(' ')}`),
    };
    const transport = new ElasticsearchTransport(options);
    transport.on('warning', (error: Error) => problems.push(`warning: ${error.message}`));
    transport.on('error', (error: Error) => problems.push(`error: ${error.message}`));
    logger = winston.createLogger({ level: 'debug', transports: [transport] });

    const count = 40;
    for (let i = 0; i < count; i++) {
      const timestamp = new Date(BASE + i * 1000).toISOString();
      logger.log({ level: LEVELS[i % LEVELS.length]!, message: `order ${i} placed`, timestamp, uid: `w-${i}`, amount: i * 2.5 });
    }

    const events = await awaitEvents(server, 'from main | where source = "winston-app"', count);
    assert.deepEqual(problems, []);
    for (let i = 0; i < count; i++) {
      const event = events.find((e) => e['fields.uid'] === `w-${i}`);
      assert.ok(event !== undefined, `w-${i} among ${JSON.stringify(events.slice(0, 2))}`);
      assertFields(
        event,
        {
          _raw: `order ${i} placed`,
          _time: new Date(BASE + i * 1000).toISOString(),
          level: LEVELS[i % LEVELS.length],
          source: 'winston-app',
          index: 'main',
          message: `order ${i} placed`,
          'fields.amount': i * 2.5,
        },
        `w-${i}`,
      );
    }
  });
});
