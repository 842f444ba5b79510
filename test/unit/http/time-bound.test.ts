/**
 * Time bounds of requests (`from`, `to`, `since`): a relative bound farther from now than a date
 * can be is a VALIDATION_ERROR naming the parameter. It used to pass, and answers that show the
 * bound as a date (GET /histogram's buckets, GET /fields/{name}/values' meta) failed with a 500.
 */
import { strict as assert } from 'assert';
import { ApiError } from '../../../node/core/errors';
import { MAX_DATE_MS, parseTimeBound } from '../../../node/core/time-bound';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function refusal(name: string, text: string): ApiError {
  try {
    parseTimeBound(name, text, NOW);
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return error;
  }
  throw new Error(`${name}=${text} was taken`);
}

describe('time bounds of requests', () => {
  it('takes relative bounds as far as a date reaches, each a date', () => {
    for (const text of ['-1h', '-100y', '+100y', '-270000y', 'now-7d']) {
      const ms = parseTimeBound('from', text, NOW);
      assert.ok(Math.abs(ms) <= MAX_DATE_MS, text);
      assert.equal(typeof new Date(ms).toISOString(), 'string', text);
    }
    assert.equal(parseTimeBound('from', '-1h', NOW), NOW - 3_600_000);
  });

  it('refuses a relative bound past what a date can hold, naming the parameter', () => {
    for (const [name, text] of [
      ['from', '-99999999y'],
      ['to', '+99999999y'],
      ['from', '-999999999d'],
      ['since', '-9999999999999999999999y'],
    ]) {
      const error = refusal(name!, text!);
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.equal(error.status, 400);
      assert.equal(error.message, `${name}: "${text}" is farther from now than a date can be`);
    }
  });
});
