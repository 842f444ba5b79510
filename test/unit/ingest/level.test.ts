import { strict as assert } from 'assert';
import { detectLevel, levelFromOtlpSeverity, levelFromSyslogSeverity, levelFromValue, normalizeLevel } from '../../../node/ingest/level';
import { parseRawLines } from '../../../node/ingest/raw';
import { ctx } from './helpers';

describe('ingest level detection', () => {
  const found: [string, string][] = [
    ['ERROR something broke', 'error'],
    ['ERR something broke', 'error'],
    ['x WARN disk', 'warn'],
    ['x WARNING disk', 'warn'],
    ['x INFO started', 'info'],
    ['x DEBUG v=1', 'debug'],
    ['x TRACE enter', 'trace'],
    ['x FATAL out of memory', 'fatal'],
    ['x CRITICAL temp', 'critical'],
    ['x CRIT temp', 'critical'],
    ['x NOTICE hi', 'notice'],
    ['x SEVERE boom', 'error'],
    ['x EMERG down', 'fatal'],
    ['x ALERT exited abnormally', 'critical'],
    ['x PANIC', 'fatal'],
    ['x Info  CBS Loaded', 'info'],
    ['x Warning: low', 'warn'],
    ['x Error opening file', 'error'],
    ['x [error] mod_jk', 'error'],
    ['x [notice] jk2_init', 'notice'],
    ['x <warn> y', 'warn'],
    ['x level=debug msg=hi', 'debug'],
    ['x severity=warning', 'warn'],
    ['x [Notice] y', 'notice'],
    ['info starting up', 'info'],
    ['x - INFO  [main]', 'info'],
    ['x sshd[1]: error: Bind failed', 'error'],
    ['x [0701/114930:WARNING:dns_config.cc(306)] Failed', 'warn'],
  ];
  for (const [line, level] of found) {
    it(`finds ${level} in "${line}"`, () => assert.equal(detectLevel(line, 0), level));
  }

  const notFound = [
    'x the error was ignored',
    'x no_error here',
    'x wrote /var/log/error.log',
    'x error-handler started',
    'x CPU: Trace cache: 12K uops',
    'x IOPMPowerSource Information: onSleep',
    'x Configuration Notice: ASL Module',
    'x ErRoR mixed case',
    'x org.apache.Error thrown',
    'x informative text',
    `${'y'.repeat(140)} ERROR too far from the start`,
  ];
  for (const line of notFound) {
    it(`finds no level in "${line.slice(0, 50)}"`, () => assert.equal(detectLevel(line, 0), undefined));
  }

  it('starts at the given offset', () => {
    assert.equal(detectLevel('ERROR x INFO', 6), 'info');
  });

  it('normalizes client level text', () => {
    assert.equal(normalizeLevel('WARNING'), 'warn');
    assert.equal(normalizeLevel(' Information '), 'info');
    assert.equal(normalizeLevel('Verbose'), 'trace');
    assert.equal(normalizeLevel('err'), 'error');
    assert.equal(normalizeLevel('Custom'), 'custom');
    assert.equal(normalizeLevel('  '), undefined);
    assert.equal(levelFromValue(30), 'info');
    assert.equal(levelFromValue(50), 'error');
    assert.equal(levelFromValue(35), undefined);
    assert.equal(levelFromValue(true), undefined);
  });

  it('maps syslog severities 0..7', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7].map(levelFromSyslogSeverity), [
      'fatal',
      'critical',
      'critical',
      'error',
      'warn',
      'notice',
      'info',
      'debug',
    ]);
  });

  it('maps OTLP severity numbers by range', () => {
    const got = [0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 2.5].map(levelFromOtlpSeverity);
    assert.deepEqual(got, [
      undefined,
      'trace',
      'trace',
      'debug',
      'debug',
      'info',
      'info',
      'warn',
      'warn',
      'error',
      'error',
      'fatal',
      'fatal',
      undefined,
      undefined,
    ]);
  });

  it('reads the logcat priority letter', () => {
    const body = ['V', 'D', 'I', 'W', 'E', 'F'].map((l) => `03-17 16:13:38.811  1702  2395 ${l} Tag: msg`).join('\n');
    const { events } = parseRawLines(body, {}, ctx());
    assert.deepEqual(
      events.map((e) => e.fields.level),
      ['trace', 'debug', 'info', 'warn', 'error', 'fatal'],
    );
  });
});
