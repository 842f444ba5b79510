import { strict as assert } from 'assert';
import fc from 'fast-check';
import { createExtractor } from '../../../query/parse/index';
import type { ParseFormat } from '../../../query/syntax/ast';
import { fixtureLines } from './helpers';

const x = (format: ParseFormat, text: string): Record<string, unknown> => createExtractor(format, null).extract(text);

const COMBINED = [
  '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"',
  '2001:db8::1 - - [06/May/2024:07:08:09 +0000] "POST /api/v1/items?id=7 HTTP/2.0" 201 - "-" "curl/8.0 \\"quoted\\""',
  '10.0.0.2 - - [06/May/2024:07:08:10 +0000] "\\x16\\x03\\x01" 400 157 "-" "-"',
  '10.0.0.3 - - [06/May/2024:07:08:11 +0000] "-" 408 0 "-" "-" "forwarded-for" rt=0.001',
  '10.0.0.4 - alice [06/May/2024:07:08:12 +0000] "GET /index.html" 200 512',
];

describe('parse: combined and clf', () => {
  it('combined: every field, - is absent, numbers are numbers', () => {
    assert.deepEqual(x('combined', COMBINED[0]!), {
      client_ip: '127.0.0.1',
      user: 'frank',
      timestamp: '10/Oct/2000:13:55:36 -0700',
      method: 'GET',
      path: '/apache_pb.gif',
      protocol: 'HTTP/1.0',
      status: 200,
      bytes: 2326,
      referrer: 'http://www.example.com/start.html',
      user_agent: 'Mozilla/4.08 [en] (Win98; I ;Nav)',
    });
    assert.deepEqual(x('combined', COMBINED[1]!), {
      client_ip: '2001:db8::1',
      timestamp: '06/May/2024:07:08:09 +0000',
      method: 'POST',
      path: '/api/v1/items?id=7',
      protocol: 'HTTP/2.0',
      status: 201,
      user_agent: 'curl/8.0 "quoted"',
    });
    assert.deepEqual(
      x('combined', COMBINED[2]!),
      { client_ip: '10.0.0.2', timestamp: '06/May/2024:07:08:10 +0000', status: 400, bytes: 157 },
      'a garbage request line',
    );
    assert.deepEqual(
      x('combined', COMBINED[3]!),
      { client_ip: '10.0.0.3', timestamp: '06/May/2024:07:08:11 +0000', status: 408, bytes: 0 },
      'extra nginx fields ignored',
    );
    assert.deepEqual(
      x('combined', COMBINED[4]!),
      {
        client_ip: '10.0.0.4',
        user: 'alice',
        timestamp: '06/May/2024:07:08:12 +0000',
        method: 'GET',
        path: '/index.html',
        status: 200,
        bytes: 512,
      },
      'a clf line (and an HTTP/0.9 request)',
    );
    assert.deepEqual(createExtractor('combined', null).fields, [
      'client_ip',
      'user',
      'timestamp',
      'method',
      'path',
      'protocol',
      'status',
      'bytes',
      'referrer',
      'user_agent',
    ]);
  });

  it('clf: the common fields only', () => {
    const out = x('clf', COMBINED[0]!);
    assert.deepEqual(out, {
      client_ip: '127.0.0.1',
      user: 'frank',
      timestamp: '10/Oct/2000:13:55:36 -0700',
      method: 'GET',
      path: '/apache_pb.gif',
      protocol: 'HTTP/1.0',
      status: 200,
      bytes: 2326,
    });
    assert.deepEqual(createExtractor('clf', null).fields, [
      'client_ip',
      'user',
      'timestamp',
      'method',
      'path',
      'protocol',
      'status',
      'bytes',
    ]);
  });

  it('malformed lines give nothing', () => {
    for (const line of [
      '',
      '127.0.0.1',
      '127.0.0.1 - - 10/Oct/2000 "GET / HTTP/1.0" 200 1',
      '127.0.0.1 - - [10/Oct/2000 "GET / HTTP/1.0" 200 1',
      '127.0.0.1 - - [x] "GET / HTTP/1.0 200 1',
      '127.0.0.1 - - [x] "GET / HTTP/1.0" OK 1',
      ...fixtureLines('Apache_2k.log').slice(0, 20),
    ]) {
      assert.deepEqual(x('combined', line), {}, line);
      assert.deepEqual(x('clf', line), {}, line);
    }
  });
});

