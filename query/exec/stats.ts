/**
 * `stats`: grouping and aggregation split into partial and final parts. A shard (a worker, a
 * cluster node) feeds batches into a StatsAccumulator and ships `toPartial()`; the coordinator
 * merges partials with `mergePartial()` and reads ordered rows with `rows()`.
 *
 * Grouping assigns each key value a small id (dictionary columns once per dictionary entry, not
 * per row), then combines key ids into a group id: nothing is allocated per row for one or two keys.
 */
import type { Column } from '../../storage/core/column';
import type { AggregateState } from '../aggregates/types';
import type { StatsSpec } from '../plan/operators';
import type { StaticType, Value } from '../value';
import { stringToNumber, valueAt } from './access';
import { KeyDictionary } from './key-dictionary';
import { compareValues } from './compare';
import { truthAt, type Batch } from './vectors';

// The spec is part of the plan (plan/operators.ts); this module runs it.
export type { StatsAggregateSpec, StatsKeySpec, StatsSpec } from '../plan/operators';

/**
 * A JSON-safe partial, column-wise: `keys[k][g]` is key k of group g and `states[a][g]` the JSON
 * state of aggregate a for group g. Columns of primitives cross threads (and later the network)
 * far cheaper than one object per group, and a high-cardinality `by` has many groups.
 */
export interface PartialStats {
  groupCount: number;
  keys: Value[][];
  states: unknown[][];
}

/** The group map key of a tuple of key ids (the same whichever path creates the group). */
function compositeOf(ids: number[]): number | string {
  if (ids.length === 0) return 0;
  if (ids.length === 1) return ids[0];
  if (ids.length === 2 && ids[0] < 2 ** 26 && ids[1] < 2 ** 26) return ids[0] * 2 ** 26 + ids[1];
  return ids.join(',');
}

export class StatsAccumulator {
  private readonly dictionaries: KeyDictionary[];
  private readonly groupIndex = new Map<number | string, number>();
  /**
   * Key ids of each group, flat: group g's key k is at `g * keys + k`. A high-cardinality key
   * makes tens of thousands of groups; an array each was as many objects for the GC.
   */
  private groupKeyIds = new Int32Array(64);
  private groups = 0;
  private readonly keyCount: number;
  private readonly states: AggregateState[][] = [];
  private keyIds: Int32Array[] = [];
  private groupIds = new Int32Array(0);
  /** One key: group of each key id (-1 until seen), so a row costs an array read, not a Map lookup. */
  private groupOfKey = new Int32Array(64).fill(-1);
  /** Scratch for one key id (groupFor copies the ids it is given). */
  private readonly oneId = [0];
  /**
   * Aggregates that count rows without reading a value (`count()`): they take each group's row
   * count of a batch at once (AggregateState.addRows) instead of one call per row.
   */
  private readonly countsRows: boolean[];
  /** Every aggregate counts rows: a one-key batch over a dictionary column is a histogram of codes. */
  private readonly onlyCounts: boolean;
  /**
   * Every aggregate is `count()` or `rate()` (`top` is one): they all hold the group's row count,
   * kept in `groupRows` instead of state objects, so that a key with many groups (paths, users)
   * allocates nothing per group here, nor in the coordinator's merge.
   */
  private readonly rowCounter: boolean;
  private groupRows = new Float64Array(64);
  /** Scratch: rows per dictionary code or per group in the batch at hand. */
  private rowCounts = new Uint32Array(0);
  private touched = new Int32Array(0);

  constructor(readonly spec: StatsSpec) {
    this.keyCount = spec.keys.length;
    this.dictionaries = spec.keys.map(() => new KeyDictionary());
    this.countsRows = spec.aggregates.map(
      (aggregate) => aggregate.arg === null && typeof aggregate.factory.create(aggregate.site).addRows === 'function',
    );
    this.onlyCounts = this.countsRows.every((counts) => counts);
    this.rowCounter = spec.aggregates.every(
      (aggregate) => aggregate.arg === null && (aggregate.site.name === 'count' || aggregate.site.name === 'rate'),
    );
  }

  get groupCount(): number {
    return this.groups;
  }

  /**
   * Approximate heap bytes held: the keys (KeyDictionary.approximateBytes) and per group its key
   * ids, its index entry and its states (a row count only, for `count()` and `rate()`: most
   * high-cardinality `top` and `stats count() by` queries). The per-query memory budget is
   * charged with it.
   */
  approximateBytes(): number {
    const perState = 96;
    const perGroup =
      this.keyCount * 4 + 4 + (this.keyCount > 1 ? 48 : 0) + (this.rowCounter ? 8 : 32 + perState * this.spec.aggregates.length);
    let bytes = this.groups * perGroup;
    for (const dictionary of this.dictionaries) bytes += dictionary.approximateBytes();
    return bytes;
  }

