import { strict as assert } from 'assert';
import type { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import { keyOf, keyString, type PartitionKey } from '../../../storage/core/partition';
import { indexMatcher, type ScanRequest } from '../../../storage/scan';
import { valueAt } from '../../../storage/core/column';
import { PartialSegmentError } from '../../../storage/segment/segment-keys';
import { openTestEngine } from '../../helpers/engine';

const HOUR = 3600_000_000;
const PLACEMENT = { bucketSpanMicros: HOUR, partitions: 4 };
/** Two owner sets: the even partitions' and the odd ones'. */
const groupOf = (key: PartitionKey): string | null => (key.partition < 0 ? null : key.partition % 2 === 0 ? 'a,b' : 'b,c');

function event(i: number, time: number): LogEvent {
  return {
    time,
    raw: `event ${i} from h${i % 5}`,
    index: 'main',
    fields: { host: `h${i % 5}`, source: i % 2 === 0 ? 'even' : 'odd', n: i },
  };
}

function all(keys?: ReadonlySet<string>): ScanRequest {
  return { index: indexMatcher(['*']), fromMicros: 0, toMicros: Number.MAX_SAFE_INTEGER, columns: null, ...(keys ? { keys } : {}) };
}

async function raws(engine: StorageEngine, request: ScanRequest): Promise<string[]> {
  const plan = await engine.planScan(request);
  const out: string[] = [];
  for await (const batch of engine.scanBatches(plan, request)) {
    const raw = batch.columns.get('_raw')!;
    for (let row = 0; row < batch.rowCount; row++) out.push(String(valueAt(raw, row)));
  }
  return out.sort();
}

describe("storage groups: a piece's partitions with the same owners in one segment", () => {
  let engine: StorageEngine;
  const base = Date.UTC(2026, 0, 1) * 1000;
  const keyOfEvent = (e: LogEvent): string => keyString(keyOf(e, PLACEMENT));

  beforeEach(async () => {
    engine = await openTestEngine({ placement: PLACEMENT });
    engine.setGrouping(groupOf);
  });
  afterEach(() => engine.close());

  it('flushes one segment per group of a piece, listing its partitions, and reads a group whole', async () => {
    const events = Array.from({ length: 200 }, (_, i) => event(i, base + i * 1000));
    const keys = new Set(events.map(keyOfEvent));
    const partitions = [...new Set(events.map((e) => keyOf(e, PLACEMENT).partition))].sort();
    assert.deepEqual(partitions, [0, 1, 2, 3], 'the events reach every partition');
    await engine.appendEvents(events);
    await engine.flush();
    const headers = [...engine.store.all()];
    assert.deepEqual(headers.map((header) => header.partitions).sort(), [
      [0, 2],
      [1, 3],
    ]);
    assert.deepEqual(headers.map((header) => header.group).sort(), ['a,b', 'b,c']);
    assert.equal(
      headers.reduce((sum, header) => sum + header.rowCount, 0),
      200,
    );
    assert.deepEqual([...engine.localKeys(all())].sort(), [...keys].sort());
    assert.deepEqual(await raws(engine, all()), events.map((e) => e.raw).sort());
    const even = new Set([...keys].filter((key) => Number(key.split('|')[2]) % 2 === 0));
    const wanted = events.filter((e) => even.has(keyOfEvent(e))).map((e) => e.raw);
    assert.ok(wanted.length > 0 && wanted.length < 200);
    assert.deepEqual(await raws(engine, all(even)), wanted.sort(), 'the even group alone');
    const sources = engine.sources({ index: null, fromMicros: -Infinity, toMicros: Infinity, source: null, keys: even });
    assert.equal(
      [...sources.values()].reduce((sum, source) => sum + source.eventCount, 0),
      wanted.length,
    );
  });

  it("refuses a read that names only some of a segment's keys, rather than answer for the others", async () => {
    const events = Array.from({ length: 200 }, (_, i) => event(i, base + i * 1000));
    await engine.appendEvents(events);
    await engine.flush();
    const one = keyString({ index: 'main', bucket: base - (base % HOUR), partition: 0 });
    await assert.rejects(engine.planScan(all(new Set([one]))), PartialSegmentError);
    assert.throws(
      () => engine.fields({ index: null, fromMicros: -Infinity, toMicros: Infinity, source: null, keys: new Set([one]) }),
      PartialSegmentError,
    );
    // Keys of other pieces and indexes alongside change nothing: the segment is still named in part.
    await assert.rejects(engine.planScan(all(new Set([one, 'web|0|0']))), PartialSegmentError);
  });

  it("merges a group's flushes into one segment holding every partition any of them held", async () => {
    const rounds = [0, 1, 2, 3].map((round) =>
      Array.from({ length: 40 }, (_, i) => event(round * 40 + i, base + round * 100_000 + i * 1000)),
    );
    // The last round only reaches partition 2 (an even one): its flush lists [2] alone.
    const onlyTwo = rounds[3].filter((e) => keyOf(e, PLACEMENT).partition === 2);
    assert.ok(onlyTwo.length > 0);
    for (const events of [...rounds.slice(0, 3), onlyTwo]) {
      await engine.appendEvents(events);
      await engine.flush();
    }
    const expected = [...rounds.slice(0, 3).flat(), ...onlyTwo].map((e) => e.raw).sort();
    assert.ok([...engine.store.all()].some((header) => header.partitions?.join() === '2'));
    const later = Date.UTC(2026, 0, 1, 5);
    const { manifests } = await engine.maintain(later);
    assert.equal(manifests.length, 2);
    assert.deepEqual(manifests.map((manifest) => manifest.partitions).sort(), [
      [0, 2],
      [1, 3],
    ]);
    const headers = [...engine.store.all()];
    assert.equal(headers.length, 2);
    assert.deepEqual(await raws(engine, all()), expected);
  });

  it('sets grouped segments apart under one negative partition, as single keys', async () => {
    await engine.appendEvents(Array.from({ length: 50 }, (_, i) => event(i, base + i * 1000)));
    await engine.flush();
    await engine.setApart(-7);
    const headers = [...engine.store.all()];
    assert.ok(headers.length >= 2);
    for (const header of headers) {
      assert.equal(header.partition, -7);
      assert.equal(header.partitions, undefined);
      assert.equal(header.group, undefined);
    }
    const key = keyString({ index: 'main', bucket: base - (base % HOUR), partition: -7 });
    assert.equal((await raws(engine, all(new Set([key])))).length, 50);
  });

  it('leaves every key alone without a grouping, as a node alone stores them', async () => {
    engine.setGrouping(null);
    const events = Array.from({ length: 200 }, (_, i) => event(i, base + i * 1000));
    await engine.appendEvents(events);
    await engine.flush();
    const headers = [...engine.store.all()];
    assert.equal(headers.length, new Set(events.map(keyOfEvent)).size);
    assert.ok(headers.every((header) => header.partitions === undefined && header.group === undefined));
  });
});
