/**
 * Per-event refusals (node/ingest/refusal.ts) through every parser: events outside the accepted time
 * window, over the field limit, or holding a number float64 cannot hold are refused whole with a
 * reason, and the rest of the request is accepted. The window's oldest edge is retention's cutoff.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { parseBulk, parseEsDoc, type BulkItem, type BulkItemResult } from '../../../node/ingest/bulk';
import { ingestContext, type IngestContext } from '../../../node/ingest/common';
import { noEventAccepted, parseHecLines } from '../../../node/ingest/hec';
import { parseNativeBatch } from '../../../node/ingest/native';
import { parseOtlpLogs, partialSuccess } from '../../../node/ingest/otlp';
import { parseRawLines } from '../../../node/ingest/raw';
import { checkEvent, MAX_FIELDS_PER_EVENT } from '../../../node/ingest/refusal';
import { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import { assertValidEvent, NOW } from './helpers';

const DAY_MS = 86_400_000;
const SECOND = 1_000_000;
/** Received at NOW (2024-06-15T12:00:00Z), retention 7d, ingest.max_future 1d: the defaults. */
const CTX: IngestContext = ingestContext(NOW / 1000, true, 7 * DAY_MS, DAY_MS);
const OLDEST = NOW - 7 * DAY_MS * 1000;
const NEWEST = NOW + DAY_MS * 1000;
/** Unix seconds: a year back, an hour ago, two days ahead. */
const YEAR_BACK = (NOW - 365 * DAY_MS * 1000) / SECOND;
const HOUR_AGO = (NOW - 3_600 * SECOND) / SECOND;
const TWO_DAYS_AHEAD = (NOW + 2 * DAY_MS * 1000) / SECOND;

function event(time: number, fields: LogEvent['fields'] = {}): LogEvent {
  return { time, raw: 'x', index: 'main', fields };
}

function manyFields(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, i]));
}

const entry = (item: BulkItem): [string, BulkItemResult] => Object.entries(item)[0] as [string, BulkItemResult];

