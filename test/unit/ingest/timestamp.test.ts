import { strict as assert } from 'assert';
import { inferYearMicros } from '../../../node/ingest/datetime';
import { detectAfterFirstToken, detectCommonLog, detectLeadingTimestamp, parseIsoAt } from '../../../node/ingest/timestamp';
import { epochToMicros, parseTimeValue, scaleDecimal, secondsToMicros } from '../../../node/ingest/timevalue';
import { NOW, utc } from './helpers';

/** The time the whole line detection gives (start, then common log, then second token), or null. */
function lineTime(line: string): number | null {
  const m = detectLeadingTimestamp(line, 0, NOW) ?? detectCommonLog(line, 0) ?? detectAfterFirstToken(line, 0);
  return m ? m.micros : null;
}

describe('ingest timestamp detection', () => {
  const cases: [string, string, number][] = [
    ['RFC 3339 Z with millis', '2003-10-11T22:14:15.003Z su: hi', utc(2003, 10, 11, 22, 14, 15, 3000)],
    ['RFC 3339 with offset', '2003-10-11T22:14:15.003-07:00 x', utc(2003, 10, 12, 5, 14, 15, 3000)],
    ['ISO offset without colon', '2024-01-02T03:04:05+0530 x', utc(2024, 1, 1, 21, 34, 5)],
    ['ISO offset hours only', '2024-01-02T03:04:05+02 x', utc(2024, 1, 2, 1, 4, 5)],
    ['ISO lower-case t and z', '2024-01-02t03:04:05z x', utc(2024, 1, 2, 3, 4, 5)],
    ['ISO nanos rounded to micros', '2024-01-02T03:04:05.123456789Z', utc(2024, 1, 2, 3, 4, 5, 123457)],
    ['ISO without seconds', '2024-01-02T03:04Z x', utc(2024, 1, 2, 3, 4)],
    ['ISO space, comma fraction (log4j)', '2015-10-18 18:01:47,978 INFO [main] x', utc(2015, 10, 18, 18, 1, 47, 978000)],
    ['ISO space, no zone is UTC', '2017-05-16 00:00:00.008 25746 INFO', utc(2017, 5, 16, 0, 0, 0, 8000)],
    ['ISO then comma and text (Windows CBS)', '2016-09-28 04:30:30, Info  CBS', utc(2016, 9, 28, 4, 30, 30)],
    ['ISO then spaced numeric zone', '2024-01-02 03:04:05 +0200 msg', utc(2024, 1, 2, 1, 4, 5)],
    ['ISO then dash separator is not a zone', '2015-07-29 17:41:44,747 - INFO  [x]', utc(2015, 7, 29, 17, 41, 44, 747000)],
    ['slashed date (Go log)', '2009/11/10 23:00:00 Hello', utc(2009, 11, 10, 23)],
    ['epoch seconds', '1117838570 rest', 1117838570_000000],
    ['epoch seconds with fraction', '1117838570.25 rest', 1117838570_250000],
    ['epoch millis', '1718452800123 msg', 1718452800_123000],
    ['epoch micros', '1718452800123456 msg', 1718452800_123456],
    ['epoch nanos rounded', '1718452800123456789 msg', 1718452800_123457],
    ['RFC 3164 (year inferred: Oct 2024 is future, so 2023)', 'Oct 11 22:14:15 mymachine su: x', utc(2023, 10, 11, 22, 14, 15)],
    ['RFC 3164 space-padded day', 'Jul  1 09:00:55 host kernel[0]: x', utc(2023, 7, 1, 9, 0, 55)],
    ['RFC 3164 single-space day', 'Nov 9 12:01:01 dn228 crond: x', utc(2023, 11, 9, 12, 1, 1)],
    ['RFC 3164 earlier this year', 'Jun 14 15:16:01 combo sshd: x', utc(2024, 6, 14, 15, 16, 1)],
    ['RFC 3164 less than a day ahead stays this year', 'Jun 16 11:59:59 h a: x', utc(2024, 6, 16, 11, 59, 59)],
    ['RFC 3164 more than a day ahead is last year', 'Jun 16 12:00:01 h a: x', utc(2023, 6, 16, 12, 0, 1)],
    ['RFC 3164 Feb 29 finds a leap year', 'Feb 29 10:00:00 h a: x', utc(2024, 2, 29, 10)],
    ['RFC 3164 with fraction', 'Oct 11 22:14:15.5 h a: x', utc(2023, 10, 11, 22, 14, 15, 500000)],
    ['Apache error log', '[Sun Dec 04 04:47:44 2005] [notice] workerEnv', utc(2005, 12, 4, 4, 47, 44)],
    ['Apache 2.4 error log with micros', '[Wed Oct 11 14:32:52.123456 2000] [core:error]', utc(2000, 10, 11, 14, 32, 52, 123456)],
    ['ctime unbracketed, padded day', 'Wed Oct  1 14:32:52 2000 x', utc(2000, 10, 1, 14, 32, 52)],
    ['RFC 2822 GMT', 'Sun, 06 Nov 1994 08:49:37 GMT x', utc(1994, 11, 6, 8, 49, 37)],
    ['RFC 2822 numeric zone', 'Tue, 1 Jul 2003 10:52:37 +0200 x', utc(2003, 7, 1, 8, 52, 37)],
    ['Apache access bracketed', '[10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0"', utc(2000, 10, 10, 20, 55, 36)],
    [
      'common log format',
      '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326',
      utc(2000, 10, 10, 20, 55, 36),
    ],
    ['nginx combined, IPv6 client', '2001:db8::1 - - [15/Jun/2024:11:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "curl"', utc(2024, 6, 15, 11)],
    ['bracketed ISO', '[2024-01-02 03:04:05,678] INFO x', utc(2024, 1, 2, 3, 4, 5, 678000)],
    ['HDFS yyMMdd HHmmss', '081109 203615 148 INFO dfs.DataNode', utc(2008, 11, 9, 20, 36, 15)],
    ['Spark yy/MM/dd', '17/06/09 20:10:40 INFO executor', utc(2017, 6, 9, 20, 10, 40)],
    ['Android logcat (year inferred)', '03-17 16:13:38.811  1702  2395 D WindowManager: x', utc(2024, 3, 17, 16, 13, 38, 811000)],
    ['HealthApp padded', '20171223-22:15:29:606|Step_LSC|30002312|x', utc(2017, 12, 23, 22, 15, 29, 606000)],
    ['HealthApp unpadded parts', '20171223-22:16:0:119|Step_LSC|x', utc(2017, 12, 23, 22, 16, 0, 119000)],
    ['HealthApp unpadded millis count', '20171224-1:2:3:5|x', utc(2017, 12, 24, 1, 2, 3, 5000)],
    ['Proxifier (year inferred)', '[10.30 16:49:06] chrome.exe - x', utc(2023, 10, 30, 16, 49, 6)],
    ['BGL epoch after dash', '- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 x', 1117838570_000000],
    ['BGL epoch after an upper-case alert tag', 'APPREAD 1117869872 2005.06.04 R04 x', 1117869872_000000],
    [
      'OpenStack ISO after a file-name token',
      'nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO',
      utc(2017, 5, 16, 0, 0, 0, 8000),
    ],
    ['level word then ISO', 'INFO 2024-01-02T03:04:05Z started', utc(2024, 1, 2, 3, 4, 5)],
  ];
  for (const [name, line, expected] of cases) {
    it(name, () => assert.equal(lineTime(line), expected, line));
  }

  const none: [string, string][] = [
    ['plain text', 'hello world'],
    ['short number', '12345 things happened'],
    ['leading zero is a counter', '0123456789 x'],
    ['epoch glued to letters', '1234567890abc'],
    ['number after a lower-case word is not an epoch', 'request 1117838570 bytes'],
    ['invalid month', '2024-13-01T00:00:00Z x'],
    ['invalid day', '2024-02-30 10:00:00 x'],
    ['invalid hour', '2024-02-03 24:00:00 x'],
    ['date only in a line', '2024-02-03 something'],
    ['before 1970', '1969-12-31T23:59:59Z x'],
    ['from 2200 on', '2200-01-01T00:00:00Z x'],
    ['month-first numeric date (ambiguous)', '03/17/2024 10:00:00 x'],
    ['unknown month name', 'Foo 11 22:14:15 x'],
    ['syslog without time', 'Oct 11 x'],
    ['HDFS-like with bad month', '081309 203615 x'],
    ['version number', '1.2.3 released'],
    ['empty', ''],
  ];
  for (const [name, line] of none) {
    it(`no time: ${name}`, () => assert.equal(lineTime(line), null, line));
  }

  it('reports where the timestamp ends', () => {
    assert.equal(detectLeadingTimestamp('2024-01-02T03:04:05Z rest', 0, NOW)!.end, 20);
    assert.equal(detectLeadingTimestamp('[Sun Dec 04 04:47:44 2005] x', 0, NOW)!.end, 26);
    assert.equal(detectLeadingTimestamp('Oct 11 22:14:15 h', 0, NOW)!.end, 15);
  });

  it('parses a bare ISO date only where allowed', () => {
    assert.equal(parseIsoAt('2024-02-03', 0, true)!.micros, utc(2024, 2, 3));
    assert.equal(parseIsoAt('2024-02-03', 0, false), null);
  });

  it('infers the year around New Year', () => {
    const dec31 = utc(2024, 12, 31, 23, 0, 0);
    assert.equal(inferYearMicros(1, 1, 0, 30, 0, 0, dec31), utc(2025, 1, 1, 0, 30, 0));
    const jan1 = utc(2025, 1, 1, 0, 10, 0);
    assert.equal(inferYearMicros(12, 31, 23, 59, 0, 0, jan1), utc(2024, 12, 31, 23, 59, 0));
    assert.equal(inferYearMicros(2, 29, 0, 0, 0, 0, utc(2023, 6, 1)), utc(2020, 2, 29));
  });
});

