/**
 * Field types and column order as the pipeline transforms them, stage by stage, while a query is
 * planned; and the field aliases every stage resolves.
 */
import type { EvalContext, StaticType } from '../value';
import type { CompileEnv, StatsSpec } from './operators';
import type { TopFinish } from './plan';

/** Field aliases from the ingest mapping (event-collector names). A Map: a field may be named `toString` or `constructor`. */
const FIELD_ALIASES = new Map([
  ['_timestamp', '_time'],
  ['_source', 'source'],
  ['_sourcetype', 'sourcetype'],
]);

export function resolveField(name: string): string {
  return FIELD_ALIASES.get(name) ?? name;
}

export class Schema {
  readonly types = new Map<string, StaticType>([['_time', 'time']]);
  /** Names a stage defined (not stored columns), for pushdown decisions. */
  readonly defined = new Set<string>();
  /** Output columns in order, once a stats/top fixed them (null: event fields). */
  columns: string[] | null = null;

  typeOf(name: string): StaticType {
    return this.types.get(name) ?? 'any';
  }

  define(name: string, type: StaticType): void {
    this.types.set(name, type);
    this.defined.add(name);
    if (this.columns !== null && !this.columns.includes(name)) this.columns.push(name);
  }

  /** What expressions compiled at this point of the pipeline see. */
  compileEnv(ctx: EvalContext): CompileEnv {
    return { ctx, typeOf: (name) => this.typeOf(name), resolveField };
  }

  /** A stats (or top) replaces the fields with its columns: keys, aggregates, and `percent` for top. */
  becomeStatsColumns(spec: StatsSpec, top: TopFinish | null): void {
    const types: [string, StaticType][] = [
      ...spec.keys.map((key): [string, StaticType] => [key.name, key.expr.type]),
      ...spec.aggregates.map((aggregate): [string, StaticType] => [aggregate.name, aggregate.factory.resultType(aggregate.site)]),
    ];
    if (top !== null) types.push(['percent', 'number']);
    this.types.clear();
    this.defined.clear();
    for (const [name, type] of types) {
      this.types.set(name, type);
      this.defined.add(name);
    }
    this.columns = types.map(([name]) => name);
  }
}