describe('parse: syslog', () => {
  it('RFC 3164 lines without PRI (OpenSSH, Linux fixtures)', () => {
    assert.deepEqual(x('syslog', 'Dec 10 07:07:38 LabSZ sshd[24206]: Invalid user test9 from 52.80.34.196'), {
      timestamp: 'Dec 10 07:07:38',
      host: 'LabSZ',
      appname: 'sshd',
      procid: 24206,
      message: 'Invalid user test9 from 52.80.34.196',
    });
    assert.deepEqual(x('syslog', 'Jun 15 04:12:42 combo su(pam_unix)[22644]: session opened for user news by (uid=0)'), {
      timestamp: 'Jun 15 04:12:42',
      host: 'combo',
      appname: 'su(pam_unix)',
      procid: 22644,
      message: 'session opened for user news by (uid=0)',
    });
    for (const file of ['OpenSSH_2k.log', 'Linux_2k.log']) {
      for (const line of fixtureLines(file)) {
        const out = x('syslog', line);
        assert.equal(typeof out.timestamp, 'string', line);
        assert.equal(typeof out.host, 'string', line);
        assert.equal(typeof out.message, 'string', line);
      }
    }
  });

  it('RFC 3164 with PRI, without a tag, with an RFC 3339 timestamp', () => {
    assert.deepEqual(x('syslog', "<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8"), {
      priority: 34,
      facility: 4,
      severity: 2,
      timestamp: 'Oct 11 22:14:15',
      host: 'mymachine',
      appname: 'su',
      message: "'su root' failed for lonvick on /dev/pts/8",
    });
    assert.deepEqual(x('syslog', '<13>Feb  5 17:32:18 10.0.0.99 Use the BFG!'), {
      priority: 13,
      facility: 1,
      severity: 5,
      timestamp: 'Feb  5 17:32:18',
      host: '10.0.0.99',
      message: 'Use the BFG!',
    });
    assert.deepEqual(x('syslog', '2024-05-06T07:08:09.123+02:00 web-1 nginx[77]: started'), {
      timestamp: '2024-05-06T07:08:09.123+02:00',
      host: 'web-1',
      appname: 'nginx',
      procid: 77,
      message: 'started',
    });
    assert.deepEqual(x('syslog', '<0>no timestamp here'), { priority: 0, facility: 0, severity: 0, message: 'no timestamp here' });
  });

  it('RFC 5424 with structured data', () => {
    const line =
      '<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="App\\"lication" ' +
      'eventID="1011"][examplePriority@32473 class="high"] \ufeffAn application event log entry...';
    assert.deepEqual(x('syslog', line), {
      priority: 165,
      facility: 20,
      severity: 5,
      timestamp: '2003-10-11T22:14:15.003Z',
      host: 'mymachine.example.com',
      appname: 'evntslog',
      msgid: 'ID47',
      'sd.exampleSDID@32473.iut': 3,
      'sd.exampleSDID@32473.eventSource': 'App"lication',
      'sd.exampleSDID@32473.eventID': 1011,
      'sd.examplePriority@32473.class': 'high',
      message: 'An application event log entry...',
    });
    assert.deepEqual(x('syslog', "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - BOM'su root' failed"), {
      priority: 34,
      facility: 4,
      severity: 2,
      timestamp: '2003-10-11T22:14:15.003Z',
      host: 'mymachine.example.com',
      appname: 'su',
      msgid: 'ID47',
      message: "BOM'su root' failed",
    });
    assert.deepEqual(x('syslog', '<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - -'), {
      priority: 165,
      facility: 20,
      severity: 5,
      timestamp: '2003-08-24T05:14:15.000003-07:00',
      host: '192.0.2.1',
      appname: 'myproc',
      procid: 8710,
    });
    assert.deepEqual(
      x('syslog', '<165>1 - - - - - [bad sd'),
      { priority: 165, facility: 20, severity: 5, message: '[bad sd' },
      'malformed SD: the rest is the message',
    );
    assert.deepEqual(x('syslog', '<165>1 -'), { priority: 165, facility: 20, severity: 5 });
  });

  it('not syslog: nothing', () => {
    for (const line of ['', 'hello', '<192>Oct 11 22:14:15 host x', '<x>1 - - -', '<12', ...fixtureLines('Apache_2k.log').slice(0, 10)]) {
      assert.deepEqual(x('syslog', line), {}, line);
    }
  });
});

describe('parse: property tests', () => {
  const FORMATS: Array<[ParseFormat, string | null]> = [
    ['json', null],
    ['kv', null],
    ['logfmt', null],
    ['combined', null],
    ['clf', null],
    ['syslog', null],
    ['regex', '(?<a>\\w+)=(?<b>[^ ]*)'],
    ['pattern', '<a> [<b>] "<c>" <_>'],
  ];
  const seeds = [
    ...COMBINED,
    '<165>1 2003-10-11T22:14:15.003Z h a p m [x y="z"] msg',
    'Dec 10 07:07:38 LabSZ sshd[24206]: x',
    '{"a":{"b":[1,2]},"c":"d"}',
    'a=1 b="x y" c',
    'k="v\\"w" z',
  ];
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom(...seeds),
    fc.tuple(fc.constantFrom(...seeds), fc.nat(), fc.nat(), fc.string()).map(([s, a, b, ins]) => {
      const i = a % (s.length + 1);
      return s.slice(0, i) + ins + s.slice(Math.min(s.length, i + (b % 5)));
    }),
  );

  it('extractors never throw and give only field values', () => {
    const extractors = FORMATS.map(([f, p]) => createExtractor(f, p));
    fc.assert(
      fc.property(text, (t) => {
        for (const e of extractors) {
          const out = e.extract(t);
          assert.equal(Object.getPrototypeOf(out), Object.prototype);
          for (const v of Object.values(out)) {
            assert.ok(
              typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)),
              `${String(v)} from ${JSON.stringify(t)}`,
            );
          }
          if (e.fields !== null) for (const k of Object.keys(out)) assert.ok(e.fields.includes(k), k);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('json agrees with JSON.parse on which texts are objects', () => {
    const json = createExtractor('json', null);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
          fc.string(),
        ),
        (t) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(t);
          } catch {
            parsed = undefined;
          }
          const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
          const out = json.extract(t);
          if (!isObject) assert.deepEqual(out, {}, t);
          else if (Object.entries(parsed as object).some(([k, v]) => k !== '' && v !== null && typeof v !== 'object')) {
            assert.ok(Object.keys(out).length > 0, t);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
