/**
 * The key dictionary of one `stats` key: maps its values to dense ids, looking dictionary
 * columns up once per entry, and interned entries (storage/segment/string-intern.ts) by their
 * entry id instead of by their string.
 */
import type { Column } from '../../storage/core/column';
import type { Value } from '../value';
import { valueAt } from './access';
import { StringIds } from './string-ids';

/** Maps the values of one key to dense ids. */
export class KeyDictionary {
  readonly values: Value[] = [];
  /** Ids of string keys; null once its probes ran long (see StringIds), when `ids` holds them too. */
  private strings: StringIds | null;
  /** Ids of the other keys (numbers, booleans), and of strings once `strings` is null. */
  private readonly ids = new Map<Value, number>();
  private readonly dictIds = new WeakMap<string[], Int32Array>();
  /** Key id of each interned dictionary entry (DictColumn.interned), for interner epoch `internEpoch`. */
  private internedIds = new Int32Array(0);
  private internEpoch = 0;
  /**
   * Whether every key so far came from entries of interner epoch `internEpoch`. Entries and
   * strings then match one to one, so an entry not seen yet is a new key and needs no lookup;
   * the maps (`strings`, `ids`) lag behind `values` until the first key of any other origin (see syncMap).
   */
  private onlyInterned = true;
  /** Keys in `values[0, mapped)` are in the maps. */
  private mapped = 0;

  /** `strings`: an empty StringIds (tests pass one whose keys collide). */
  constructor(strings: StringIds = new StringIds()) {
    this.strings = strings;
  }

  /** The key id of null (-1 until met), kept out of the maps: null never comes from an interned entry. */
  private nullId = -1;

  /** Keys in `values[0, measured)` are counted in `measuredBytes`. */
  private measured = 0;
  private measuredBytes = 0;

  /**
   * Approximate heap bytes of the keys: the value (a string's characters, or a heap number), its
   * slot in `values` and its entry in `ids`. Measured with V8: within 20% for number and short
   * string keys.
   */
  approximateBytes(): number {
    for (; this.measured < this.values.length; this.measured++) {
      const value = this.values[this.measured];
      this.measuredBytes += 40 + (typeof value === 'string' ? 16 + value.length : 16);
    }
    return this.measuredBytes;
  }

  idOf(value: Value): number {
    if (value === null) {
      if (this.nullId === -1) {
        this.nullId = this.values.length;
        this.values.push(null);
      }
      return this.nullId;
    }
    this.onlyInterned = false;
    if (this.mapped < this.values.length) this.syncMap();
    const next = this.values.length;
    const id = this.find(value, next);
    if (id === next) {
      this.values.push(value);
      this.mapped = this.values.length;
    }
    return id;
  }

  /** The id `value` was given, or `next`, given to it now (the caller adds it to `values`). */
  private find(value: Exclude<Value, null>, next: number): number {
    if (typeof value === 'string' && this.strings !== null) {
      const id = this.strings.idOf(value, next);
      if (id !== null) return id;
      for (const [text, entry] of this.strings.entries()) this.ids.set(text, entry);
      this.strings = null;
    }
    const id = this.ids.get(value);
    if (id !== undefined) return id;
    this.ids.set(value, next);
    return next;
  }

  /**
   * The key id of each code of a dictionary (-1 until first looked up). An interned dictionary
   * (`interned` not null) needs none: its entry ids find the key ids.
   */
  tableOf(dict: string[], interned: Int32Array | null = null): Int32Array | null {
    if (interned !== null) return null;
    let table = this.dictIds.get(dict);
    if (table === undefined) {
      table = new Int32Array(dict.length).fill(-1);
      this.dictIds.set(dict, table);
    }
    return table;
  }

  /**
   * The key id of a dictionary code, looked up once per dictionary (`table`: tableOf(dict)). An
   * interned entry (`interned`: internedOf(column)) is found by its entry id: a high-cardinality
   * key repeats its entries in every block, and a lookup of a string by its characters costs far more.
   */
  idOfCode(dict: string[], table: Int32Array | null, code: number, interned: Int32Array | null): number {
    let id = table === null ? -1 : table[code];
    if (id === -1) {
      const entry = interned === null ? -1 : interned[code];
      if (entry === -1) id = this.idOf(code === 0 ? null : dict[code]);
      else {
        if (entry >= this.internedIds.length) this.growInterned(entry);
        id = this.internedIds[entry];
        if (id === -1) {
          id = this.idOfNewEntry(dict[code]);
          this.internedIds[entry] = id;
        }
      }
      if (table !== null) table[code] = id;
    }
    return id;
  }

  /** The key id of an interned entry's string not met before in this epoch. */
  private idOfNewEntry(value: string): number {
    if (!this.onlyInterned) return this.idOf(value);
    this.values.push(value);
    return this.values.length - 1;
  }

  /**
   * Adds a key known to be new (a key of the first partial merged into an empty dictionary),
   * without a lookup: the maps catch up at the next idOf (syncMap).
   */
  appendDistinct(value: Value): number {
    this.onlyInterned = false;
    if (value === null) return this.idOf(null);
    this.values.push(value);
    return this.values.length - 1;
  }

  /** Puts the keys that idOfNewEntry and appendDistinct added into the maps: another origin could repeat them. */
  private syncMap(): void {
    for (let id = this.mapped; id < this.values.length; id++) {
      const value = this.values[id];
      // null sits at nullId only, and is kept out of the maps.
      if (value === null) continue;
      if (this.find(value, id) !== id) throw new Error('invalid stats partial: a key repeats within one partial');
    }
    this.mapped = this.values.length;
  }

  /** The column's interned entry ids when usable (its epoch is this table's; a new epoch resets it). */
  internedOf(column: Extract<Column, { kind: 'dict' }>): Int32Array | null {
    const interned = column.interned;
    if (interned === undefined) return null;
    if (interned.epoch !== this.internEpoch) {
      // Keys from an earlier epoch's entries come back under new entry ids.
      if (this.internEpoch !== 0) this.onlyInterned = false;
      this.internEpoch = interned.epoch;
      this.internedIds.fill(-1);
    }
    return interned.ids;
  }

  private growInterned(entry: number): void {
    const grown = new Int32Array(Math.max(entry + 1, this.internedIds.length * 2, 1024)).fill(-1);
    grown.set(this.internedIds);
    this.internedIds = grown;
  }

  /** Writes the key id of each selected row into `out` (indexed by selection position). */
  assign(column: Column, sel: Uint32Array, n: number, out: Int32Array): void {
    if (column.kind === 'dict') {
      const interned = this.internedOf(column);
      const table = this.tableOf(column.dict, interned);
      const codes = column.codes;
      for (let i = 0; i < n; i++) out[i] = this.idOfCode(column.dict, table, codes[sel[i]], interned);
      return;
    }
    if (column.kind === 'const') {
      out.fill(this.idOf(column.value), 0, n);
      return;
    }
    if (column.kind === 'number' || column.kind === 'time') {
      // Number keys often come in runs (`bin(_time, 5m)` over time-sorted rows): look a value up
      // once per run. -0 and 0 share a run, as they share a Map entry.
      const values = column.values;
      const nulls = column.kind === 'number' ? column.nulls : null;
      let last = NaN;
      let lastId = -1;
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        if (nulls !== null && nulls[row] === 1) {
          out[i] = this.idOf(null);
          continue;
        }
        const value = values[row];
        if (value !== last) {
          last = value;
          lastId = this.idOf(value);
        }
        out[i] = lastId;
      }
      return;
    }
    for (let i = 0; i < n; i++) out[i] = this.idOf(valueAt(column, sel[i]));
  }
}