describe('ingest refusals', () => {
  describe('checkEvent', () => {
    it('accepts times from the oldest to the newest of the window, both included', () => {
      assert.equal(CTX.oldestMicros, OLDEST);
      assert.equal(CTX.newestMicros, NEWEST);
      for (const time of [OLDEST, NOW, NEWEST]) assert.equal(checkEvent(event(time), CTX), null, String(time));
      assert.equal(checkEvent(event(OLDEST - 1), CTX)?.reason, 'too_old');
      assert.equal(checkEvent(event(NEWEST + 1), CTX)?.reason, 'too_far_in_future');
    });

    it('says which time, and what the window is, in ISO 8601', () => {
      assert.equal(
        checkEvent(event(OLDEST - 1), CTX)?.message,
        'event time 2024-06-08T11:59:59.999999Z is older than retention allows: the oldest time accepted now is 2024-06-08T12:00:00.000000Z (retention would delete the event at once)',
      );
      assert.equal(
        checkEvent(event(NEWEST + 1), CTX)?.message,
        'event time 2024-06-16T12:00:00.000001Z is further ahead than ingest.max_future allows: the newest time accepted now is 2024-06-16T12:00:00.000000Z',
      );
    });

    it(`accepts ${MAX_FIELDS_PER_EVENT} fields and refuses one more, saying how many`, () => {
      assert.equal(checkEvent(event(NOW, manyFields(MAX_FIELDS_PER_EVENT)), CTX), null);
      const refusal = checkEvent(event(NOW, manyFields(MAX_FIELDS_PER_EVENT + 1)), CTX);
      assert.equal(refusal?.reason, 'too_many_fields');
      assert.match(refusal.message, /^the event has 1001 fields \(flattened names count\); at most 1000 are stored per event/);
    });

    it('refuses a non-finite number, naming the field', () => {
      for (const value of [Infinity, -Infinity, NaN]) {
        const refusal = checkEvent(event(NOW, { ok: 1, 'a.b': value }), CTX);
        assert.equal(refusal?.reason, 'non_finite_number');
        assert.match(refusal.message, /^field 'a\.b' holds a number outside the 64-bit floating-point range/);
      }
    });
  });

  describe("the oldest accepted time is retention's cutoff", () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-refusal-'));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('an event accepted at the edge survives a retention pass run at its receive time; one a microsecond older would not', async () => {
      const retentionMs = 2 * DAY_MS;
      const receivedMs = Date.UTC(2026, 0, 10, 12, 0, 0, 250);
      const context = ingestContext(receivedMs, false, retentionMs, DAY_MS);
      const edge = context.oldestMicros / SECOND;
      const body = JSON.stringify([
        { event: 'at the edge', time: edge },
        { event: 'a microsecond older', time: edge - 0.000001 },
      ]);
      const parsed = parseNativeBatch(body, context);
      assert.deepEqual(
        parsed.events.map((ev) => ev.raw),
        ['at the edge'],
      );
      assert.deepEqual(
        parsed.errors.map((error) => [error.item, error.code]),
        [[1, 'too_old']],
      );

      const options = {
        dataDir: dir,
        placement: { bucketSpanMicros: 3_600 * SECOND, partitions: 1 },
        flushIntervalMs: 60_000,
        segmentMaxEvents: 1000,
        compressionLevel: 3,
        fsync: false,
        compactionIntervalMs: 60_000,
        retentionMs,
        codecWorkers: 0,
      };
      const engine = await StorageEngine.open(options);
      try {
        // The accepted event alone: retention at the receive time keeps it.
        await engine.appendEvents(parsed.events);
        await engine.flush();
        assert.equal((await engine.maintain(receivedMs)).retention.rows, 0);
        // The refused one, had it been stored (in a bucket of its own): the same pass deletes it.
        await engine.appendEvents([{ time: context.oldestMicros - 1, raw: 'older', index: 'older', fields: {} }]);
        await engine.flush();
        const { retention } = await engine.maintain(receivedMs);
        assert.equal(retention.rows, 1);
        assert.equal(engine.stats().totalEvents, 1);
      } finally {
        await engine.close();
      }
    });
  });

  describe('each format', () => {
    it('native: refused elements by index and reason; the rest accepted', () => {
      const body = JSON.stringify([
        { event: 'old', time: YEAR_BACK },
        { event: 'ok', time: HOUR_AGO },
        { event: 'ahead', time: TWO_DAYS_AHEAD },
        { event: 'wide', fields: manyFields(MAX_FIELDS_PER_EVENT + 1) },
        { event: 'no time' },
      ]);
      const r = parseNativeBatch(body, CTX);
      assert.deepEqual(
        r.events.map((ev) => [ev.raw, ev.time]),
        [
          ['ok', HOUR_AGO * SECOND],
          ['no time', NOW],
        ],
      );
      assert.equal(r.failed, 3);
      assert.deepEqual(
        r.errors.map((error) => [error.item, error.code]),
        [
          [0, 'too_old'],
          [2, 'too_far_in_future'],
          [3, 'too_many_fields'],
        ],
      );
      assert.deepEqual(r.refused, { too_old: 1, too_far_in_future: 1, too_many_fields: 1 });
    });

    it('raw: a line whose detected timestamp is out of the window, or whose JSON holds 1e400, is refused with its line number', () => {
      const lines = [
        '2023-06-15T12:00:00Z ERROR a year back',
        '2024-06-15T11:00:00Z INFO an hour ago',
        '2024-06-18T12:00:00Z INFO three days ahead',
        '{"msg":"json","n":1e400}',
        `{"msg":"wide",${Object.entries(manyFields(MAX_FIELDS_PER_EVENT - 1))
          .map(([k, v]) => `"${k}":${v}`)
          .join(',')}}`,
        'no timestamp at all',
      ];
      const r = parseRawLines(lines.join('\n'), {}, CTX);
      assert.deepEqual(
        r.events.map((ev) => ev.raw),
        [lines[1], lines[5]],
      );
      r.events.forEach(assertValidEvent);
      // 999 keys and the default source and sourcetype: 1001 fields.
      assert.deepEqual(
        r.errors.map((error) => [error.line, error.code]),
        [
          [1, 'too_old'],
          [3, 'too_far_in_future'],
          [4, 'non_finite_number'],
          [5, 'too_many_fields'],
        ],
      );
      assert.match(r.errors[2]!.reason, /field 'n'/);
      assert.equal(r.failed, 4);
    });

    it('hec: time, number event, labels, fields and object events that cannot be kept exactly are refused per line', () => {
      const lines = [
        JSON.stringify({ event: 'old', time: YEAR_BACK }),
        JSON.stringify({ event: 'ok', time: HOUR_AGO }),
        JSON.stringify({ event: 'ahead', time: String(TWO_DAYS_AHEAD) }),
        '{"event":1e400}',
        '{"event":"x","host":-1e400}',
        '{"event":"x","fields":{"n":1e999}}',
        '{"event":{"list":[1,1e999]}}',
        '{"event":"{\\"n\\":1e999}"}',
      ];
      const r = parseHecLines(lines.join('\n'), CTX);
      assert.deepEqual(
        r.events.map((ev) => ev.raw),
        ['ok'],
      );
      assert.deepEqual(
        r.errors.map((error) => [error.line, error.code]),
        [
          [1, 'too_old'],
          [3, 'too_far_in_future'],
          [4, 'non_finite_number'],
          [5, 'non_finite_number'],
          [6, 'non_finite_number'],
          [7, 'non_finite_number'],
          [8, 'non_finite_number'],
        ],
      );
      assert.deepEqual(
        r.errors.slice(2).map((error) => /field '([^']+)'/.exec(error.reason)?.[1]),
        ['event', 'host', 'n', 'event', 'n'],
      );
      assert.deepEqual(r.refused, { too_old: 1, too_far_in_future: 1, non_finite_number: 5 });
    });

    it('hec: a body with nothing accepted is refused whole: VALIDATION_ERROR for a refused event, INVALID_JSON for a malformed one', () => {
      const old = parseHecLines(JSON.stringify({ event: 'old', time: YEAR_BACK }), CTX);
      const error = noEventAccepted(old.failed, old.errors);
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.equal(error.status, 400);
      assert.match(
        error.message,
        /^no valid event in the body: line 1: event time 2023-06-16T12:00:00.000000Z is older than retention allows/,
      );
      const malformed = parseHecLines(`nope\n${JSON.stringify({ event: 'old', time: YEAR_BACK })}`, CTX);
      assert.equal(noEventAccepted(malformed.failed, malformed.errors).code, 'INVALID_JSON');
    });

    it('bulk: refused documents are 400 items with an Elasticsearch-shaped error; the others are created', () => {
      const nd = (...lines: unknown[]): string =>
        lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
      const body = nd(
        { index: { _index: 'a' } },
        { '@timestamp': '2023-06-15T12:00:00Z', msg: 'old' },
        { index: { _index: 'a' } },
        { '@timestamp': '2024-06-15T11:00:00Z', msg: 'ok' },
        { create: { _index: 'a' } },
        { ts: TWO_DAYS_AHEAD, msg: 'ahead' },
        { index: { _index: 'a' } },
        '{"msg":"huge","n":1e400}',
        { index: { _index: 'a' } },
        manyFields(MAX_FIELDS_PER_EVENT),
      );
      const r = parseBulk(body, CTX, 'seed');
      assert.equal(r.errors, true);
      assert.deepEqual(
        r.events.map((ev) => ev.fields.msg),
        ['ok'],
      );
      assert.deepEqual(
        r.items.map((item) => [entry(item)[0], entry(item)[1].status, entry(item)[1].error?.type]),
        [
          ['index', 400, 'illegal_argument_exception'],
          ['index', 201, undefined],
          ['create', 400, 'illegal_argument_exception'],
          ['index', 400, 'mapper_parsing_exception'],
          // 1000 keys and the action's `_index` as source: 1001 fields.
          ['index', 400, 'illegal_argument_exception'],
        ],
      );
      assert.match(entry(r.items[0]!)[1].error!.reason, /older than retention allows/);
      assert.match(entry(r.items[3]!)[1].error!.reason, /field 'n' holds a number outside/);
      assert.match(entry(r.items[4]!)[1].error!.reason, /the event has 1001 fields/);
      assert.deepEqual(r.refused, { too_old: 1, too_far_in_future: 1, non_finite_number: 1, too_many_fields: 1 });
    });

    it('es _doc: a refused document gives the refusal and no event', () => {
      const out = parseEsDoc(JSON.stringify({ '@timestamp': '2023-06-15T12:00:00Z' }), 'idx', CTX, 'seed');
      assert.equal(out.event, null);
      assert.equal(out.refusal?.reason, 'too_old');
      const ok = parseEsDoc(JSON.stringify({ '@timestamp': '2024-06-15T11:00:00Z' }), 'idx', CTX, 'seed');
      assert.equal(ok.refusal, null);
    });

    it('otlp: records refused by time or number, the rest accepted; NaN and Infinity doubles kept as their text', () => {
      const nanos = (seconds: number): string => `${Math.round(seconds * 1e6)}000`;
      const record = (seconds: number | undefined, attributes: unknown[] = [], body: unknown = { stringValue: 'r' }): unknown => ({
        ...(seconds === undefined ? {} : { timeUnixNano: nanos(seconds) }),
        body,
        attributes,
      });
      const body = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[${[
        JSON.stringify(record(YEAR_BACK)),
        JSON.stringify(
          record(HOUR_AGO, [
            { key: 'nan', value: { doubleValue: 'NaN' } },
            { key: 'inf', value: { doubleValue: '-Infinity' } },
          ]),
        ),
        JSON.stringify(record(TWO_DAYS_AHEAD)),
        '{"body":{"stringValue":"r"},"attributes":[{"key":"d","value":{"doubleValue":1e400}}]}',
        '{"body":{"doubleValue":-1e400}}',
        '{"body":{"stringValue":"r"},"attributes":[{"key":"list","value":{"arrayValue":{"values":[{"doubleValue":1e999}]}}}]}',
      ].join(
        ',',
      )}]}]},{"resource":{"attributes":[{"key":"r","value":{"intValue":1e999}}]},"scopeLogs":[{"logRecords":[{"body":{"stringValue":"r"}},{}]}]}]}`;
      const r = parseOtlpLogs(body, CTX);
      assert.equal(r.events.length, 1);
      assertValidEvent(r.events[0]!);
      assert.deepEqual({ nan: r.events[0]!.fields.nan, inf: r.events[0]!.fields.inf }, { nan: 'NaN', inf: '-Infinity' });
      assert.equal(r.rejected, 7);
      const at = 'resourceLogs[0].scopeLogs[0].logRecords';
      assert.deepEqual(
        r.errors.map((error) => [error.record, error.code]),
        [
          [`${at}[0]`, 'too_old'],
          [`${at}[2]`, 'too_far_in_future'],
          [`${at}[3]`, 'non_finite_number'],
          [`${at}[4]`, 'non_finite_number'],
          [`${at}[5]`, 'non_finite_number'],
          // A resource attribute refuses every record of the resource.
          ['resourceLogs[1].scopeLogs[0].logRecords[0]', 'non_finite_number'],
          ['resourceLogs[1].scopeLogs[0].logRecords[1]', 'non_finite_number'],
        ],
      );
      assert.deepEqual(
        r.errors.slice(2).map((error) => /field '([^']+)'/.exec(error.reason)?.[1]),
        ['d', 'body', 'list', 'resource.r', 'resource.r'],
      );
    });

    it('otlp: the partialSuccess message counts every refusal and names the first ten', () => {
      const errors = Array.from({ length: 12 }, (_, i) => ({ record: `r[${i}]`, code: 'too_old' as const, reason: 'old' }));
      const answer = partialSuccess(15, errors);
      assert.equal(answer.partialSuccess.rejectedLogRecords, '15');
      assert.equal(
        answer.partialSuccess.errorMessage,
        `15 log records refused: ${errors
          .slice(0, 10)
          .map((e) => `${e.record}: old`)
          .join('; ')}; and 5 more`,
      );
      assert.equal(partialSuccess(1, errors.slice(0, 1)).partialSuccess.errorMessage, '1 log record refused: r[0]: old');
    });
  });
});
