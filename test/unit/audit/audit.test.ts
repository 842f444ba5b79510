/**
 * The audit log's pure parts: the bound on refused credentials per client address (with a clock
 * the test moves), the query `GET /audit` runs (filters as variables, never in the text), and the
 * internal index kept out of every index pattern but its own name.
 */
import { strict as assert } from 'assert';
import { auditEvent } from '../../../node/audit/audit-entry';
import { auditQuery } from '../../../node/audit/audit-query';
import { MAX_TRACKED_ADDRESSES, OTHER_ADDRESSES, RefusalBound } from '../../../node/audit/refusal-bound';
import { AUDIT_INDEX, isStoredIndexName, isValidIndexName } from '../../../storage/core/event';
import { indexMatcher } from '../../../storage/scan';

describe('audit log', () => {
  describe('the bound on refusals', () => {
    let nowMs = 1_000_000;
    const bound = (perWindow: number) =>
      new RefusalBound(
        () => ({ perWindow, windowMs: 60_000 }),
        () => nowMs,
      );

    it('records the first refusals of an address in a window, counts the rest, and sums them up when the window ends', () => {
      const refusals = bound(3);
      const admitted = Array.from({ length: 8 }, () => refusals.admit('10.0.0.1'));
      assert.deepEqual(admitted, [true, true, true, false, false, false, false, false]);
      assert.equal(refusals.admit('10.0.0.2'), true, 'another address has its own window');
      assert.deepEqual(refusals.ended(), [], 'no window has ended yet');
      nowMs += 60_000;
      assert.deepEqual(refusals.ended(), [{ address: '10.0.0.1', startMs: nowMs - 60_000, suppressed: 5 }]);
      assert.equal(refusals.admit('10.0.0.1'), true, 'a new window starts');
    });

    it('sums up the open windows at once when asked for all (a shutdown)', () => {
      const refusals = bound(0);
      refusals.admit('10.0.0.9');
      refusals.admit('10.0.0.9');
      assert.deepEqual(
        refusals.ended(true).map(({ address, suppressed }) => ({ address, suppressed })),
        [{ address: '10.0.0.9', suppressed: 2 }],
      );
    });

    it(`follows at most ${MAX_TRACKED_ADDRESSES} addresses per window, counting further ones together`, () => {
      const refusals = bound(1);
      for (let i = 0; i < MAX_TRACKED_ADDRESSES; i++) assert.equal(refusals.admit(`a${i}`), true);
      assert.equal(refusals.admit('one too many'), false);
      assert.equal(refusals.admit('and another'), false);
      const ended = refusals.ended(true).filter((window) => window.address === OTHER_ADDRESSES);
      assert.deepEqual(
        ended.map(({ suppressed }) => suppressed),
        [2],
      );
    });
  });

  describe('the query of GET /audit', () => {
    it('passes filter values as variables and a prefix for an action ending in *', () => {
      const query = auditQuery({ action: 'auth.*', actor: 'key_"x" or true', q: 'reason == "FORBIDDEN"' }, 50);
      assert.equal(
        query.text,
        'from _audit | where startswith(action, $action) and actor_key_id == $actor | where reason == "FORBIDDEN"\n | head 50',
      );
      assert.deepEqual(query.variables, { action: 'auth.', actor: 'key_"x" or true' });
      assert.equal(query.stages, 4);
    });
  });

  describe('the internal index', () => {
    it('is stored but never ingested, and matches its exact name only', () => {
      assert.equal(isValidIndexName(AUDIT_INDEX), false);
      assert.equal(isStoredIndexName(AUDIT_INDEX), true);
      assert.equal(isStoredIndexName('_other'), false);
      for (const patterns of [['*'], ['*audit'], ['?audit'], ['_*'], ['main', '*']]) {
        assert.equal(indexMatcher(patterns)(AUDIT_INDEX), false, patterns.join(', '));
      }
      assert.equal(indexMatcher(['*'])('main'), true);
      assert.equal(indexMatcher([AUDIT_INDEX])(AUDIT_INDEX), true);
    });

    it('holds an entry as an event of _audit with its fields, never a null', () => {
      const event = auditEvent(
        {
          action: 'auth.refused',
          outcome: 'failure',
          actor: { keyId: null, keyName: null, scope: null, clientIp: '10.0.0.1', node: 'n1', method: 'GET', path: '/api/v1/status' },
          target: null,
          status: 401,
          reason: 'AUTH_REQUIRED',
          scheme: 'none',
        },
        1_700_000_000_000_000,
      );
      assert.equal(event.index, AUDIT_INDEX);
      assert.deepEqual(event.fields, {
        action: 'auth.refused',
        outcome: 'failure',
        client_ip: '10.0.0.1',
        node: 'n1',
        method: 'GET',
        path: '/api/v1/status',
        status: 401,
        reason: 'AUTH_REQUIRED',
        scheme: 'none',
      });
      assert.equal(JSON.parse(event.raw)._time, '2023-11-14T22:13:20.000Z');
    });
  });
});
