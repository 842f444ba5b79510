import { AGGREGATES_IMPL } from '../../../query/aggregates/index';
import type { AggregateSite, AggregateState } from '../../../query/aggregates/types';
import type { AggregateFunctionName } from '../../../query/syntax/ast';
import type { StaticType, Value } from '../../../query/value';

// A 10,000-second range (from 0 would read as a request without `from`: see rate()).
export const CTX = { nowMicros: 20_000e6, fromMicros: 10_000e6, toMicros: 20_000e6 };

export function site(name: AggregateFunctionName, argType: StaticType = 'any', extra: Partial<AggregateSite> = {}): AggregateSite {
  return { name, argType, parameter: null, ctx: CTX, ...extra };
}

/** A state fed with the values (row i at time times[i], default i). */
export function run(s: AggregateSite, values: readonly Value[], times?: readonly number[]): AggregateState {
  const state = AGGREGATES_IMPL[s.name].create(s);
  for (let i = 0; i < values.length; i++) state.add(values[i]!, times ? times[i]! : i);
  return state;
}

export function result(s: AggregateSite, values: readonly Value[], times?: readonly number[]): Value {
  return run(s, values, times).result();
}

/** A state that went through JSON text, as partials do between processes. */
export function viaJson(s: AggregateSite, state: AggregateState): AggregateState {
  return AGGREGATES_IMPL[s.name].fromJSON(s, JSON.parse(JSON.stringify(state.toJSON())));
}

/**
 * The rows split at random into k partials (each through JSON), merged in a random order into a
 * fresh state (also through JSON at the end).
 */
export function mergedResult(s: AggregateSite, values: readonly Value[], times: readonly number[], k: number, rand: () => number): Value {
  const factory = AGGREGATES_IMPL[s.name];
  const parts = Array.from({ length: k }, () => factory.create(s));
  for (let i = 0; i < values.length; i++) parts[Math.floor(rand() * k)]!.add(values[i]!, times[i]!);
  const order = parts.map((p) => viaJson(s, p)).sort(() => rand() - 0.5);
  const total = factory.create(s);
  for (const p of order) total.merge(p);
  return viaJson(s, total).result();
}

/** mulberry32: a small seeded PRNG, so that statistical tests are deterministic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal deviate (Box-Muller). */
export function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

export function relErr(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.abs(expected);
}
