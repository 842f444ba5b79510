/**
 * Property tests: every parser, on any input, returns only valid events or throws an ApiError.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { LogEvent } from '../../../storage/core/event';
import { ApiError } from '../../../node/core/errors';
import { parseBulk, parseEsDoc } from '../../../node/ingest/bulk';
import { parseHecLines } from '../../../node/ingest/hec';
import { parseNativeBatch } from '../../../node/ingest/native';
import { parseOtlpLogs } from '../../../node/ingest/otlp';
import { parseRawLines } from '../../../node/ingest/raw';
import { assertValidEvent, ctx, NOW } from './helpers';

const RUNS = 300;

/** Runs `parse`; an ApiError is fine, anything else fails; returned events must be valid. */
function check(parse: () => { events: LogEvent[] } | LogEvent[]): void {
  let out: { events: LogEvent[] } | LogEvent[];
  try {
    out = parse();
  } catch (e) {
    if (e instanceof ApiError) return;
    throw e;
  }
  for (const ev of Array.isArray(out) ? out : out.events) assertValidEvent(ev);
}

/** Fragments that steer random text into the hand-written scanners. */
const TOKENS = [
  '2024',
  '-',
  '/',
  '01',
  '12',
  '29',
  '31',
  '60',
  'T',
  ' ',
  '  ',
  ':',
  '.',
  ',',
  'Z',
  '+07:00',
  '-0700',
  '+',
  '<34>',
  '<191>',
  '1 ',
  '[',
  ']',
  'Oct',
  'Feb',
  'Sun',
  'Mon,',
  '1700000000',
  '1700000000123',
  '9999999999',
  '081109',
  '203615',
  '17/06/09',
  '20171223-',
  '03-17',
  '{',
  '}',
  '"',
  '\\',
  '"a":',
  '"time":',
  '"@timestamp":',
  '"level":',
  'ERROR',
  'warn',
  'Info',
  '[error]',
  'level=',
  'host',
  'sshd[12]:',
  ': ',
  '\n',
  '\r',
  '\t',
  '0',
  '9',
  'é',
  '\u{1F600}',
  '\u0000',
  '-',
  'null',
];
const logish = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((t) => t.join(''));
const anyText = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), logish);

/** Splices random text into a valid body: deletions, insertions, replacements. */
function mutated(base: string): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(fc.nat({ max: base.length }), fc.nat({ max: 8 }), fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 4 }))), {
      minLength: 1,
      maxLength: 6,
    })
    .map((edits) => {
      let s = base;
      for (const [at, del, ins] of edits) {
        const i = Math.min(at, s.length);
        s = s.slice(0, i) + ins + s.slice(i + del);
      }
      return s;
    });
}

const jsonText = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v));
const scalarish = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  logish,
  fc.constantFrom(1700000000, 1e12, -1, 1e308, '1700000000', 'Main', 'main', '', '2024-01-02T03:04:05Z'),
);
const value = fc.oneof(scalarish, fc.jsonValue({ maxDepth: 3 }));

const nativeElement = fc.record(
  {
    event: value,
    time: value,
    source: value,
    sourcetype: value,
    host: value,
    index: value,
    fields: fc.oneof(value, fc.dictionary(fc.string({ maxLength: 8 }), value)),
  },
  { requiredKeys: [] },
);
const nativeBody = fc.array(fc.oneof(nativeElement, value), { maxLength: 8 }).map((a) => JSON.stringify(a));

const hecObject = fc.record(
  {
    event: fc.oneof(value, fc.dictionary(fc.string({ maxLength: 8 }), value)),
    time: value,
    host: value,
    source: value,
    sourcetype: value,
    index: value,
    fields: value,
  },
  { requiredKeys: [] },
);
const hecBody = fc
  .array(fc.tuple(hecObject, fc.constantFrom('\n', '', ' ', '\r\n')), { maxLength: 8 })
  .map((a) => a.map(([o, sep]) => JSON.stringify(o) + sep).join(''));

const actionName = fc.constantFrom('index', 'create', 'update', 'delete', 'upsert');
const bulkBody = fc
  .array(
    fc.tuple(
      actionName,
      fc.record({ _index: value, _id: value, _type: value }, { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 10 }), value),
    ),
    { maxLength: 6 },
  )
  .map((items) => items.map(([a, meta, doc]) => `${JSON.stringify({ [a]: meta })}\n${JSON.stringify(doc)}`).join('\n') + '\n');

