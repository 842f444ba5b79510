/**
 * The native fast path (node/ingest/native-scan.ts) against the general path (JSON.parse,
 * parseNativeBatch, chunkEvents): on any body, the fast path either hands over (null) or builds
 * byte-identical chunk records; on a body the general path refuses or partly rejects, it hands over.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { ApiError } from '../../../node/core/errors';
import type { IngestContext } from '../../../node/ingest/common';
import { bodyText } from '../../../node/ingest/format-dispatch';
import { parseNativeBatch } from '../../../node/ingest/native';
import { scanNativeBatch } from '../../../node/ingest/native-scan';
import { MAX_FIELDS_PER_EVENT } from '../../../node/ingest/refusal';
import { encodeChunkRecord } from '../../../storage/buffer/chunk-record';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { Placement } from '../../../storage/core/partition';
import { EventGenerator } from '../../../scripts/bench/generate';
import { ctx } from './helpers';

const HOUR = 3_600_000_000;
const ONE: Placement = { bucketSpanMicros: HOUR, partitions: 1 };
const FOUR: Placement = { bucketSpanMicros: HOUR, partitions: 4 };
const SIXTEEN: Placement = { bucketSpanMicros: HOUR, partitions: 16 };
/**
 * A narrow window of accepted times (as retention and ingest.max_future make one), received inside
 * it: the generators' times fall on both sides of it and on its edges.
 */
const WINDOW = ctx({ receivedAtMicros: 1_700_001_000_000_000, oldestMicros: 1_700_000_000_000_000, newestMicros: 1_700_003_600_250_000 });

/** The general path's record, or null when it refuses the body or rejects an element. */
function generalRecord(body: Buffer, placement: Placement, context: IngestContext): Buffer | null {
  try {
    const result = parseNativeBatch(bodyText(body), context);
    if (result.failed > 0) return null;
    return encodeChunkRecord(chunkEvents(result.events, placement), placement);
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/** Asserts the two paths agree; returns whether the fast path took the body. */
function agree(body: Buffer, placement = ONE, context = ctx()): boolean {
  const fast = scanNativeBatch(body, context, placement);
  const general = generalRecord(body, placement, context);
  if (fast === null) return false;
  assert.notEqual(general, null, `the fast path took a body the general path refuses: ${body.toString('utf8').slice(0, 300)}`);
  const record = encodeChunkRecord(fast, placement);
  assert.ok(record.equals(general as Buffer), `records differ for ${body.toString('utf8').slice(0, 300)}`);
  return true;
}

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Numbers JSON can write but float64 cannot hold (they parse to ±Infinity), written out by valueText. */
const HUGE = { json: '1e400' };
const HUGE_NEGATIVE = { json: '-1e999' };
const huge = fc.constantFrom(HUGE, HUGE_NEGATIVE);

/** A generated value's JSON text. */
function valueText(v: unknown): string {
  return v === HUGE || v === HUGE_NEGATIVE ? (v as { json: string }).json : JSON.stringify(v);
}

/** Values that meet the mapping rules' corners. */
const scalar = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom('', 'web-1', 'web-2', 'nginx', 'é', 'a"b', 'x\\y', 'line\nbreak', '\u0001', '\ud800', '\ud83d\ude00', '__proto__'),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true }),
  fc.constantFrom(0, -0, 1.5, 1e21, 12345678901234567000, 0.1, 1700000000.123456, 2 ** 53 + 1),
  fc.boolean(),
  fc.constant(null),
  huge,
);
const fieldName = fc.oneof(
  fc.constantFrom(
    'status',
    'path',
    'host',
    'source',
    'sourcetype',
    'level',
    'user',
    '_time',
    '_raw',
    'index',
    '__proto__',
    '',
    '1',
    '01',
    'a.b',
    'é',
  ),
  fc.string({ maxLength: 6 }),
);
const fieldsObject = fc.array(
  fc.tuple(fieldName, fc.oneof({ weight: 4, arbitrary: scalar }, fc.constant({ nested: 1 }), fc.constant([1]))),
  { maxLength: 6 },
);
const label = fc.oneof(fc.constantFrom('web-1', 'web-2', 'nginx', '', 'é'), fc.constant(null), fc.integer());
const element = fc.record(
  {
    event: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('GET "/a" 200', 'é ü', 'tab\there', '{"json":true}'), scalar),
    time: fc.oneof(
      // WINDOW's edges and either side of them, and times JSON or the range refuse.
      fc.constantFrom(
        1700000000,
        1699999999.999999,
        1700000000.5,
        1700003600.25,
        1700003600.250001,
        1700003601,
        1e12,
        -5,
        null,
        '1700000000',
      ),
      huge,
      fc.double({ min: 1.6e9, max: 1.8e9, noNaN: true }),
      fc.double({ min: 1_699_999_990, max: 1_700_003_610, noNaN: true }),
    ),
    index: fc.constantFrom('main', 'web', '', null, 'Bad Name', 'a\\u0062'),
    host: label,
    source: label,
    sourcetype: label,
    fields: fc.oneof(fieldsObject, fc.constant(null), fc.constant('x')),
    extra: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 3 })),
  },
  { requiredKeys: ['event'] },
);

