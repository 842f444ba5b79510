import { strict as assert } from 'assert';
import { agg, stageOf, stagesOf } from '../helpers';

describe('query stages: top', () => {
  it('top: N, fields, by fields; default N 10; count() after top', () => {
    assert.deepEqual(stageOf('top 5 host, status by region'), {
      kind: 'top',
      count: 5,
      fields: [{ name: 'host' }, { name: 'status' }],
      by: [{ name: 'region' }],
    });
    assert.deepEqual(stageOf('top uri'), { kind: 'top', count: 10, fields: [{ name: 'uri' }], by: [] });
    const [, sort] = stagesOf('top uri | sort count() asc');
    assert.deepEqual(sort, { kind: 'sort', keys: [{ expr: { ...agg('count'), column: 'count' }, direction: 'asc' }] });
  });
});
