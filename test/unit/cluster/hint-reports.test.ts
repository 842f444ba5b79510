import { strict as assert } from 'assert';
import { BytePacer } from '../../../node/cluster/hint-replay';
import { HintReports } from '../../../node/cluster/hint-reports';

describe('hint reports', () => {
  it("keep each holder's last list: a target is pending while any holder named it, until that holder says otherwise", () => {
    const reports = new HintReports();
    reports.report('a', ['c']);
    reports.report('b', ['c', 'd']);
    assert.deepEqual(reports.holdersOf('c'), ['a', 'b']);
    assert.deepEqual(reports.holdersOf('d'), ['b']);
    assert.deepEqual([...reports.targets()].sort(), ['c', 'd']);
    reports.report('b', []);
    assert.deepEqual(reports.holdersOf('c'), ['a']);
    assert.deepEqual(reports.holdersOf('d'), []);
    assert.deepEqual([...reports.targets()], ['c']);
  });

  it('know who reported since this node started, an empty list too, and tell each first report once', () => {
    const reports = new HintReports();
    const firsts: boolean[] = [];
    const stop = reports.onFirstReport(() => firsts.push(reports.hasReported('a')));
    assert.equal(reports.hasReported('a'), false);
    reports.report('a', []);
    reports.report('a', ['c']);
    assert.equal(reports.hasReported('a'), true);
    assert.deepEqual(firsts, [true]);
    stop();
    reports.report('b', []);
    assert.deepEqual(firsts, [true]);
    reports.retain(new Set(['a']));
    assert.equal(reports.hasReported('b'), false, 'a member no more is forgotten');
  });

  it('forget holders that are no longer members', () => {
    const reports = new HintReports();
    reports.report('a', ['c']);
    reports.report('gone', ['c']);
    reports.retain(new Set(['a', 'c']));
    assert.deepEqual(reports.holdersOf('c'), ['a']);
  });
});

describe('hint replay pacing', () => {
  it('lets a send go at once, then spaces the next by the bytes sent at the rate', () => {
    let now = 1_000;
    const pacer = new BytePacer(() => now);
    assert.equal(pacer.waitMs(), 0);
    pacer.sent(2_000, 1_000); // 2 s of bytes at 1,000 bytes a second
    assert.equal(pacer.waitMs(), 2_000);
    now += 500;
    assert.equal(pacer.waitMs(), 1_500);
    now += 1_500;
    pacer.sent(500, 1_000);
    assert.equal(pacer.waitMs(), 500);
  });

  it('keeps the average at the rate over many sends, and an idle spell earns no burst', () => {
    let now = 0;
    const pacer = new BytePacer(() => now);
    let bytes = 0;
    for (let i = 0; i < 100; i++) {
      now += pacer.waitMs();
      pacer.sent(300, 10_000);
      bytes += 300;
    }
    // 100 sends of 300 bytes at 10,000 bytes a second: the last goes at 99 * 30 ms.
    assert.equal(now, 99 * 30);
    assert.equal(bytes, 30_000);
    now += 60_000;
    assert.equal(pacer.waitMs(), 0);
    pacer.sent(300, 10_000);
    assert.equal(pacer.waitMs(), 30, 'after a pause, the next send waits its own time again');
  });
});
