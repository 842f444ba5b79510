/** The sliding minimum behind the hint store's oldest request time: it always equals a scan of the entries. */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { OldestWindow } from '../../../node/cluster/oldest-window';

describe('oldest window', () => {
  it('reads the smallest value of the entries left, whatever order they leave in (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ add: fc.integer({ min: 0, max: 50 }) }),
            fc.record({ removeOldest: fc.constant(true) }),
            fc.record({ removeAt: fc.nat() }),
          ),
          { maxLength: 200 },
        ),
        (steps) => {
          const window = new OldestWindow();
          const model = new Map<number, number>();
          let next = 1;
          for (const step of steps) {
            if ('add' in step) {
              window.add(next, step.add);
              model.set(next++, step.add);
            } else if (model.size > 0) {
              const keys = [...model.keys()];
              const key = 'removeOldest' in step ? keys[0]! : keys[step.removeAt % keys.length]!;
              window.remove(key);
              model.delete(key);
            }
            assert.equal(window.size, model.size);
            assert.equal(window.min(), model.size === 0 ? null : Math.min(...model.values()));
          }
        },
      ),
    );
  });
});