  private groupFor(composite: number | string, ids: ArrayLike<number>): number {
    // One key: groupOfKey is the index (every caller goes through groupOfKeyId), no Map needed.
    let group = this.spec.keys.length === 1 ? undefined : this.groupIndex.get(composite);
    if (group === undefined) {
      group = this.groups++;
      if (this.spec.keys.length !== 1) this.groupIndex.set(composite, group);
      const keys = this.keyCount;
      if ((group + 1) * keys > this.groupKeyIds.length) {
        const grown = new Int32Array(Math.max((group + 1) * keys, this.groupKeyIds.length * 2));
        grown.set(this.groupKeyIds);
        this.groupKeyIds = grown;
      }
      for (let k = 0; k < keys; k++) this.groupKeyIds[group * keys + k] = ids[k];
      if (!this.rowCounter) this.states.push(this.spec.aggregates.map((aggregate) => aggregate.factory.create(aggregate.site)));
      else if (group === this.groupRows.length) {
        const grown = new Float64Array(group * 2);
        grown.set(this.groupRows);
        this.groupRows = grown;
      }
    }
    return group;
  }

  /** Adds `rows` to a group's row-counting aggregates. */
  private addRowsTo(group: number, rows: number): void {
    if (this.rowCounter) {
      this.groupRows[group] += rows;
      return;
    }
    const states = this.states[group];
    for (let a = 0; a < states.length; a++) if (this.countsRows[a]) (states[a].addRows as (rows: number) => void)(rows);
  }

  /** One key: the group of a key id. */
  private groupOfKeyId(id: number): number {
    if (id >= this.groupOfKey.length) {
      const grown = new Int32Array(Math.max(id + 1, this.groupOfKey.length * 2)).fill(-1);
      grown.set(this.groupOfKey);
      this.groupOfKey = grown;
    }
    let group = this.groupOfKey[id];
    if (group === -1) {
      this.oneId[0] = id;
      group = this.groupFor(id, this.oneId);
      this.groupOfKey[id] = group;
    }
    return group;
  }

  /**
   * Scratch counters for `size` slots, all zero: a user zeroes the slots it touched (listed in
   * `touched`) when done, so no call pays for clearing a large dictionary's worth of slots.
   */
  private counters(size: number): Uint32Array {
    if (this.rowCounts.length < size) {
      this.rowCounts = new Uint32Array(Math.max(size, this.rowCounts.length * 2, 1024));
      this.touched = new Int32Array(this.rowCounts.length);
    }
    return this.rowCounts;
  }

