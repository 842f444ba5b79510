/**
 * The catalog parts nodes answer for GET /fields and GET /sources, merged by the node that asked:
 * merging the parts of any split of the keys equals the part of all of them, and the descriptors
 * tell the test's own counts, ranges, averages and top values.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { catalogPartOf, mergeCatalogParts } from '../../../coordinator/catalog-parts';
import { fieldDescriptors, sourceDescriptors } from '../../../coordinator/discovery-descriptors';
import { rowSetOfPieces } from '../../../storage/buffer/chunk-read';
import { chunkEvents, groupChunkRows } from '../../../storage/buffer/event-chunk';
import { Catalog, type CatalogFilter } from '../../../storage/catalog';
import type { FieldValue, LogEvent } from '../../../storage/core/event';
import { keyString } from '../../../storage/core/partition';
import type { SegmentHeader } from '../../../storage/segment/header';
import { encodeSegment } from '../../../storage/segment/segment-encoder';
import { sourceStatsOf } from '../../../storage/segment/source-stats';

const BASE_MICROS = 1_700_000_000_000_000;

/** One flushed segment of the events, under partition `partition`. */
function segmentOf(events: readonly LogEvent[], partition: number): SegmentHeader {
  const [pieces] = groupChunkRows(chunkEvents(events, { bucketSpanMicros: 24 * 3_600_000_000, partitions: 1 }), Number.MAX_SAFE_INTEGER);
  const rows = rowSetOfPieces(pieces);
  const segment = encodeSegment(rows, { compressionLevel: 1, blockRows: 16 });
  return {
    ...segment.stats,
    version: 3,
    id: `s${partition}`,
    index: 'main',
    bucket: 0,
    partition,
    level: 0,
    createdAt: 0,
    sources: sourceStatsOf(rows),
  };
}

const ALL: CatalogFilter = { index: null, fromMicros: 0, toMicros: Infinity, source: null };

const event = fc.record(
  {
    status: fc.constantFrom(200, 201, 404, 500),
    host: fc.constantFrom('a', 'b', 'c'),
    ms: fc.integer({ min: 0, max: 4000 }).map((n) => n / 4),
    ok: fc.boolean(),
    source: fc.constantFrom('web', 'db'),
  },
  { requiredKeys: ['source'] },
);

function eventsOf(drawn: Record<string, FieldValue>[]): LogEvent[] {
  return drawn.map((fields, i) => ({ time: BASE_MICROS + i * 1000, raw: `e${i}`, index: 'main', fields }));
}

describe('catalog parts (GET /fields, GET /sources)', () => {
  it('merging the parts of each key equals the part of all keys (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(event, fc.integer({ min: 0, max: 2 })), { minLength: 1, maxLength: 120 }), (drawn) => {
        const byKey = [0, 1, 2].map((partition) => drawn.filter(([, p]) => p === partition).map(([fields]) => fields));
        const headers = byKey.flatMap((fields, partition) => (fields.length === 0 ? [] : [segmentOf(eventsOf(fields), partition)]));
        const catalog = new Catalog();
        const partOf = (filter: CatalogFilter) =>
          catalogPartOf(catalog.fields(headers, [], filter).values(), catalog.sources(headers, [], filter).values());
        const whole = partOf(ALL);
        const parts = headers.map((header) => partOf({ ...ALL, keys: new Set([keyString(header)]) }));
        assert.deepEqual(mergeCatalogParts(parts), mergeCatalogParts([whole]));
        assert.deepEqual(mergeCatalogParts([whole]).fields, whole.fields, 'a part merged alone is itself');
      }),
      { numRuns: 60 },
    );
  });

  it('descriptors tell the counts, coverage, range, average and top values of the events', () => {
    const fields = Array.from({ length: 200 }, (_, i) => {
      const values: Record<string, FieldValue> = { source: i % 4 === 0 ? 'db' : 'web', status: i % 10 === 0 ? 500 : 200 };
      if (i % 2 === 0) values.ms = i / 2;
      if (i % 5 === 0) values.at = new Date(Date.UTC(2024, 0, 1 + (i % 20))).toISOString();
      return values;
    });
    const header = segmentOf(eventsOf(fields), 0);
    const catalog = new Catalog();
    const part = catalogPartOf(catalog.fields([header], [], ALL).values(), catalog.sources([header], [], ALL).values());
    const described = new Map(fieldDescriptors(part, '').map((field) => [field.name, field]));
    const ms = fields.filter((f) => f.ms !== undefined).map((f) => f.ms as number);
    assert.deepEqual(
      { ...described.get('ms'), p50: undefined, p99: undefined },
      {
        name: 'ms',
        type: 'integer',
        count: ms.length,
        coverage: ms.length / fields.length,
        min: 0,
        max: 99,
        avg: ms.reduce((a, b) => a + b, 0) / ms.length,
        p50: undefined,
        p99: undefined,
        top_values: described.get('ms')!.top_values,
      },
    );
    assert.deepEqual(described.get('status')!.top_values, [
      { value: 200, count: 180 },
      { value: 500, count: 20 },
    ]);
    const at = described.get('at')!;
    assert.deepEqual([at.type, at.min, at.max], ['datetime', '2024-01-01T00:00:00.000Z', '2024-01-16T00:00:00.000Z']);
    assert.equal(described.get('_time')!.type, 'datetime');
    assert.equal(described.has('_raw'), false);
    assert.deepEqual(
      fieldDescriptors(part, 'st').map((field) => field.name),
      ['status'],
    );
    const sources = sourceDescriptors(part);
    assert.deepEqual(
      sources.map((source) => [source.name, source.event_count]),
      [
        ['db', 50],
        ['web', 150],
      ],
    );
    const web = sources.find((source) => source.name === 'web')!;
    assert.equal(web.first_event, new Date(BASE_MICROS / 1000 + 1).toISOString());
  });
});
