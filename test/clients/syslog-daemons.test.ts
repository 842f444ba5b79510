/**
 * rsyslog and syslog-ng are daemons the tests cannot run, so their requests are replayed exactly as
 * their Elasticsearch outputs send them by default, then queried back:
 * - rsyslog omelasticsearch (bulkmode, esVersion.major 8): it checks `GET _cat/health` when it
 *   (re)connects, then posts action lines `{"index":{"_index": "system"}}` (the space is rsyslog's)
 *   with documents from its default template StdJSONFmt:
 *   {"message":"%msg:::json%","fromhost":"%HOSTNAME:::json%","facility":"%syslogfacility-text%",
 *    "priority":"%syslogpriority-text%","timereported":"%timereported:::date-rfc3339%",
 *    "timegenerated":"%timegenerated:::date-rfc3339%"}
 * - syslog-ng elasticsearch-http() (scl/elasticsearch/elastic-http.conf): action lines from
 *   `$(format-json --scope none --omit-empty-values index._index=... index._type=... index._id=...)`
 *   and documents from its default template
 *   `$(format-json --scope rfc5424 --exclude DATE --key ISODATE @timestamp=${ISODATE})`,
 *   Content-Type application/x-ndjson.
 */
import { strict as assert } from 'assert';
import { assertFields, awaitEvents, dispose, post } from '../helpers/api';
import { request, TestServer } from '../helpers/server';

/** syslog severities as rsyslog's syslogpriority-text and syslog-ng's PRIORITY write them, and our level. */
const SEVERITIES = [
  ['emerg', 'fatal'],
  ['alert', 'critical'],
  ['crit', 'critical'],
  ['err', 'error'],
  ['warning', 'warn'],
  ['notice', 'notice'],
  ['info', 'info'],
  ['debug', 'debug'],
] as const;

describe('clients: syslog daemons (rsyslog omelasticsearch, syslog-ng elasticsearch-http)', function () {
  let server: TestServer;

  before(async () => {
    // The events carry fixed 2024 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { retention: '3650d' } });
  });

  after(async () => {
    await dispose(server);
  });

  it('rsyslog: _cat/health answers, then every StdJSONFmt document arrives with host, level, time and message', async () => {
    const health = await request(`${server.api}/es/_cat/health`);
    assert.equal(health.status, 200, health.text);

    const docs = Array.from({ length: 16 }, (_, i) => ({
      message: ` sshd[${1000 + i}]: session ${i} opened`,
      fromhost: `web-${i % 3}`,
      facility: 'auth',
      priority: SEVERITIES[i % SEVERITIES.length]![0],
      timereported: `2024-06-05T10:00:${String(i).padStart(2, '0')}.250000+02:00`,
      timegenerated: `2024-06-05T10:01:${String(i).padStart(2, '0')}.000000+02:00`,
    }));
    const body = docs.map((doc) => `{"index":{"_index": "system"}}\n${JSON.stringify(doc)}\n`).join('');
    const answer = await post(`${server.api}/es/_bulk`, body, { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.errors, false, answer.text);

    const events = await awaitEvents(server, 'from main | where source = "system"', docs.length);
    for (const [i, doc] of docs.entries()) {
      const event = events.find((e) => e.timegenerated === doc.timegenerated);
      assert.ok(event !== undefined, doc.timegenerated);
      assertFields(
        event,
        {
          _raw: doc.message,
          _time: new Date(Date.parse(doc.timereported)).toISOString(),
          host: doc.fromhost,
          level: SEVERITIES[i % SEVERITIES.length]![1],
          fromhost: doc.fromhost,
          priority: doc.priority,
          facility: 'auth',
        },
        doc.timegenerated,
      );
    }
  });

  it('syslog-ng: every rfc5424-scope document arrives with HOST, PRIORITY, MESSAGE and its time', async () => {
    const docs = Array.from({ length: 16 }, (_, i) => {
      const iso = `2024-06-06T08:30:${String(i).padStart(2, '0')}+00:00`;
      return {
        PROGRAM: 'nginx',
        PRIORITY: SEVERITIES[i % SEVERITIES.length]![0],
        PID: String(300 + i),
        MESSAGE: `upstream ${i} timed out`,
        ISODATE: iso,
        HOST: `edge-${i % 2}`,
        FACILITY: 'daemon',
        '@timestamp': iso,
      };
    });
    const body = docs.map((doc) => `${JSON.stringify({ index: { _index: 'syslog-ng' } })}\n${JSON.stringify(doc)}\n`).join('');
    const answer = await post(`${server.api}/es/_bulk`, body, { 'content-type': 'application/x-ndjson' });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.errors, false, answer.text);

    const events = await awaitEvents(server, 'from main | where source = "syslog-ng"', docs.length);
    for (const [i, doc] of docs.entries()) {
      const event = events.find((e) => e.PID === doc.PID);
      assert.ok(event !== undefined, doc.PID);
      assertFields(
        event,
        {
          _raw: doc.MESSAGE,
          _time: new Date(Date.parse(doc.ISODATE)).toISOString(),
          host: doc.HOST,
          level: SEVERITIES[i % SEVERITIES.length]![1],
          HOST: doc.HOST,
          PRIORITY: doc.PRIORITY,
          PROGRAM: 'nginx',
        },
        doc.PID,
      );
    }
  });
});
