/**
 * A generated dataset for the discovery endpoints, and what GET /fields, GET /fields/{name}/values
 * and GET /sources must answer for it, computed here from the events themselves.
 */
import { strict as assert } from 'assert';

/** The relative accuracy the server's quantile sketch promises (p50, p99). */
export const SKETCH_ACCURACY = 0.01;

export const BASE_S = 1_704_067_200; // 2024-01-01T00:00:00Z

export interface IngestEvent {
  event: string;
  time: number;
  source: string;
  fields: Record<string, string | number | boolean>;
}

const SOURCES = ['web', 'web', 'db', 'auth'];
const STATUSES = [200, 200, 200, 404, 500, 301];

/** Event i of the dataset: a second apart from BASE_S; `region` only from web, `at` an ISO timestamp. */
export function discoveryEvent(i: number): IngestEvent {
  const source = SOURCES[i % SOURCES.length];
  const fields: Record<string, string | number | boolean> = { status: STATUSES[i % STATUSES.length], user: `u${i % 37}` };
  if (i % 2 === 0) fields.ms = (i % 400) * 0.5 + 0.25;
  if (source === 'web' && i % 3 !== 0) fields.region = ['eu', 'us', 'ap'][i % 3];
  if (i % 5 === 0) fields.at = new Date(Date.UTC(2024, 2, 1 + (i % 9), 10)).toISOString();
  if (i % 7 === 0) fields.ok = i % 2 === 0;
  return { event: `request ${i} from ${source}`, time: BASE_S + i, source, fields };
}

type Value = string | number | boolean;

/** Each field's values over the events, `source` included (it is a field too). */
function fieldValues(events: readonly IngestEvent[]): Map<string, Value[]> {
  const out = new Map<string, Value[]>();
  const add = (name: string, value: Value): void => {
    let list = out.get(name);
    if (list === undefined) out.set(name, (list = []));
    list.push(value);
  };
  for (const event of events) {
    add('source', event.source);
    for (const [name, value] of Object.entries(event.fields)) add(name, value);
  }
  return out;
}

/** Most frequent first; ties by value ascending. */
export function valueCounts(values: readonly Value[]): { value: Value; count: number }[] {
  const counts = new Map<Value, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

function lowerRank(numbers: number[], q: number): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))];
}

const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

/** Checks a GET /fields answer against the events (all of them in range). */
export function assertFields(fields: Record<string, any>[], events: readonly IngestEvent[], context: string): void {
  const byName = new Map(fields.map((field) => [field.name as string, field]));
  const values = fieldValues(events);
  assert.deepEqual([...byName.keys()].sort(), ['_time', ...values.keys()].sort(), `${context}: the field names`);
  const times = events.map((event) => event.time);
  assert.deepEqual(
    byName.get('_time'),
    { name: '_time', type: 'datetime', count: events.length, coverage: 1, min: iso(Math.min(...times)), max: iso(Math.max(...times)) },
    `${context}: _time`,
  );
  for (const [name, list] of values) {
    const field = byName.get(name)!;
    const where = `${context}: ${name}`;
    assert.equal(field.count, list.length, `${where} count`);
    assert.ok(Math.abs(field.coverage - list.length / events.length) < 1e-12, `${where} coverage ${field.coverage}`);
    const numbers = list.filter((value): value is number => typeof value === 'number');
    if (numbers.length > 0) {
      const integers = numbers.every((n) => Number.isInteger(n));
      assert.equal(field.type, integers ? 'integer' : 'float', `${where} type`);
      assert.equal(field.min, Math.min(...numbers), `${where} min`);
      assert.equal(field.max, Math.max(...numbers), `${where} max`);
      const avg = numbers.reduce((a, b) => a + b, 0) / numbers.length;
      assert.ok(Math.abs(field.avg - avg) <= 1e-9 * Math.abs(avg), `${where} avg ${field.avg} vs ${avg}`);
      for (const [key, q] of [
        ['p50', 0.5],
        ['p99', 0.99],
      ] as const) {
        const expected = lowerRank(numbers, q);
        assert.ok(Math.abs(field[key] - expected) <= SKETCH_ACCURACY * Math.abs(expected), `${where} ${key} ${field[key]} vs ${expected}`);
      }
      if (integers) assert.deepEqual(field.top_values, valueCounts(list).slice(0, 10), `${where} top values`);
      else assert.equal(field.top_values, undefined, `${where}: no top values for floats`);
    } else if (typeof list[0] === 'boolean') {
      assert.deepEqual(field, { name, type: 'boolean', count: list.length, coverage: field.coverage }, `${where}`);
    } else if (name === 'at') {
      const sorted = (list as string[]).slice().sort();
      assert.deepEqual([field.type, field.min, field.max], ['datetime', sorted[0], sorted[sorted.length - 1]], `${where} datetime`);
    } else {
      assert.equal(field.type, 'string', `${where} type`);
      assert.deepEqual(field.top_values, valueCounts(list).slice(0, 10), `${where} top values`);
      assert.equal(field.min, undefined, `${where}: no min for strings`);
    }
  }
}

/** What GET /fields/{name}/values answers for the events (`limit` values). */
export function expectedValues(events: readonly IngestEvent[], name: string, type: string, limit: number) {
  const list = fieldValues(events).get(name) ?? [];
  const counts = valueCounts(list);
  return {
    field: name,
    type,
    values: counts.slice(0, limit).map(({ value, count }) => ({ value, count, percent: (count / list.length) * 100 })),
    unique_count: counts.length,
    total_count: list.length,
  };
}

/** What GET /sources answers for the events, but for `storage_bytes` (checked positive where rows were flushed). */
export function expectedSources(events: readonly IngestEvent[]) {
  const bySource = new Map<string, number[]>();
  for (const event of events) {
    let times = bySource.get(event.source);
    if (times === undefined) bySource.set(event.source, (times = []));
    times.push(event.time);
  }
  return [...bySource.keys()].sort().map((name) => {
    const times = bySource.get(name)!;
    const first = Math.min(...times);
    const last = Math.max(...times);
    return {
      name,
      event_count: times.length,
      first_event: iso(first),
      last_event: iso(last),
      rate: times.length / Math.max(1, last - first),
    };
  });
}

/** GET /sources' answer without `storage_bytes`, which must be positive. */
export function sourcesWithoutBytes(sources: Record<string, any>[]): Record<string, unknown>[] {
  return sources.map(({ storage_bytes, ...rest }) => {
    assert.ok(storage_bytes > 0, `${rest.name}: storage_bytes ${storage_bytes}`);
    return rest;
  });
}