/** JSON text of an element, with `fields` as written pairs (duplicates and key order kept). */
function elementText(el: Record<string, unknown>, spacing: string): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(el)) {
    if (value === undefined) continue;
    if (key === 'fields' && Array.isArray(value)) {
      const pairs = (value as [string, unknown][]).map(([k, v]) => `${JSON.stringify(k)}:${spacing}${valueText(v)}`);
      parts.push(`"fields":{${pairs.join(',' + spacing)}}`);
    } else {
      parts.push(`${JSON.stringify(key)}:${spacing}${valueText(value)}`);
    }
  }
  return `{${parts.join(',' + spacing)}}`;
}

const body = fc
  .tuple(fc.array(element, { maxLength: 6 }), fc.constantFrom('', ' ', '\n  '))
  .map(([elements, spacing]) => `${spacing}[${elements.map((el) => elementText(el, spacing)).join(',')}]${spacing}`);

/**
 * Bodies of hundreds of events from a few (host, source) pairs, given at the top level or in
 * `fields`, escaped or not: pairs past 256 events in a body spill into further partitions.
 */
const pairLabel = fc.oneof(fc.constantFrom('web-1', 'web-2', 'é', '', 'a"b', 'x\\y'), fc.constant(null));
const pairElement = fc.record(
  {
    event: fc.string({ maxLength: 12 }),
    time: fc.oneof(fc.constant(null), fc.integer({ min: 1_700_000_000, max: 1_700_010_000 })),
    index: fc.constantFrom('main', 'web'),
    host: pairLabel,
    source: pairLabel,
    fields: fc.array(fc.tuple(fc.constantFrom('host', 'source', 'status', 'user'), fc.oneof(pairLabel, fc.integer({ min: 0, max: 9 }))), {
      maxLength: 3,
    }),
  },
  { requiredKeys: ['event'] },
);
const spillingBody = fc
  .tuple(
    fc.array(pairElement, { minLength: 1, maxLength: 5 }),
    // The first element's pair sends most of a body (some 300 or more events): it spills.
    fc.array(fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: 4 }) }), {
      minLength: 400,
      maxLength: 1200,
      size: 'max',
    }),
  )
  .map(([palette, picks]) => `[${picks.map((pick) => elementText(palette[pick % palette.length], '')).join(',')}]`);

