import { strict as assert } from 'assert';
import { LivenessTracker } from '../../../node/cluster/liveness';
import type { NodeStats } from '../../../node/cluster/node-stats';

const stats: NodeStats = {
  events: 5,
  segments: 1,
  bufferedEvents: 2,
  bufferedBytes: 100,
  storageBytes: 4096,
  indexes: ['main'],
  newestEventMicros: null,
};

describe('liveness', () => {
  it('up when heard within the failure timeout, down after it, up again when heard; each change reported once', () => {
    const changes: [string, boolean][] = [];
    const tracker = new LivenessTracker(500, (id, up) => changes.push([id, up]));
    assert.deepEqual(tracker.of('n2', 0), { up: false, lastHeartbeatMs: null, stats: null });
    tracker.heard('n2', 1000, stats);
    tracker.heard('n2', 1100);
    assert.deepEqual(tracker.of('n2', 1600), { up: true, lastHeartbeatMs: 1100, stats });
    tracker.sweep(1600);
    assert.deepEqual(changes, [['n2', true]]);
    tracker.sweep(1601);
    tracker.sweep(1700);
    assert.equal(tracker.of('n2', 1700).up, false);
    assert.deepEqual(changes, [
      ['n2', true],
      ['n2', false],
    ]);
    tracker.heard('n2', 1800);
    assert.deepEqual(changes.at(-1), ['n2', true]);
    assert.deepEqual(tracker.of('n2', 1800).stats, stats, 'a heartbeat without counts keeps the last ones');
  });

  it('forgets nodes that are no longer members', () => {
    const tracker = new LivenessTracker(500, () => undefined);
    tracker.heard('n2', 0);
    tracker.heard('n3', 0);
    tracker.retain(new Set(['n3']));
    assert.equal(tracker.of('n2', 0).lastHeartbeatMs, null);
    assert.equal(tracker.of('n3', 0).lastHeartbeatMs, 0);
  });
});
