/**
 * pino with pino-elasticsearch, unmodified, against the Elasticsearch-compatible API: the official
 * client's bulk helper writes pino's lines (numeric `level`, `hostname`, `msg`) and refreshes the index
 * when the stream ends. Every event must arrive with its message, level, host and time.
 */
import { strict as assert } from 'assert';
import pino from 'pino';
import pinoElastic from 'pino-elasticsearch';
import { assertFields, awaitEvents, dispose } from '../helpers/api';
import { TestServer } from '../helpers/server';

const BASE = Date.parse('2024-06-04T12:00:00Z');
const LEVELS = [
  ['info', 'info'],
  ['warn', 'warn'],
  ['error', 'error'],
  ['fatal', 'fatal'],
  ['debug', 'debug'],
  ['trace', 'trace'],
] as const;

describe('clients: pino-elasticsearch', function () {
  let server: TestServer;

  before(async () => {
    // The events carry fixed 2024 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { retention: '3650d' } });
  });

  after(async () => {
    await dispose(server);
  });

  it('every line arrives with its message, level, host and time; the final refresh succeeds', async () => {
    const stream = pinoElastic({ node: `${server.url}/api/v1/es`, index: 'pino-app', esVersion: 8, flushBytes: 2000, flushInterval: 200 });
    const problems: string[] = [];
    stream.on('error', (error: Error) => problems.push(`error: ${error.message}`));
    stream.on('insertError', (error: Error) => problems.push(`insertError: ${error.message}`));
    const finished = new Promise<{ total: number; successful: number; failed: number }>((resolve, reject) => {
      stream.on('insert', resolve);
      stream.on('error', reject);
    });

    let now = BASE; // each line's time, as pino's timestamp option writes it
    const logger = pino({ level: 'trace', base: { pid: 4242, hostname: 'pino-host-1' }, timestamp: () => `,"time":${now}` }, stream);
    const count = 60;
    for (let i = 0; i < count; i++) {
      now = BASE + i * 1000;
      logger[LEVELS[i % LEVELS.length]![0]]({ uid: `p-${i}`, latency_ms: i + 0.5 }, `request ${i} done`);
    }
    stream.end();

    const stats = await finished; // the bulk helper resolves only after its refreshOnCompletion call
    assert.deepEqual(problems, []);
    assert.equal(stats.successful, count);
    assert.equal(stats.failed, 0);

    const events = await awaitEvents(server, 'from main | where source = "pino-app"', count);
    for (let i = 0; i < count; i++) {
      const event = events.find((e) => e.uid === `p-${i}`);
      assert.ok(event !== undefined, `p-${i}`);
      assertFields(
        event,
        {
          _raw: `request ${i} done`,
          _time: new Date(BASE + i * 1000).toISOString(),
          level: LEVELS[i % LEVELS.length]![1],
          host: 'pino-host-1',
          hostname: 'pino-host-1',
          source: 'pino-app',
          pid: 4242,
          latency_ms: i + 0.5,
        },
        `p-${i}`,
      );
    }
  });
});
