import { strict as assert } from 'assert';
import { agg, call, f, stageOf, stagesOf } from '../helpers';

describe('query stages: sort', () => {
  it('sort: expressions with asc/desc (default asc), aggregate references after stats', () => {
    assert.deepEqual(stageOf('sort n desc, host, len(x) asc'), {
      kind: 'sort',
      keys: [
        { expr: f('n'), direction: 'desc' },
        { expr: f('host'), direction: 'asc' },
        { expr: call('len', f('x')), direction: 'asc' },
      ],
    });
    assert.deepEqual(stageOf('sort by n desc'), stageOf('sort n desc'), 'KQL-style "sort by"');
    const [, sort] = stagesOf('stats count(), avg(ms) as a by host | sort count() desc, avg(ms)');
    assert.deepEqual(sort, {
      kind: 'sort',
      keys: [
        { expr: { ...agg('count'), column: 'count' }, direction: 'desc' },
        { expr: { ...agg('avg', f('ms')), column: 'a' }, direction: 'asc' },
      ],
    });
  });
});