const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.record({ stringValue: fc.oneof(fc.string(), value) }),
    fc.record({ intValue: fc.oneof(fc.integer(), fc.stringMatching(/^-?\d{1,22}$/), value) }),
    fc.record({ doubleValue: value }),
    fc.record({ boolValue: value }),
    fc.record({ bytesValue: value }),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('v'), { maxLength: 3 }) }) }),
    fc.record({
      kvlistValue: fc.record({
        values: fc.array(fc.record({ key: fc.oneof(fc.string({ maxLength: 6 }), value), value: tie('v') }), { maxLength: 3 }),
      }),
    }),
    value,
  ),
})).v;
const attrs = fc.array(
  fc.record({
    key: fc.oneof(fc.constantFrom('service.name', 'host.name', 'deployment.environment', 'index', 'level'), fc.string({ maxLength: 8 })),
    value: anyValue,
  }),
  { maxLength: 4 },
);
const otlpBody = fc
  .record({
    resourceLogs: fc.array(
      fc.record(
        {
          resource: fc.record({ attributes: attrs }),
          scopeLogs: fc.array(
            fc.record(
              {
                scope: fc.oneof(fc.record({ name: value, version: value }), value),
                logRecords: fc.array(
                  fc.record(
                    {
                      timeUnixNano: fc.oneof(value, fc.stringMatching(/^\d{1,21}$/)),
                      observedTimeUnixNano: value,
                      severityText: value,
                      severityNumber: fc.oneof(fc.integer({ min: -2, max: 30 }), value),
                      body: anyValue,
                      attributes: attrs,
                      traceId: value,
                      spanId: value,
                    },
                    { requiredKeys: [] },
                  ),
                  { maxLength: 3 },
                ),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 2 },
          ),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 2 },
    ),
  })
  .map((o) => JSON.stringify(o));

const VALID_NATIVE = JSON.stringify([{ event: 'a', time: 1700000000.5, host: 'h', index: 'x', fields: { a: { b: [1] } } }, { event: 'b' }]);
const VALID_HEC =
  '{"event":"Oct 11 22:14:15 h a: ERROR x","time":"1700000000"}\n{"event":{"ts":1700000000123,"level":"warn"},"fields":{"f":1}}';
const VALID_BULK =
  '{"index":{"_index":"a","_id":"1"}}\n{"@timestamp":"2024-01-02T03:04:05Z","host":{"name":"h"}}\n{"delete":{"_id":"2"}}\n';
const VALID_OTLP = JSON.stringify({
  resourceLogs: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 's' } }] },
      scopeLogs: [
        {
          logRecords: [
            {
              timeUnixNano: '1700000000000000000',
              body: { stringValue: 'x' },
              severityNumber: 9,
              attributes: [{ key: 'k', value: { kvlistValue: { values: [{ key: 'a', value: { intValue: '1' } }] } } }],
            },
          ],
        },
      ],
    },
  ],
});
const VALID_RAW =
  '<34>1 2003-10-11T22:14:15.003Z host app - - x\n{"time":"2024-01-02T03:04:05Z","level":"error"}\n127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /"\n[Sun Dec 04 04:47:44 2005] [error] x';

describe('ingest parsers under fuzzing', function () {
  this.timeout(120_000);
  const pipelineFlag = fc.boolean();
  const run = (arb: fc.Arbitrary<string>, parse: (body: string, pipeline: boolean) => { events: LogEvent[] } | LogEvent[]): void =>
    fc.assert(
      fc.property(arb, pipelineFlag, (body, p) => check(() => parse(body, p))),
      { numRuns: RUNS },
    );

  const parsers: [string, (body: string, pipeline: boolean) => { events: LogEvent[] } | LogEvent[], fc.Arbitrary<string>, string][] = [
    ['native', (b, p) => parseNativeBatch(b, ctx({ pipeline: p })), nativeBody, VALID_NATIVE],
    ['raw', (b, p) => parseRawLines(b, {}, ctx({ pipeline: p })), logish, VALID_RAW],
    ['hec', (b, p) => parseHecLines(b, ctx({ pipeline: p })), hecBody, VALID_HEC],
    ['bulk', (b, p) => parseBulk(b, ctx({ pipeline: p }), 'seed'), bulkBody, VALID_BULK],
    [
      'es doc',
      (b, p) => [parseEsDoc(b, 'idx', ctx({ pipeline: p }), 'seed').event].filter((ev) => ev !== null),
      jsonText,
      VALID_BULK.split('\n')[1]!,
    ],
    ['otlp', (b, p) => parseOtlpLogs(b, ctx({ pipeline: p })), otlpBody, VALID_OTLP],
  ];

  for (const [name, parse, structured, valid] of parsers) {
    describe(name, () => {
      it('arbitrary text', () => run(anyText, parse));
      it('arbitrary JSON values', () => run(jsonText, parse));
      it('structured bodies with odd values', () => run(structured, parse));
      it('mutated valid bodies', () => run(mutated(valid), parse));
      it('the valid body itself gives events', () => {
        const out = parse(valid, true);
        assert.ok((Array.isArray(out) ? out : out.events).length > 0);
      });
    });
  }

  it('raw lines: inferred years never put a time more than a day ahead', () => {
    fc.assert(
      fc.property(logish, (line) => {
        for (const ev of parseRawLines(line, {}, ctx()).events) {
          assertValidEvent(ev);
          // Only year-less formats are bounded by the receive time; explicit years (2024-12-31) may lie ahead.
          if (ev.time !== NOW && !line.includes('2024') && !/\d{10}/.test(line)) assert.ok(ev.time <= NOW + 86_400_000_000, line);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('pathological inputs finish quickly', () => {
    const big = [
      '['.repeat(100_000),
      '{'.repeat(100_000),
      `[${'{"event":"x"},'.repeat(20_000)}{"event":"y"}]`,
      '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000),
      `{${'"a":1,'.repeat(50_000)}"b":2}`,
      '{"event":"x"}'.repeat(20_000),
      'Oct 11 22:14:15 '.repeat(10_000),
      `${'9'.repeat(100_000)}`,
      `${'a '.repeat(100_000)}`,
      `${'{"index":{}}\n'.repeat(20_000)}`,
      `1.1.1.1 ${'x'.repeat(100_000)}`,
    ];
    const t0 = Date.now();
    for (const body of big) {
      for (const [, parse] of parsers) check(() => parse(body, true));
    }
    assert.ok(Date.now() - t0 < 30_000);
  });
});