  /** Computes the group of each selected row into `this.groupIds`, given the evaluated key columns. */
  private assignGroups(columns: Column[], sel: Uint32Array, n: number): void {
    if (this.groupIds.length < n) this.groupIds = new Int32Array(Math.max(n, 1024));
    const keys = this.spec.keys;
    if (keys.length === 0) {
      const group = this.groupFor(0, []);
      this.groupIds.fill(group, 0, n);
      return;
    }
    if (this.keyIds.length !== keys.length || this.keyIds[0].length < n) {
      this.keyIds = keys.map(() => new Int32Array(Math.max(n, 1024)));
    }
    columns.forEach((column, k) => this.dictionaries[k].assign(column, sel, n, this.keyIds[k]));
    const ids = this.keyIds;
    if (keys.length === 1) {
      const only = ids[0];
      let lastId = -1;
      let lastGroup = -1;
      for (let i = 0; i < n; i++) {
        const id = only[i];
        if (id !== lastId) {
          lastId = id;
          lastGroup = this.groupOfKeyId(id);
        }
        this.groupIds[i] = lastGroup;
      }
      return;
    }
    if (keys.length === 2) {
      const [first, second] = ids;
      for (let i = 0; i < n; i++) {
        const a = first[i];
        const b = second[i];
        const composite = a < 2 ** 26 && b < 2 ** 26 ? a * 2 ** 26 + b : compositeOf([a, b]);
        // The id pair is allocated only for a new group.
        const known = this.groupIndex.get(composite);
        this.groupIds[i] = known !== undefined ? known : this.groupFor(composite, [a, b]);
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const tuple = ids.map((column) => column[i]);
      this.groupIds[i] = this.groupFor(compositeOf(tuple), tuple);
    }
  }

  /**
   * `count() by k` over a dictionary column: one counter per code present in the batch, then one
   * group lookup per such code. Only the codes seen are visited: a high-cardinality dictionary
   * (as many entries as rows) under a selective filter has few of them.
   */
  private countDictCodes(column: Extract<Column, { kind: 'dict' }>, sel: Uint32Array, n: number): void {
    const counts = this.counters(column.dict.length);
    const touched = this.touched;
    const codes = column.codes;
    let distinct = 0;
    for (let i = 0; i < n; i++) {
      const code = codes[sel[i]];
      if (counts[code]++ === 0) touched[distinct++] = code;
    }
    const dictionary = this.dictionaries[0];
    const interned = dictionary.internedOf(column);
    const table = dictionary.tableOf(column.dict, interned);
    for (let t = 0; t < distinct; t++) {
      const code = touched[t];
      const rows = counts[code];
      counts[code] = 0;
      this.addRowsTo(this.groupOfKeyId(dictionary.idOfCode(column.dict, table, code, interned)), rows);
    }
  }

  /** Hands the row-counting aggregates each group's row count in the batch (groups in `groupIds`). */
  private addGroupRowCounts(n: number): void {
    const counts = this.counters(this.groups);
    const touched = this.touched;
    const groupIds = this.groupIds;
    let distinct = 0;
    for (let i = 0; i < n; i++) {
      const group = groupIds[i];
      if (counts[group]++ === 0) touched[distinct++] = group;
    }
    for (let t = 0; t < distinct; t++) {
      const group = touched[t];
      const rows = counts[group];
      counts[group] = 0;
      this.addRowsTo(group, rows);
    }
  }

  /**
   * Adds the selected rows. `times` is the rows' `_time` as read before the operators ran (a
   * `keep` or `rename` may have removed it from the batch since); defaults to the batch's.
   */
  add(batch: Batch, sel: Uint32Array, n: number, times: Column | undefined = batch.columns.get('_time')): void {
    if (n === 0) return;
    const keyColumns = this.spec.keys.map((key) => key.expr.evaluate(batch, sel, n));
    if (this.onlyCounts && keyColumns.length === 1 && keyColumns[0].kind === 'dict') {
      this.countDictCodes(keyColumns[0], sel, n);
      return;
    }
    this.assignGroups(keyColumns, sel, n);
    if (this.countsRows.some((counts) => counts)) this.addGroupRowCounts(n);
    const groupIds = this.groupIds;
    const timeValues = times !== undefined && times.kind === 'time' ? times.values : null;
    this.spec.aggregates.forEach((aggregate, a) => {
      if (this.countsRows[a]) return;
      const column = aggregate.arg === null ? null : aggregate.arg.evaluate(batch, sel, n);
      const states = this.states;
      if (column !== null && column.kind === 'number' && !aggregate.countif) {
        // The common case (a numeric field): read the typed array directly.
        const values = column.values;
        const nulls = column.nulls;
        for (let i = 0; i < n; i++) {
          const row = sel[i];
          states[groupIds[i]][a].add(nulls !== null && nulls[row] === 1 ? null : values[row], timeValues === null ? NaN : timeValues[row]);
        }
        return;
      }
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        const time = timeValues === null ? NaN : timeValues[row];
        let value: Value = null;
        if (column !== null) value = aggregate.countif ? truthAt(column, row) === 1 : valueAt(column, row);
        states[groupIds[i]][a].add(value, time);
      }
    });
  }

  /**
   * The groups as a partial. Its arrays are built by push, not Array.from with a callback (about
   * 15x slower for thousands of groups) nor preallocated: a holey array costs postMessage three
   * times as much to copy.
   */
  toPartial(): PartialStats {
    const groupCount = this.groups;
    const keys = this.dictionaries.map((dictionary, k) => {
      const column: Value[] = [];
      for (let group = 0; group < groupCount; group++) column.push(dictionary.values[this.keyIdOf(group, k)]);
      return column;
    });
    const states = this.spec.aggregates.map((_, a) => {
      const column: unknown[] = [];
      // A row counter's JSON state is its bare count (count.ts).
      if (this.rowCounter) for (let group = 0; group < groupCount; group++) column.push(this.groupRows[group]);
      else for (let group = 0; group < groupCount; group++) column.push(this.states[group][a].toJSON());
      return column;
    });
    return { groupCount, keys, states };
  }

