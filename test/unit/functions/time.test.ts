import { strict as assert } from 'assert';
import { breakDown, daysFromCivil, parseIsoMicros, parts } from '../../../query/functions/calendar';
import { FunctionArgumentError } from '../../../query/functions/types';
import { CTX, make, NOW } from './helpers';

const us = (iso: string): number => Date.parse(iso) * 1000;

function strftime(t: unknown, format: string, type: 'time' | 'number' | 'string' | 'any' = 'time'): unknown {
  return make('strftime', [type, 'string'], [undefined, format]).call([t as never, format]);
}

function strptime(s: unknown, format: string): unknown {
  return make('strptime', ['any', 'string'], [undefined, format]).call([s as never, format]);
}

describe('functions: time', () => {
  it('now(): the query clock, a time', () => {
    const f = make('now', []);
    assert.equal(f.resultType, 'time');
    assert.equal(f.call([]), CTX.nowMicros);
  });

  it('bin: floors to the size and keeps the type', () => {
    const t = make('bin', ['time', 'number'], [undefined, 300e6]);
    assert.equal(t.resultType, 'time');
    assert.equal(t.call([us('2024-05-06T07:08:09.123Z'), 300e6]), us('2024-05-06T07:05:00Z'));
    assert.equal(t.call([us('2024-05-06T07:05:00Z'), 300e6]), us('2024-05-06T07:05:00Z'));
    assert.equal(t.call([us('1969-12-31T23:58:00.5Z'), 300e6]), us('1969-12-31T23:55:00Z'), 'negative times floor down');
    assert.equal(make('bin', ['time', 'number']).call([NOW, 86400e6]), us('2024-05-06T00:00:00Z'));
    const n = make('bin', ['number', 'number']);
    assert.equal(n.resultType, 'number');
    assert.equal(n.call([1234, 100]), 1200);
    assert.equal(n.call([-1, 100]), -100);
    assert.equal(n.call([0.37, 0.25]), 0.25);
    assert.equal(n.call(['250', 100]), 200);
    assert.equal(n.call([null, 100]), null);
    assert.equal(n.call([5, 0]), null);
    assert.equal(n.call([5, -1]), null);
    assert.equal(n.call(['x', 10]), null);
    assert.equal(make('bin', ['any', 'number']).resultType, 'number');
  });

  it('strftime: directives, UTC, inputs as times, epoch seconds or ISO text', () => {
    const t = NOW; // 2024-05-06T07:08:09.123456Z, a Monday, day 127
    assert.equal(strftime(t, '%Y-%m-%d %H:%M:%S'), '2024-05-06 07:08:09');
    assert.equal(strftime(t, '%F %T.%3N|%6N|%N|%L|%f'), '2024-05-06 07:08:09.123|123456|123456000|123|123456');
    assert.equal(strftime(t, '%j %a %A %b %B %h %y %e %I %p %u %w'), '127 Mon Monday May May May 24  6 07 AM 1 1');
    assert.equal(strftime(t, '%z %Z %s %% %D %R %q'), '+0000 UTC 1714979289 % 05/06/24 07:08 %q');
    assert.equal(strftime(us('2023-12-31T23:59:59Z'), '%j %I %p %a'), '365 11 PM Sun');
    assert.equal(strftime(us('2024-12-31T12:00:00Z'), '%j %I %p'), '366 12 PM', 'leap year');
    assert.equal(strftime(0, '%Y%m%d'), '19700101');
    assert.equal(strftime(us('1969-07-20T20:17:40Z'), '%F %T %s'), '1969-07-20 20:17:40 -14182940');
    assert.equal(strftime(1714979289.5, '%T.%3N', 'number'), '07:08:09.500', 'a number is epoch seconds');
    assert.equal(strftime('2024-05-06T07:08:09.123456+02:00', '%T.%6N', 'string'), '05:08:09.123456', 'ISO text');
    assert.equal(strftime('1714979289', '%T', 'any'), '07:08:09', 'a numeric string is epoch seconds');
    assert.equal(strftime('not a time', '%T', 'string'), null);
    assert.equal(strftime(null, '%T'), null);
    assert.equal(strftime(true, '%T'), null);
    assert.equal(strftime(1e30, '%T'), null, 'outside the Date range');
    const dynamic = make('strftime', ['time', 'any']);
    assert.equal(dynamic.call([NOW, '%Y']), '2024');
    assert.equal(dynamic.call([NOW, '%m']), '05');
    assert.equal(dynamic.call([NOW, null]), null);
  });

  it('strptime: parses with the format, null when it does not match', () => {
    const f = make('strptime', ['string', 'string'], [undefined, '%Y']);
    assert.equal(f.resultType, 'time');
    assert.equal(strptime('2024-05-06 07:08:09', '%Y-%m-%d %H:%M:%S'), us('2024-05-06T07:08:09Z'));
    assert.equal(strptime('10/Oct/2000:13:55:36 -0700', '%d/%b/%Y:%H:%M:%S %z'), us('2000-10-10T13:55:36-07:00'));
    assert.equal(strptime('2024-05-06T07:08:09.123456Z', '%FT%T.%6N%z'), us('2024-05-06T07:08:09.123Z') + 456);
    assert.equal(strptime('2024-05-06T07:08:09.5+05:30', '%Y-%m-%dT%H:%M:%S.%N%z'), us('2024-05-06T07:08:09.5+05:30'));
    assert.equal(strptime('Mon, 06 May 2024 07:08:09 GMT', '%a, %d %b %Y %H:%M:%S %Z'), us('2024-05-06T07:08:09Z'));
    assert.equal(strptime('1714979289', '%s'), 1714979289e6);
    assert.equal(strptime('1714979289.25', '%s'), 1714979289.25e6);
    assert.equal(strptime('06/05/24 7:08 pm', '%d/%m/%y %I:%M %p'), us('2024-05-06T19:08:00Z'));
    assert.equal(strptime('12:30 AM', '%I:%M %p') !== null, true);
    assert.equal(strptime('2024 127', '%Y %j'), us('2024-05-06T00:00:00Z'));
    assert.equal(strptime('Dec 10 06:55:46', '%b %d %H:%M:%S'), us('2024-12-10T06:55:46Z'), 'no year: the year of now()');
    assert.equal(strptime('Jun  9 06:55:46', '%b %e %H:%M:%S'), us('2024-06-09T06:55:46Z'));
    assert.equal(strptime('  2024-05-06  ', '%Y-%m-%d'), null, 'leading space is not in the format');
    assert.equal(strptime('2024-05-06  ', '%Y-%m-%d'), us('2024-05-06T00:00:00Z'), 'trailing whitespace is fine');
    assert.equal(strptime('2024-05-06x', '%Y-%m-%d'), null, 'unconverted text');
    assert.equal(strptime('2024-02-30', '%Y-%m-%d'), null, 'no such day');
    assert.equal(strptime('2023-02-29', '%Y-%m-%d'), null);
    assert.equal(strptime('2024-13-01', '%Y-%m-%d'), null);
    assert.equal(strptime('24:00', '%H:%M'), null);
    assert.equal(strptime('13:00 PM', '%I:%M %p'), null);
    assert.equal(strptime('07:08 CEST', '%H:%M %Z'), null, 'ambiguous zone names do not match');
    assert.equal(strptime('', '%Y'), null);
    assert.equal(strptime(null, '%Y'), null);
    assert.equal(strptime(20240506, '%Y%m%d'), us('2024-05-06T00:00:00Z'), 'a number is read as its text');
    assert.equal(strptime('100%', '100%%'), us('2024-01-01T00:00:00Z'));
    const dynamic = make('strptime', ['string', 'any']);
    assert.equal(dynamic.call(['2024', '%Y']), us('2024-01-01T00:00:00Z'));
    assert.equal(dynamic.call(['2024', null]), null);
    assert.equal(make('strptime', ['string', 'any'], [undefined, null]).call(['2024', null]), null);
  });

  it('strftime and strptime round-trip', () => {
    const format = '%Y-%m-%dT%H:%M:%S.%6N%z';
    for (let i = 0; i < 500; i++) {
      const t = Math.floor((Math.random() - 0.3) * 4e15);
      const text = strftime(t, format) as string;
      assert.equal(strptime(text, format), t, text);
    }
  });

  it('calendar helpers agree with Date', () => {
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor((Math.random() - 0.5) * 2e14);
      const d = new Date(ms);
      breakDown(ms * 1000);
      assert.deepEqual(
        [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second, parts.wday],
        [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCDay()],
      );
      assert.equal(daysFromCivil(parts.year, parts.month, parts.day), Math.floor(ms / 86400000));
    }
    assert.equal(parseIsoMicros('2024-05-06'), us('2024-05-06T00:00:00Z'));
    assert.equal(parseIsoMicros('2024-05-06 07:08'), us('2024-05-06T07:08:00Z'));
    assert.equal(parseIsoMicros('2024-05-06T07:08:09,5-0130'), us('2024-05-06T07:08:09.5-01:30'));
    assert.ok(Number.isNaN(parseIsoMicros('2024-05-06T')));
    assert.ok(Number.isNaN(parseIsoMicros('May 6 2024')));
  });

  it('non-string constant formats are null, not errors', () => {
    assert.equal(make('strftime', ['time', 'number'], [undefined, 5]).call([NOW, 5]), null);
    assert.ok(!(make('strftime', ['time', 'string'], [undefined, '%Q']) instanceof FunctionArgumentError));
  });
});
