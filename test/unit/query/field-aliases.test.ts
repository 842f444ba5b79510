/**
 * Field names are looked up in the alias table as data, never as properties: a field named like a
 * method of every object (`toString`, `constructor`) is that field (it once resolved to the
 * method, and a `stats` over it failed with 500 when the plan went to a worker).
 */
import { strict as assert } from 'assert';
import { resolveField } from '../../../query/plan/schema';

describe('field aliases', () => {
  it('resolves the ingest aliases and leaves every other name as it is, those of Object.prototype too', () => {
    assert.equal(resolveField('_timestamp'), '_time');
    assert.equal(resolveField('_sourcetype'), 'sourcetype');
    for (const name of ['toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf', 'host'])
      assert.equal(resolveField(name), name);
  });
});
