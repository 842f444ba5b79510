/**
 * The heap growing factor a server sets for its isolates, unless node's own command line set one.
 * Each case runs in a child process: the flag is process-wide.
 */
import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import path from 'path';
import { HEAP_GROWING_PERCENT, setsHeapGrowth } from '../../../node/core/heap-growth';

const MODULE = path.join(__dirname, '..', '..', '..', 'node', 'core', 'heap-growth.js');

/** Runs applyHeapGrowth in a fresh node started with `nodeArgs`; what it returned. */
function appliedIn(nodeArgs: string[]): boolean {
  const script = `process.stdout.write(String(require(${JSON.stringify(MODULE)}).applyHeapGrowth()))`;
  return execFileSync(process.execPath, [...nodeArgs, '-e', script], { encoding: 'utf8' }) === 'true';
}

describe('heap growth', () => {
  it('recognises the flag in every spelling V8 takes, and nothing else', () => {
    assert.ok(setsHeapGrowth(['--heap-growing-percent=50']));
    assert.ok(setsHeapGrowth(['--inspect', '--heap_growing_percent=0']));
    assert.ok(setsHeapGrowth(['--heap-growing-percent']));
    assert.ok(!setsHeapGrowth([]));
    assert.ok(!setsHeapGrowth(['--heap-growing-percentage=5', '--max-old-space-size=512']));
  });

  it('sets the factor in a process whose command line did not', () => {
    assert.ok(HEAP_GROWING_PERCENT > 0);
    assert.equal(appliedIn([]), true);
  });

  it("keeps the operator's factor", () => {
    assert.equal(appliedIn(['--heap-growing-percent=50']), false);
  });
});
