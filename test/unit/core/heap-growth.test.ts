/**
 * The heap growing factor a server sets for its isolates, from its main heap's size, unless node's
 * own command line set one. The cases that set it run in a child process: the flag is process-wide.
 */
import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import path from 'path';
import {
  growingPercentFor,
  HEAP_HEADROOM_BYTES,
  MAX_GROWING_PERCENT,
  MIN_GROWING_PERCENT,
  setsHeapGrowth,
} from '../../../node/core/heap-growth';

const MODULE = path.join(__dirname, '..', '..', '..', 'node', 'core', 'heap-growth.js');
const MIB = 1024 * 1024;

interface Run {
  applied: boolean;
  /** Each factor set, in order. */
  set: number[];
}

/**
 * In a fresh node started with `nodeArgs`: applies the growth, then holds `arrays` arrays of
 * 16,384 small objects (about 0.6 MiB each) through a full collection and waits for the observer
 * to hear of it.
 */
function runIn(nodeArgs: string[], arrays: number): Run {
  const script = `
    const set = [];
    const stop = require(${JSON.stringify(MODULE)}).applyHeapGrowth(process.execArgv, (percent) => set.push(percent));
    const held = Array.from({ length: ${arrays} }, () => Array.from({ length: 16384 }, (_, i) => ({ i })));
    globalThis.gc();
    const done = () => { if (stop) stop(); process.stdout.write(JSON.stringify({ applied: stop !== null, set, held: held.length })); };
    const started = Date.now();
    const check = () => (set.length > 1 || stop === null || Date.now() - started > 5000 ? done() : setTimeout(check, 10));
    check();`;
  const out = JSON.parse(execFileSync(process.execPath, ['--expose-gc', ...nodeArgs, '-e', script], { encoding: 'utf8' })) as Run;
  return { applied: out.applied, set: out.set };
}

describe('heap growth', () => {
  it('3x for a small heap, the headroom for a larger one, 1.25x past four times the headroom', () => {
    assert.equal(growingPercentFor(0), MAX_GROWING_PERCENT);
    assert.equal(growingPercentFor(25 * MIB), 200);
    assert.equal(growingPercentFor(HEAP_HEADROOM_BYTES / 2), 200);
    assert.equal(growingPercentFor(HEAP_HEADROOM_BYTES), 100);
    assert.equal(growingPercentFor(128 * MIB), 50);
    assert.equal(growingPercentFor(4 * HEAP_HEADROOM_BYTES), 25);
    assert.equal(growingPercentFor(2048 * MIB), MIN_GROWING_PERCENT);
    // Never less room than a smaller heap had, up to the floor.
    let room = Infinity;
    for (let live = 256 * MIB; live >= 0; live -= 8 * MIB) {
      const grown = (live * growingPercentFor(live)) / 100;
      // Whole percents: within 1% of the heap.
      assert.ok(grown <= room + live / 100, `${live} bytes: ${grown} of room after ${room}`);
      room = grown;
    }
  });

  it('recognises the flag in every spelling V8 takes, and nothing else', () => {
    assert.ok(setsHeapGrowth(['--heap-growing-percent=50']));
    assert.ok(setsHeapGrowth(['--inspect', '--heap_growing_percent=0']));
    assert.ok(setsHeapGrowth(['--heap-growing-percent']));
    assert.ok(!setsHeapGrowth([]));
    assert.ok(!setsHeapGrowth(['--heap-growing-percentage=5', '--max-old-space-size=512']));
  });

  it('sets the factor in a process whose command line did not, and sets it again after a full collection of a larger heap', () => {
    // About 190 MiB, well past the 32 MiB that get 3x.
    const run = runIn([], 300);
    assert.equal(run.applied, true);
    assert.equal(run.set[0], MAX_GROWING_PERCENT);
    assert.equal(run.set.length, 2, `factors set: ${run.set.join(', ')}`);
    assert.ok(run.set[1]! < MAX_GROWING_PERCENT && run.set[1]! >= MIN_GROWING_PERCENT, `then ${run.set[1]}`);
  });

  it("keeps the operator's factor", () => {
    assert.deepEqual(runIn(['--heap-growing-percent=50'], 1), { applied: false, set: [] });
  });
});
