import { strict as assert } from 'assert';
import { CatchUp } from '../../../node/cluster/catch-up';
import { EMPTY_STATE, type ClusterState } from '../../../node/cluster/cluster-state';
import { HintReports } from '../../../node/cluster/hint-reports';

const FAILURE_TIMEOUT_MS = 1000;

/** Node `a` in a cluster of a, b and c: its own hints, the reports it heard, who is up. */
function cluster(options: { ownHints?: Record<string, number>; down?: string[]; removed?: string[] } = {}) {
  const members = ['a', 'b', 'c'].map((id) => ({ id, http: `${id}:7480`, grpc: `${id}:7481`, role: 'all' as const }));
  const state: ClusterState = { ...EMPTY_STATE, version: 3, members, removed: options.removed ?? [] };
  const hintReports = new HintReports();
  const catchUp = new CatchUp({
    self: 'a',
    hints: { pending: (target) => options.ownHints?.[target] ?? 0 },
    membership: {
      state: () => state,
      livenessOf: (id) => ({ up: !(options.down ?? []).includes(id), lastHeartbeatMs: null, stats: null }),
      hintReports,
    },
    failureTimeoutMs: FAILURE_TIMEOUT_MS,
    stallMs: 50,
  });
  return { catchUp, hintReports };
}

describe('catch-up: when a node may be asked for its keys', () => {
  it('asks no node, itself included, before membership started and before it heard the others report', () => {
    const { catchUp, hintReports } = cluster();
    assert.deepEqual(
      ['a', 'b', 'c'].map((id) => catchUp.mayAsk(id)),
      [false, false, false],
    );
    catchUp.started(10_000);
    assert.match(catchUp.catchingUp()!, /has not yet heard every member's hint report/);
    hintReports.report('b', []);
    // Hints for c can only be on b, which said it holds none; hints for b could be on c, not heard yet.
    assert.deepEqual(
      ['a', 'b', 'c'].map((id) => catchUp.mayAsk(id)),
      [false, false, true],
    );
    hintReports.report('c', []);
    assert.deepEqual(
      ['a', 'b', 'c'].map((id) => catchUp.mayAsk(id)),
      [true, true, true],
    );
    assert.equal(catchUp.catchingUp(), null);
  });

  it('after its own event loop stalled past the stall limit, a node catches up as after a start, until it hears every report again', async () => {
    const { catchUp, hintReports } = cluster();
    catchUp.started();
    hintReports.report('b', []);
    hintReports.report('c', []);
    assert.equal(catchUp.catchingUp(), null);
    catchUp.watchStalls(10);
    try {
      // A stall: the loop blocked well past 50 ms (a SIGSTOP, a swap storm).
      const until = Date.now() + 150;
      while (Date.now() < until);
      await new Promise((resolve) => setTimeout(resolve, 40));
      assert.match(catchUp.catchingUp()!, /has not yet heard every member's hint report/);
      hintReports.report('b', []);
      hintReports.report('c', []);
      assert.equal(catchUp.catchingUp(), null);
    } finally {
      catchUp.close();
    }
  });

  it('a node with hints pending anywhere is not asked; this node says so while its own are pending', () => {
    const { catchUp, hintReports } = cluster({ ownHints: { c: 2 } });
    catchUp.started();
    hintReports.report('b', ['a']);
    hintReports.report('c', []);
    assert.equal(catchUp.mayAsk('c'), false, 'a holds hints for c');
    assert.equal(catchUp.mayAsk('b'), true);
    assert.equal(catchUp.mayAsk('a'), false, 'b holds hints for a');
    assert.match(catchUp.catchingUp()!, /still being replayed to it \(held by b\)/);
    hintReports.report('b', []);
    assert.equal(catchUp.catchingUp(), null);
  });

  it('a member down and silent for the failure timeout since the start counts as down; one up is waited for', () => {
    const { catchUp, hintReports } = cluster({ down: ['c'] });
    catchUp.started(10_000);
    hintReports.report('b', []);
    assert.equal(catchUp.reportsHeardFor('a', 10_000 + FAILURE_TIMEOUT_MS - 1), false);
    assert.equal(catchUp.reportsHeardFor('a', 10_000 + FAILURE_TIMEOUT_MS), true);
    const upButSilent = cluster();
    upButSilent.catchUp.started(10_000);
    upButSilent.hintReports.report('b', []);
    assert.equal(upButSilent.catchUp.reportsHeardFor('a', 10_000 + 10 * FAILURE_TIMEOUT_MS), false, 'c is up: its report is on its way');
  });

  it('a query waits for the reports, at most as long as it is told and only within the failure timeout after the start', async () => {
    const { catchUp, hintReports } = cluster();
    catchUp.started();
    const waited = catchUp.reportsHeard(10_000, new AbortController().signal);
    hintReports.report('b', []);
    hintReports.report('c', []);
    await waited;
    assert.equal(catchUp.catchingUp(), null);

    const silent = cluster();
    silent.catchUp.started();
    const began = Date.now();
    await silent.catchUp.reportsHeard(50, new AbortController().signal);
    assert.ok(Date.now() - began >= 45, 'it waited');
    assert.notEqual(silent.catchUp.catchingUp(), null);

    const late = cluster();
    late.catchUp.started(Date.now() - FAILURE_TIMEOUT_MS);
    const lateBegan = Date.now();
    await late.catchUp.reportsHeard(10_000, new AbortController().signal);
    assert.ok(Date.now() - lateBegan < 1000, 'past the failure timeout after the start a query does not wait');
  });
});