describe('ingest time values (JSON)', () => {
  it('scales decimal text exactly', () => {
    assert.equal(scaleDecimal('1700000000.123456', 6), 1700000000_123456);
    assert.equal(scaleDecimal('1700000000.1234565', 6), 1700000000_123457);
    assert.equal(scaleDecimal('1700000000123', 3), 1700000000_123000);
    assert.equal(scaleDecimal('1700000000123456789', -3), 1700000000_123457);
    assert.ok(Number.isNaN(scaleDecimal('-1', 6)));
    assert.ok(Number.isNaN(scaleDecimal('1e9', 6)));
  });

  it('reads Unix seconds from numbers and numeric strings', () => {
    assert.equal(secondsToMicros(1700000000), 1700000000_000000);
    assert.equal(secondsToMicros(1700000000.123456), 1700000000_123456);
    assert.equal(secondsToMicros(1718452800.001), 1718452800_001000);
    assert.equal(secondsToMicros('1700000000.5'), 1700000000_500000);
    assert.equal(secondsToMicros(0), 0);
    for (const bad of [-1, NaN, Infinity, 1e12, '1e9', 'x', '', true, null, {}]) {
      assert.ok(Number.isNaN(secondsToMicros(bad)), String(bad));
    }
  });

  it('picks the epoch unit by magnitude', () => {
    assert.equal(epochToMicros('1700000000'), 1700000000_000000);
    assert.equal(epochToMicros('1700000000123'), 1700000000_123000);
    assert.equal(epochToMicros('1700000000123456'), 1700000000_123456);
    assert.equal(epochToMicros('1700000000123456789'), 1700000000_123457);
  });

  it('parses document time values', () => {
    assert.equal(parseTimeValue('2024-01-02T03:04:05.5Z', NOW), utc(2024, 1, 2, 3, 4, 5, 500000));
    assert.equal(parseTimeValue('2024-01-02T03:04:05', NOW), utc(2024, 1, 2, 3, 4, 5));
    assert.equal(parseTimeValue('2024-01-02 03:04:05+01:00', NOW), utc(2024, 1, 2, 2, 4, 5));
    assert.equal(parseTimeValue('2024-01-02', NOW), utc(2024, 1, 2));
    assert.equal(parseTimeValue(1700000000, NOW), 1700000000_000000);
    assert.equal(parseTimeValue(1700000000123, NOW), 1700000000_123000);
    assert.equal(parseTimeValue('1700000000123', NOW), 1700000000_123000);
    assert.equal(parseTimeValue(' 1700000000.5 ', NOW), 1700000000_500000);
    assert.equal(parseTimeValue('Oct 11 22:14:15', NOW), utc(2023, 10, 11, 22, 14, 15));
    for (const bad of ['2024-01-02T03:04:05Z trailing', 'yesterday', '', true, null, [], {}, -5]) {
      assert.ok(Number.isNaN(parseTimeValue(bad, NOW)), JSON.stringify(bad));
    }
  });
});