/** Valid, accepted bodies of the shapes shippers send: the fast path must take these. */
const plainElement = fc.record({
  event: fc.string({ maxLength: 40 }).filter((s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()),
  time: fc.integer({ min: 1_600_000_000, max: 1_800_000_000 }),
  host: fc.constantFrom('web-1', 'web-2'),
  fields: fc.dictionary(
    fc.constantFrom('status', 'path', 'ms', 'ok', 'user'),
    fc.oneof(fc.integer(), fc.constantFrom('a', 'b', 'é'), fc.boolean()),
  ),
});
const plainElements = fc.array(plainElement, { minLength: 1, maxLength: 8 });
const plainBody = plainElements.map((elements) => JSON.stringify(elements));

describe('native ingest fast path', () => {
  it('builds the same chunk records as the general path, or hands over', () => {
    let taken = 0;
    let takenInWindow = 0;
    fc.assert(
      fc.property(body, (s) => {
        if (agree(text(s))) taken++;
        agree(text(s), FOUR);
        if (agree(text(s), ONE, WINDOW)) takenInWindow++;
        agree(text(s), FOUR, WINDOW);
      }),
      { numRuns: 1500 },
    );
    // The generator is meant to reach the fast path often, not only its refusals.
    assert.ok(taken > 150, `the fast path took only ${taken} of 1500 bodies`);
    assert.ok(takenInWindow > 50, `the fast path took only ${takenInWindow} of 1500 bodies in the narrow window`);
  });

  it('builds the same chunk records as the general path when hot pairs spill over partitions', () => {
    let taken = 0;
    fc.assert(
      fc.property(spillingBody, (s) => {
        if (agree(text(s), SIXTEEN)) taken++;
        agree(text(s), FOUR);
        agree(text(s), ONE);
      }),
      { numRuns: 60 },
    );
    assert.ok(taken > 15, `the fast path took only ${taken} of 60 bodies`);
  });

  it('hands over a body with a time outside the window, on the edges exactly where the general path refuses', () => {
    const at = (time: number): Buffer => text(`[{"event":"a","time":${time}},{"event":"b"}]`);
    for (const time of [1700000000, 1700000000.000001, 1700003600.25, 1700003600.249999]) {
      assert.equal(agree(at(time), ONE, WINDOW), true, `${time} is inside`);
    }
    for (const time of [1699999999.999999, 1700003600.250001, 1600000000, 1800000000]) {
      assert.equal(scanNativeBatch(at(time), WINDOW, ONE), null, `${time} is outside`);
      const general = parseNativeBatch(bodyText(at(time)), WINDOW);
      assert.deepEqual(
        general.errors.map((error) => error.item),
        [0],
      );
      assert.match(general.errors[0]!.code, /^too_old$|^too_far_in_future$/);
    }
  });

  it('hands over an event past the field limit, with or without top-level labels, where the general path refuses it', () => {
    const labels = ',"host":"h","source":"s","sourcetype":"t"';
    for (const withLabels of [false, true]) {
      for (let count = MAX_FIELDS_PER_EVENT - 5; count <= MAX_FIELDS_PER_EVENT + 2; count++) {
        const fields = Array.from({ length: count }, (_, i) => `"f${i}":${i}`).join(',');
        const body = text(`[{"event":"a"${withLabels ? labels : ''},"fields":{${fields}}}]`);
        const took = agree(body);
        const general = parseNativeBatch(bodyText(body), ctx());
        const stored = count + (withLabels ? 3 : 0);
        assert.equal(general.failed, stored > MAX_FIELDS_PER_EVENT ? 1 : 0, `${stored} fields`);
        if (stored > MAX_FIELDS_PER_EVENT) assert.equal(took, false);
      }
    }
  });

  it('takes the plain bodies shippers send', () => {
    fc.assert(
      fc.property(plainBody, (s) => {
        assert.equal(agree(text(s)), true, s);
      }),
      { numRuns: 300 },
    );
  });

  it('hands over a plain body once one of its numbers is past float64; the general path refuses that element alone', () => {
    fc.assert(
      fc.property(plainElements, fc.nat(), huge, (elements, at, number) => {
        const bad = at % elements.length;
        const texts = elements.map((el, i) => {
          const pairs = Object.entries(el.fields).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
          if (i === bad) pairs.push(`"big-number":${valueText(number)}`);
          return `{"event":${JSON.stringify(el.event)},"time":${el.time},"host":${JSON.stringify(el.host)},"fields":{${pairs.join(',')}}}`;
        });
        const s = text(`[${texts.join(',')}]`);
        assert.equal(scanNativeBatch(s, ctx(), ONE), null);
        const general = parseNativeBatch(bodyText(s), ctx());
        assert.deepEqual(
          general.errors.map((error) => [error.item, error.code]),
          [[bad, 'non_finite_number']],
        );
        assert.equal(general.events.length, elements.length - 1);
      }),
      { numRuns: 200 },
    );
  });

  it('agrees on mutated bodies: any byte edit either hands over or maps the same', () => {
    const base = elementsOf(40);
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.nat({ max: base.length }),
            fc.nat({ max: 4 }),
            fc.constantFrom('"', '\\', ',', '}', ']', '{', 'u', 'null', '1e', '-', ' ', '\u0001', 'é', '\\u00e9', ':'),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        (edits) => {
          let s = base;
          for (const [at, del, ins] of edits) s = s.slice(0, Math.min(at, s.length)) + ins + s.slice(Math.min(at, s.length) + del);
          agree(text(s));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('takes the bench generator bodies (escaped quotes, JSON lines, mixed shapes)', () => {
    assert.equal(agree(text(elementsOf(2000))), true);
  });

  it('keeps each event text whichever chunk it lands in, however long', () => {
    // Longer than the room a chunk's list makes for it (see RAW_RESERVE).
    const long = 'x'.repeat(300_000) + '\\"q\\"';
    const events = [
      `{"event":"first","time":1700000000}`,
      `{"event":"${long}","time":1700000001}`,
      `{"event":"other hour","time":1700007200}`,
      `{"event":"back","time":1700000002}`,
      `{"event":"long ${long.slice(0, 100_000)}","time":1700007201}`,
      `{"event":"main again","time":1700000003,"index":"web"}`,
    ];
    assert.equal(agree(text(`[${events.join(',')}]`)), true);
    // The first event has no chunk to go to yet: the scratch buffer grows for it.
    assert.equal(agree(text(`[{"event":"${long}"},{"event":"${long}"}]`)), true);
  });

  it('reads numbers exactly as JSON.parse does', () => {
    const numbers = [
      '0',
      '-0',
      '0.1',
      '1.5e3',
      '-2E-3',
      '123456789012345',
      '1234567890123456',
      '12345678901234567890',
      '0.000001',
      '9007199254740993',
      '1.7976931348623157e308',
      '5e-324',
    ];
    for (const n of numbers) {
      const s = `[{"event":"x","time":1700000000,"fields":{"n":${n}}}]`;
      assert.equal(agree(text(s)), true, n);
    }
    // Past float64 (they parse to ±Infinity): the general path refuses the element, saying why.
    for (const n of ['1e999', '-1e999', '1.7976931348623159e308', '9'.repeat(400)]) {
      const s = text(`[{"event":"x","time":1700000000,"fields":{"n":${n}}}]`);
      assert.equal(scanNativeBatch(s, ctx(), ONE), null, n);
      assert.deepEqual(
        parseNativeBatch(bodyText(s), ctx()).errors.map((error) => error.code),
        ['non_finite_number'],
        n,
      );
    }
    fc.assert(
      fc.property(fc.double(), fc.integer({ min: 0, max: 17 }), (v, digits) => {
        if (!Number.isFinite(v)) return;
        agree(text(`[{"event":"x","fields":{"a":${v.toFixed(Math.min(digits, 100))},"b":${v}}}]`));
      }),
      { numRuns: 500 },
    );
  });

  it('hands over what only the general path maps: duplicates, nesting, integer keys, label numbers, lone surrogates', () => {
    const handedOver = [
      '[{"event":"a","fields":{"a":1,"a":null}}]',
      '[{"event":"a","fields":{"a":null,"b":1,"a":2}}]',
      '[{"event":"a","fields":{"a":{"b":1}}}]',
      '[{"event":"a","fields":{"b":1,"1":2}}]',
      '[{"event":"a","fields":{"level":5}}]',
      '[{"event":"a","host":5}]',
      '[{"event":"\\ud800"}]',
      '[{"event":"a","event":"b"}]',
      '[{"event":"a","time":"1700000000"}]',
      '[{"event":"a","index":"Bad"}]',
      '[{"time":1}]',
      '[{"event":"a"},]',
      '[{"event":"a"}] x',
      '{"event":"a"}',
      '',
    ];
    for (const s of handedOver) {
      assert.equal(scanNativeBatch(text(s), ctx(), ONE), null, s);
      agree(text(s));
    }
    // Not valid UTF-8: the general path decodes it with replacement characters.
    assert.equal(
      scanNativeBatch(Buffer.from([0x5b, 0x7b, 0x22, 0x65, 0x76, 0x65, 0x6e, 0x74, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d, 0x5d]), ctx(), ONE),
      null,
    );
  });

  it('maps labels as native.ts does: top-level wins in place, else goes after the fields', () => {
    const cases = [
      '[{"event":"a","host":"h1","fields":{"x":1,"host":"inner","y":2}}]',
      '[{"event":"a","host":"h1","fields":{"x":1,"host":null,"y":2}}]',
      '[{"fields":{"x":1},"source":"s","event":"a","sourcetype":"t","host":"h"}]',
      '[{"event":"a","host":"","source":null,"fields":{"host":"kept"}}]',
      '[{"event":"a","fields":{"host":5}, "host":"h"}]',
      '[{"event":"caf\\u00e9 \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t","fields":{"s":"\\u20ac","t":"\\u0041"}}]',
      '[{"event":"a","index":"web","time":1700000000},{"event":"b","index":"web","time":1700009000},{"event":"c"}]',
    ];
    for (const s of cases) assert.equal(agree(text(s)), true, s);
    for (const s of cases) agree(text(s), FOUR);
  });

  it('leaves an empty or reserved name in fields to the general path, which refuses the event with the name', () => {
    for (const name of ['_time', 'index', '', '__proto__', '_raw']) {
      const body = text(`[{"event":"a","fields":{${JSON.stringify(name)}:1,"ok":true}},{"event":"b"}]`);
      assert.equal(scanNativeBatch(body, ctx(), ONE), null, name);
      assert.equal(agree(body), false, name);
    }
    // A null value is an absent field whatever its name: the fast path takes it.
    assert.equal(agree(text('[{"event":"a","fields":{"_time":null,"ok":true}}]')), true);
  });
});

/** A body of `count` bench events (nginx lines and JSON application logs). */
function elementsOf(count: number): string {
  const generator = new EventGenerator(7, 1_700_000_000_000, 50);
  return JSON.stringify(Array.from({ length: count }, () => generator.next()));
}
