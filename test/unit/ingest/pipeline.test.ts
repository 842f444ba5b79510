import { strict as assert } from 'assert';
import type { LogEvent } from '../../../storage/core/event';
import { runPipeline } from '../../../node/ingest/pipeline';
import { assertValidEvent, NOW, utc } from './helpers';

function run(raw: string, preset: Record<string, string> = {}, timeGiven = false): LogEvent {
  const ev: LogEvent = { time: NOW, raw, index: 'main', fields: { ...preset } };
  runPipeline(ev, NOW, timeGiven);
  assertValidEvent(ev);
  return ev;
}

describe('ingest text pipeline', () => {
  it('extracts a JSON line: flattened fields, time, level and host from common keys', () => {
    const ev = run(
      '{"@timestamp":"2024-01-02T03:04:05Z","level":"WARNING","host":"h1","msg":"x","nested":{"a":1,"b":{"c":true}},"arr":[1,"2"],"nul":null}',
    );
    assert.equal(ev.time, utc(2024, 1, 2, 3, 4, 5));
    assert.deepEqual(ev.fields, {
      level: 'warn',
      host: 'h1',
      '@timestamp': '2024-01-02T03:04:05Z',
      msg: 'x',
      'nested.a': 1,
      'nested.b.c': true,
      arr: '[1,"2"]',
    });
  });

  it('takes the first time key that parses, in the documented order', () => {
    assert.equal(run('{"timestamp":"junk","time":1700000000.5}').time, 1700000000_500000);
    assert.equal(run('{"ts":1700000000123}').time, 1700000000_123000);
    assert.equal(run('{"datetime":"2024-01-02 03:04:05"}').time, utc(2024, 1, 2, 3, 4, 5));
    assert.equal(run('{"time":"not a time"}').time, NOW);
  });

  it('reads level from severity, log.level and pino numbers; host from host.name', () => {
    assert.equal(run('{"severity":"ERROR"}').fields.level, 'error');
    assert.equal(run('{"log":{"level":"debug"}}').fields.level, 'debug');
    assert.equal(run('{"log.level":"info"}').fields.level, 'info');
    assert.equal(run('{"level":30,"msg":"pino"}').fields.level, 'info');
    assert.equal(run('{"level":35}').fields.level, '35');
    const ev = run('{"host":{"name":"web-1","ip":"10.0.0.1"}}');
    assert.equal(ev.fields.host, 'web-1');
    assert.equal(ev.fields['host.ip'], '10.0.0.1');
  });

  it('skips reserved names and never overwrites what the request set', () => {
    const ev = run('{"index":"x","_raw":"y","_time":1,"source":"line","level":"debug","a":1}', { source: 'hdr', level: 'error' });
    assert.deepEqual(ev.fields, { source: 'hdr', level: 'error', a: 1 });
  });

  it('keeps the request time when given', () => {
    assert.equal(run('{"time":1700000000}', {}, true).time, NOW);
    assert.equal(run('2003-10-11T22:14:15Z x', {}, true).time, NOW);
  });

  it('treats non-JSON braces and JSON arrays as text', () => {
    const ev = run('{not json} ERROR x');
    assert.equal(ev.fields.level, 'error');
    assert.deepEqual(run('[1,2]').fields, {});
  });

  it('RFC 5424: time, host, appname and the PRI severity', () => {
    const ev = run("<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - 'su root' failed");
    assert.equal(ev.time, utc(2003, 10, 11, 22, 14, 15, 3000));
    assert.deepEqual(ev.fields, { host: 'mymachine.example.com', appname: 'su', level: 'critical' });
    const ev2 = run('<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% It is time');
    assert.equal(ev2.time, utc(2003, 8, 24, 12, 14, 15, 3));
    assert.deepEqual(ev2.fields, { host: '192.0.2.1', appname: 'myproc', level: 'notice' });
    const nil = run('<14>1 - - - - - - no header values');
    assert.equal(nil.time, NOW);
    assert.deepEqual(nil.fields, { level: 'info' });
  });

  it('RFC 3164 with PRI: host and tag when the header is complete', () => {
    const ev = run("<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8");
    assert.equal(ev.time, utc(2023, 10, 11, 22, 14, 15));
    assert.deepEqual(ev.fields, { host: 'mymachine', appname: 'su', level: 'critical' });
    const noTag = run('<13>Feb  5 17:32:18 10.0.0.99 Use the BFG!');
    assert.equal(noTag.time, utc(2024, 2, 5, 17, 32, 18));
    assert.deepEqual(noTag.fields, { level: 'notice' });
  });

  it('RFC 3164 without PRI: host, appname with pid, level from the message', () => {
    const ev = run('Jun 14 15:16:01 combo sshd(pam_unix)[19939]: error: authentication failure');
    assert.deepEqual(ev.fields, { host: 'combo', appname: 'sshd(pam_unix)', level: 'error' });
    assert.deepEqual(run('Jul  1 09:29:02 mac sandboxd[129] ([31211]): deny').fields, {});
  });

  it('a PRI alone still gives the level', () => {
    assert.deepEqual(run('<11>something failed').fields, { level: 'error' });
    assert.deepEqual(run('<999>x').fields, {});
  });

  it('plain text keeps the receive time and gets no fields', () => {
    const ev = run('just a message');
    assert.equal(ev.time, NOW);
    assert.deepEqual(ev.fields, {});
  });
});
