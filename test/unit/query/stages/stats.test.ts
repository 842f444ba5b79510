import { strict as assert } from 'assert';
import { agg, call, f, stageOf } from '../helpers';

describe('query stages: stats', () => {
  it('stats: aggregates with aliases and default names, by keys and bin()', () => {
    assert.deepEqual(stageOf('stats count() as n, p99(ms) by host, bin(_time, 5m) as t'), {
      kind: 'stats',
      aggregates: [
        { call: agg('count'), alias: 'n', name: 'n' },
        { call: agg('p99', f('ms')), alias: null, name: 'p99_ms' },
      ],
      by: [
        { expr: f('host'), alias: null, name: 'host' },
        { expr: call('bin', f('_time'), { kind: 'duration', micros: 300_000_000 } as never), alias: 't', name: 't' },
      ],
    });
    const st = stageOf('stats count(), avg(ms) by bin(_time, 1h), lower(host)') as {
      aggregates: Array<{ name: string }>;
      by: Array<{ name: string }>;
    };
    assert.deepEqual(
      st.by.map((k) => k.name),
      ['_time', 'lower_host'],
    );
    assert.deepEqual(
      st.aggregates.map((a) => a.name),
      ['count', 'avg_ms'],
    );
    assert.deepEqual(stageOf('stats by host'), { kind: 'stats', aggregates: [], by: [{ expr: f('host'), alias: null, name: 'host' }] });
  });
});
