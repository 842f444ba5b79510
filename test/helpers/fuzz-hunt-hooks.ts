/**
 * A mocha root hook: with FUZZ_RUNS set (a longer hunt, fuzz.ts), no test has a timeout, so a
 * property given thousands of runs is never cut off by the suite's 60 s.
 */
import type { Context } from 'mocha';

export const mochaHooks = {
  beforeEach(this: Context): void {
    if (process.env.FUZZ_RUNS) this.currentTest?.timeout(0);
  },
};
