import { strict as assert } from 'assert';
import type { FieldValue } from '../../../storage/core/event';
import { flattenInto, MAX_FLATTEN_DEPTH } from '../../../node/ingest/flatten';
import { MAX_FIELDS_PER_EVENT } from '../../../node/ingest/refusal';

describe('ingest flatten', () => {
  it('dots nested objects, keeps arrays as JSON, skips null and empty names', () => {
    const fields: Record<string, FieldValue> = {};
    const refusal = flattenInto(
      fields,
      JSON.parse('{"a":{"b":{"c":1}},"s":"x","t":true,"arr":[1,null,{"k":"v"}],"n":null,"e":{},"":"empty"}'),
      { keepExisting: false },
    );
    assert.equal(refusal, null);
    assert.deepEqual(fields, { 'a.b.c': 1, s: 'x', t: true, arr: '[1,null,{"k":"v"}]' });
  });

  it('keeps a non-finite number as is, for checkEvent to refuse naming the field', () => {
    const fields: Record<string, FieldValue> = {};
    assert.equal(flattenInto(fields, JSON.parse('{"a":{"inf":1e999},"neg":-1e999}'), { keepExisting: false }), null);
    assert.deepEqual(fields, { 'a.inf': Infinity, neg: -Infinity });
  });

  it('refuses a value whose JSON text would not hold it: a non-finite number inside an array or a deep object', () => {
    for (const [json, name] of [
      ['{"arr":[1,1e999]}', 'arr'],
      ['{"o":{"list":[{"x":[-1e400]}]}}', 'o.list'],
      [
        `{"deep":${'{"d":'.repeat(MAX_FLATTEN_DEPTH + 2)}1e999${'}'.repeat(MAX_FLATTEN_DEPTH + 2)}}`,
        `deep${'.d'.repeat(MAX_FLATTEN_DEPTH - 1)}`,
      ],
    ] as const) {
      const refusal = flattenInto({}, JSON.parse(json), { keepExisting: false });
      assert.equal(refusal?.reason, 'non_finite_number', json);
      assert.ok(refusal.message.includes(`'${name}'`), refusal.message);
    }
    // A real null inside an array is JSON's own and stays.
    const fields: Record<string, FieldValue> = {};
    assert.equal(flattenInto(fields, { arr: [null, 1] }, { keepExisting: false }), null);
    assert.equal(fields.arr, '[null,1]');
  });

  it('refuses an array too deep for JSON.stringify rather than drop it', () => {
    const depth = 100_000;
    const value = JSON.parse(`{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`) as Record<string, unknown>;
    const refusal = flattenInto({}, value, { keepExisting: false });
    assert.equal(refusal?.reason, 'invalid');
    assert.match(refusal.message, /'a' is nested too deeply/);
  });

  it('a value under a skipped name refuses nothing: reserved names, and existing ones it keeps', () => {
    const fields: Record<string, FieldValue> = { kept: 'x' };
    assert.equal(flattenInto(fields, JSON.parse('{"_time":[1e999],"kept":[1e999]}'), { keepExisting: true }), null);
    assert.deepEqual(fields, { kept: 'x' });
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
    flattenInto(
      fields,
      JSON.parse('{"_time":1,"_raw":"r","index":"i","_timestamp":2,"_source":"s","_sourcetype":"t","__proto__":"p","a._time":3}'),
      { keepExisting: false },
    );
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

  it("stores every field: the per-event limit is checkEvent's, which refuses the event", () => {
    const obj: Record<string, number> = {};
    for (let i = 0; i < MAX_FIELDS_PER_EVENT + 50; i++) obj[`k${i}`] = i;
    const fields: Record<string, FieldValue> = { pre: 1 };
    assert.equal(flattenInto(fields, obj, { keepExisting: true }), null);
    assert.equal(Object.keys(fields).length, MAX_FIELDS_PER_EVENT + 51);
  });
});
