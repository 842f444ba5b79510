import { strict as assert } from 'assert';
import { roundHalfAway } from '../../../query/functions/numeric';
import { call, make, NOW } from './helpers';

describe('functions: numbers and conversions', () => {
  it('tonumber: numbers, numeric strings, booleans; else null', () => {
    assert.equal(call('tonumber', 42), 42);
    assert.equal(call('tonumber', ' 3.5 '), 3.5);
    assert.equal(call('tonumber', '1e3'), 1000);
    assert.equal(call('tonumber', '-0'), 0);
    assert.ok(Object.is(call('tonumber', '-0'), 0), '-0 is 0');
    assert.equal(call('tonumber', true), 1);
    assert.equal(call('tonumber', 'abc'), null);
    assert.equal(call('tonumber', ''), null);
    assert.equal(call('tonumber', 'Infinity'), null, 'not finite');
    assert.equal(call('tonumber', null), null);
    assert.equal(make('tonumber', ['time']).call([NOW]), NOW, 'a time gives its microseconds');
  });

  it('toint truncates toward zero', () => {
    assert.equal(call('toint', '3.9'), 3);
    assert.equal(call('toint', -3.9), -3);
    assert.ok(Object.is(call('toint', -0.5), 0));
    assert.equal(call('toint', 'x'), null);
    assert.equal(call('toint', null), null);
    assert.equal(call('toint', false), 0);
  });

  it('tostring: text of any value, times as ISO 8601', () => {
    assert.equal(call('tostring', 1.5), '1.5');
    assert.equal(call('tostring', 'x'), 'x');
    assert.equal(call('tostring', false), 'false');
    assert.equal(call('tostring', null), null);
    assert.equal(make('tostring', ['time']).call([NOW]), '2024-05-06T07:08:09.123456Z');
    assert.equal(make('tostring', ['time']).call([Date.UTC(2020, 0, 1) * 1000]), '2020-01-01T00:00:00.000Z');
    assert.equal(make('tostring', ['number']).call([NOW]), String(NOW), 'a plain number stays a number');
  });

  it('round: half away from zero, optional digits', () => {
    assert.equal(call('round', 2.5), 3);
    assert.equal(call('round', -2.5), -3);
    assert.equal(call('round', 2.4999), 2);
    assert.equal(call('round', 1.005, 2), 1.01, 'decimal as written');
    assert.equal(call('round', 2.675, 2), 2.68);
    assert.equal(call('round', -1.005, 2), -1.01);
    assert.equal(call('round', 1234.5678, 1), 1234.6);
    assert.equal(call('round', 1250, -2), 1300);
    assert.equal(call('round', -1250, -2), -1300);
    assert.equal(call('round', 1234, -5), 0);
    assert.equal(call('round', 1e17), 1e17, 'beyond 2^52 unchanged');
    assert.equal(call('round', 0.1 + 0.2, 20), 0.1 + 0.2, 'more than 15 digits: unchanged');
    assert.equal(call('round', '2.5'), 3);
    assert.equal(call('round', 2.567, '1.9'), 2.6, 'digits truncated');
    assert.equal(call('round', null), null);
    assert.equal(call('round', 1, null), null);
    assert.equal(call('round', 'x'), null);
    assert.ok(Object.is(call('round', -0.4), 0));
    for (let i = 0; i < 1000; i++) {
      const x = (i - 500) / 8; // exact binary fractions: .5 cases are real ties
      const expected = Math.sign(x) * Math.floor(Math.abs(x) + 0.5);
      assert.equal(roundHalfAway(x, 0), expected === 0 ? 0 : expected, String(x));
    }
  });

  it('floor / ceil / abs / sqrt / ln / log10 / exp / pow, invalid math is null', () => {
    assert.equal(call('floor', -1.5), -2);
    assert.equal(call('ceil', -1.5), -1);
    assert.ok(Object.is(call('ceil', -0.5), 0));
    assert.equal(call('abs', '-3'), 3);
    assert.equal(call('sqrt', 16), 4);
    assert.equal(call('sqrt', -1), null);
    assert.equal(call('ln', Math.E), 1);
    assert.equal(call('ln', 0), null);
    assert.equal(call('ln', -1), null);
    assert.equal(call('log10', 1000), 3);
    assert.equal(call('log10', 0), null);
    assert.equal(call('exp', 0), 1);
    assert.equal(call('exp', 1000), null, 'overflow');
    assert.equal(call('pow', 2, 10), 1024);
    assert.equal(call('pow', '2', '0.5'), Math.SQRT2);
    assert.equal(call('pow', 0, -1), null);
    assert.equal(call('pow', -8, 1 / 3), null);
    assert.equal(call('pow', 2, null), null);
    for (const name of ['floor', 'ceil', 'abs', 'sqrt', 'ln', 'log10', 'exp'] as const) {
      assert.equal(call(name, null), null, name);
      assert.equal(call(name, 'abc'), null, name);
      assert.equal(make(name, ['any']).resultType, 'number');
    }
  });

  it('least / greatest: numbers, numeric strings, strings, nulls ignored', () => {
    assert.equal(call('least', 3, 1, 2), 1);
    assert.equal(call('greatest', 3, 1, 2), 3);
    assert.equal(call('least', '10', 9), 9, 'numeric strings compare as numbers');
    assert.equal(call('greatest', '10', '9'), 10);
    assert.equal(call('least', 'b', 'a', 'c'), 'a', 'all strings: lexicographic');
    assert.equal(call('greatest', 'b', 'a', null), 'b');
    assert.equal(call('least', 'x', 5, 7), 5, 'mixed: the numeric ones');
    assert.equal(call('least', null, null), null);
    assert.equal(call('greatest', null, 4), 4);
    assert.equal(call('least', 'x', null), 'x');
    assert.equal(call('greatest', true, 0), 1);
    assert.equal(make('least', ['time', 'time']).resultType, 'time');
    assert.equal(make('least', ['number', 'number']).resultType, 'number');
    assert.equal(make('least', ['string', 'number']).resultType, 'any');
  });
});
