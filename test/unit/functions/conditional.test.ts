import { strict as assert } from 'assert';
import { call, make } from './helpers';

describe('functions: nulls and conditions', () => {
  it('coalesce: the first non-null', () => {
    assert.equal(call('coalesce', null, null, 'a', 'b'), 'a');
    assert.equal(call('coalesce', '', 'a'), '', 'the empty string is a value');
    assert.equal(call('coalesce', null, 0), 0);
    assert.equal(call('coalesce', null, false), false);
    assert.equal(call('coalesce', null), null);
    assert.equal(make('coalesce', ['time', 'time']).resultType, 'time');
    assert.equal(make('coalesce', ['time', 'any'], [undefined, null]).resultType, 'time', 'a constant null does not count');
    assert.equal(make('coalesce', ['string', 'number']).resultType, 'any');
  });

  it('if: only boolean true picks the first value', () => {
    assert.equal(call('if', true, 'a', 'b'), 'a');
    assert.equal(call('if', false, 'a', 'b'), 'b');
    assert.equal(call('if', null, 'a', 'b'), 'b', 'null is false');
    assert.equal(call('if', 1, 'a', 'b'), 'b', 'non-booleans are not true');
    assert.equal(call('if', 'true', 'a', 'b'), 'b');
    assert.equal(call('if', true, null, 'b'), null);
    assert.equal(make('if', ['boolean', 'number', 'number']).resultType, 'number');
    assert.equal(make('if', ['boolean', 'time', 'any'], [undefined, undefined, null]).resultType, 'time');
    assert.equal(make('if', ['boolean', 'string', 'number']).resultType, 'any');
  });

  it('case: first true condition, optional default', () => {
    assert.equal(call('case', false, 1, true, 2, 3), 2);
    assert.equal(call('case', false, 1, null, 2, 3), 3);
    assert.equal(call('case', false, 1, false, 2), null, 'no default');
    assert.equal(call('case', true, 1, true, 2), 1);
    assert.equal(call('case', null, 'x'), null);
    assert.equal(make('case', ['boolean', 'number', 'boolean', 'number', 'number']).resultType, 'number');
    assert.equal(make('case', ['boolean', 'number', 'string']).resultType, 'any');
  });

  it('isnull / isnotnull', () => {
    assert.equal(call('isnull', null), true);
    assert.equal(call('isnull', ''), false);
    assert.equal(call('isnull', 0), false);
    assert.equal(call('isnotnull', null), false);
    assert.equal(call('isnotnull', false), true);
  });
});
