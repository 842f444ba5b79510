import { strict as assert } from 'assert';
import type { FieldValue } from '../../../storage/event';
import { flattenInto, MAX_FIELDS_PER_EVENT, MAX_FLATTEN_DEPTH } from '../../../node/ingest/flatten';

describe('ingest flatten', () => {
  it('dots nested objects, keeps arrays as JSON, skips null and non-finite numbers', () => {
    const fields: Record<string, FieldValue> = {};
    flattenInto(fields, JSON.parse('{"a":{"b":{"c":1}},"s":"x","t":true,"arr":[1,null,{"k":"v"}],"n":null,"e":{},"inf":1e999,"":"empty"}'), { keepExisting: false });
    assert.deepEqual(fields, { 'a.b.c': 1, s: 'x', t: true, arr: '[1,null,{"k":"v"}]' });
  });

  it('keeps or overwrites existing fields as asked, and applies a prefix', () => {
    const fields: Record<string, FieldValue> = { a: 1 };
    flattenInto(fields, { a: 2, b: 3 }, { keepExisting: true });
    assert.deepEqual({ ...fields }, { a: 1, b: 3 });
    flattenInto(fields, { a: 2 }, { keepExisting: false });
    assert.equal(fields.a, 2);
    flattenInto(fields, { z: { y: 1 } }, { keepExisting: false, prefix: 'resource.' });
    assert.equal(fields['resource.z.y'], 1);
  });

  it('skips reserved names and __proto__', () => {
    const fields: Record<string, FieldValue> = {};
    flattenInto(fields, JSON.parse('{"_time":1,"_raw":"r","index":"i","_timestamp":2,"_source":"s","_sourcetype":"t","__proto__":"p","a._time":3}'), { keepExisting: false });
    assert.deepEqual(fields, { 'a._time': 3 });
    assert.equal(Object.getPrototypeOf(fields), Object.prototype);
  });

  it('stores objects below the depth cap as JSON text', () => {
    let deep: unknown = { leaf: 1 };
    for (let i = 0; i < MAX_FLATTEN_DEPTH + 5; i++) deep = { d: deep };
    const fields: Record<string, FieldValue> = {};
    flattenInto(fields, { root: deep } as Record<string, unknown>, { keepExisting: false });
    const [name, value] = Object.entries(fields)[0]!;
    assert.equal(name.split('.').length, MAX_FLATTEN_DEPTH);
    assert.equal(typeof value, 'string');
    assert.ok((value as string).includes('"leaf":1'));
  });

  it('caps the number of fields', () => {
    const obj: Record<string, number> = {};
    for (let i = 0; i < MAX_FIELDS_PER_EVENT + 50; i++) obj[`k${i}`] = i;
    const fields: Record<string, FieldValue> = { pre: 1 };
    flattenInto(fields, obj, { keepExisting: true });
    assert.equal(Object.keys(fields).length, MAX_FIELDS_PER_EVENT);
  });
});