  mergePartial(partial: PartialStats): void {
    const aggregates = this.spec.aggregates;
    const keyCount = this.spec.keys.length;
    if (!Number.isInteger(partial.groupCount) || partial.keys.length !== keyCount || partial.states.length !== aggregates.length) {
      throw new Error('invalid stats partial: its keys or aggregates do not match the query');
    }
    // The first partial of one key comes into an empty accumulator: its keys are distinct (one
    // group each), so they need no lookup; the Map catches up when another origin asks (syncMap).
    const adopt = keyCount === 1 && this.groups === 0;
    const ids: number[] = new Array<number>(keyCount);
    for (let g = 0; g < partial.groupCount; g++) {
      if (adopt) ids[0] = this.dictionaries[0].appendDistinct(partial.keys[0][g]);
      else for (let k = 0; k < keyCount; k++) ids[k] = this.dictionaries[k].idOf(partial.keys[k][g]);
      const before = this.groups;
      const group = keyCount === 1 ? this.groupOfKeyId(ids[0]) : this.groupFor(compositeOf(ids), ids);
      if (this.rowCounter) {
        this.groupRows[group] += this.partialRowCount(partial, g);
        continue;
      }
      const fresh = group === before;
      const states = this.states[group];
      for (let a = 0; a < aggregates.length; a++) {
        const json = partial.states[a][g];
        const state = states[a];
        // A fresh state is empty: merging into it equals adopting the partial's state.
        if (state.mergeJSON !== undefined) state.mergeJSON(json);
        else if (fresh) states[a] = aggregates[a].factory.fromJSON(aggregates[a].site, json);
        else state.merge(aggregates[a].factory.fromJSON(aggregates[a].site, json));
      }
    }
  }

  /** A row counter's count of group g in a partial: the same valid count in every aggregate's state. */
  private partialRowCount(partial: PartialStats, g: number): number {
    const rows = partial.states.length === 0 ? 0 : partial.states[0][g];
    for (let a = 0; a < partial.states.length; a++) {
      const json = partial.states[a][g];
      if (typeof json !== 'number' || !Number.isInteger(json) || json < 0) {
        const { factory, site } = this.spec.aggregates[a];
        factory.fromJSON(site, json); // throws the aggregate's own error
      }
      if (json !== rows) throw new Error('invalid stats partial: the row counts of a group disagree');
    }
    return rows as number;
  }

  private keyIdOf(group: number, k: number): number {
    return this.groupKeyIds[group * this.keyCount + k];
  }

  /** Key `k` of a group. */
  keyOf(group: number, k: number): Value {
    return this.dictionaries[k].values[this.keyIdOf(group, k)];
  }

  /** The result of aggregate `a` for a group. */
  resultOf(group: number, a: number): Value {
    if (!this.rowCounter) return this.states[group][a].result();
    const rows = this.groupRows[group];
    const { factory, site } = this.spec.aggregates[a];
    return site.name === 'count' ? rows : factory.fromJSON(site, rows).result();
  }

  /** One final row: the group's keys, then its aggregates' results. */
  row(group: number): Value[] {
    const keys = this.keyCount;
    const aggregates = this.spec.aggregates.length;
    const out = new Array<Value>(keys + aggregates);
    for (let k = 0; k < keys; k++) out[k] = this.keyOf(group, k);
    for (let a = 0; a < aggregates; a++) out[keys + a] = this.resultOf(group, a);
    return out;
  }

  /** Final rows, keys first then aggregates, ordered by keys ascending (nulls last). */
  rows(): Value[][] {
    // Without `by`, stats answers one row even over no input (count 0), as alerts expect a value.
    if (this.spec.keys.length === 0 && this.groups === 0) this.groupFor(0, []);
    const rows: Value[][] = [];
    for (let group = 0; group < this.groups; group++) rows.push(this.row(group));
    const keyCount = this.spec.keys.length;
    rows.sort((a, b) => {
      for (let k = 0; k < keyCount; k++) {
        const order = compareKeys(a[k], b[k]);
        if (order !== 0) return order;
      }
      return 0;
    });
    return rows;
  }

  columnTypes(): StaticType[] {
    return [
      ...this.spec.keys.map((key) => key.expr.type),
      ...this.spec.aggregates.map((aggregate) => aggregate.factory.resultType(aggregate.site)),
    ];
  }
}

/**
 * Group-key order: ascending with nulls last; keys keep their types, so mixed types order
 * numbers < strings < booleans (the number 17 and the string "17" are different groups).
 */
export function compareKeys(a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === typeof b) {
    const order = compareValues(a, b);
    return Number.isNaN(order) ? 0 : order;
  }
  const rank = (value: Value): number => (typeof value === 'number' ? 0 : typeof value === 'string' ? 1 : 2);
  return rank(a) - rank(b);
}

/**
 * `sort` order: values that read as numbers (numbers and numeric strings) compare as numbers
 * (docs/language.md) and come first; other values follow in group-key order. Equal readings tie, so
 * the sort stays stable.
 */
export function compareForSort(a: Value, b: Value): number {
  const x = typeof a === 'number' ? a : typeof a === 'string' ? stringToNumber(a) : NaN;
  const y = typeof b === 'number' ? b : typeof b === 'string' ? stringToNumber(b) : NaN;
  const xNumeric = !Number.isNaN(x);
  const yNumeric = !Number.isNaN(y);
  if (xNumeric && yNumeric) return x < y ? -1 : x > y ? 1 : 0;
  if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
  return compareKeys(a, b);
}
