/**
 * `_raw` with field references: the parts of a line that are the text of one of its own field
 * values are stored as a reference to that field's column, not a second time. A log line mostly
 * repeats its fields (`10.0.3.7 - u812 [...] "GET /api/v1/orders/77 HTTP/1.1" 200 5120 ...`), and
 * the field columns hold those values already, typed and dictionary-coded; what stays in `_raw`
 * is the line's skeleton, which zstd compresses several times better than the whole line
 * (docs/benchmarks.md, "Figures behind the constants"). Elasticsearch's
 * "synthetic _source" rebuilds documents from their fields for the same reason.
 *
 * A line with references (a "skeleton") is the line with each referenced value replaced by the
 * two characters U+0000, U+0000 + k, where k (1..MAX_RAW_REFS) is the 1-based position of the
 * field in the block's name list; a U+0000 of the line itself is written twice. A value is
 * referenced only at token boundaries (the characters around it do not continue its edge tokens),
 * so the tokens of a line are exactly the skeleton's tokens plus the referenced values' tokens:
 * the bloom filters can keep them apart (segment-encoder.ts), and a search for a token that no
 * referenced value of a frame holds looks at the skeletons alone (row-block.ts).
 *
 * Block payload (ColumnEncoding.RawRefs): varint K, K field names (varint UTF-8 length + bytes),
 * then the skeletons as a nullable string list (string-list.ts).
 */
import type { FieldValue } from '../core/event';
import { ColumnEncoding, openBlockTransient, readBlockHeader } from './block-envelope';
import { ByteReader, ByteWriter } from './bytes';
import { payloadWriter, seal } from './column-encode';
import type { ListedRows } from './listed-rows';
import type { LiteralByteSearch } from './literal-search';
import type { StringSink } from './string-list';
import { openStringList, readStringListMatching, stringsOfRows, writeStringList } from './string-list';
import { openFramed } from './framed-block';
import { TOKEN_ASCII } from './tokenizer';

/** References use the code units 1..MAX_RAW_REFS after the mark: never token characters. */
export const MAX_RAW_REFS = 31;
const MARK = '\u0000';
const MARK_CODE = 0;
/** Rows the encoder samples to choose which fields a segment's lines reference. */
const SAMPLE_ROWS = 512;
/** A field is referenced when its text is found in at least this share of the sampled lines that have it. */
const MIN_HIT_SHARE = 0.1;
/** A field is referenced when at least this share of its sampled values found in lines are distinct. */
const MIN_DISTINCT_SHARE = 0.25;
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * The text by which a field value appears in a line, or null when it is never referenced: short
 * values gain nothing, and only what the column gives back exactly can be referenced (finite
 * numbers by their shortest form, well-formed strings).
 */
export function refText(value: FieldValue | null | undefined): string | null {
  if (typeof value === 'string') return value.length >= 2 && !SURROGATE.test(value) ? value : null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    const text = String(value);
    return text.length >= 2 ? text : null;
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return null;
}

/**
 * The text by which the encoder references a value, or null: only values whose every token holds
 * a digit (ids, addresses, numbers: `u812`, `10.0.3.7`, `5120`, `ff60acc6`). Words (`checkout`,
 * `/api/v1/orders`) stay in the skeleton, so a search for a word reads skeletons only, as bytes;
 * a search for an id or a number also looks in the referenced values (row-block.ts).
 */
function referenceable(value: FieldValue | null | undefined): string | null {
  const text = refText(value);
  if (text === null) return null;
  let digit = false;
  let inToken = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isToken(code)) {
      if (inToken && !digit) return null;
      inToken = false;
      digit = false;
      continue;
    }
    inToken = true;
    if (code >= 48 && code <= 57) digit = true;
  }
  return inToken && !digit ? null : text;
}

function isToken(code: number): boolean {
  return code >= 128 || TOKEN_ASCII[code] === 1;
}

/**
 * Where `text` occurs in `line` from `from` on at token boundaries (the characters next to it do
 * not continue a token that `text` starts or ends with), or -1.
 */
function findBounded(line: string, text: string, from: number): number {
  const headToken = isToken(text.charCodeAt(0));
  const tailToken = isToken(text.charCodeAt(text.length - 1));
  for (let at = line.indexOf(text, from); at !== -1; at = line.indexOf(text, at + 1)) {
    const end = at + text.length;
    if (headToken && at > 0 && isToken(line.charCodeAt(at - 1))) continue;
    if (tailToken && end < line.length && isToken(line.charCodeAt(end))) continue;
    return at;
  }
  return -1;
}

/** A field's value at a row (null where the row has none). */
export type FieldRows = (row: number) => FieldValue | null | undefined;

/** Turns lines into skeletons against the dense field columns of the same rows. */
export class RawRefEncoder {
  /** Found references of the current line: start, end, field (1-based), per entry. */
  private readonly hits: Int32Array;

  private constructor(
    /** The referenced fields, in the order they are looked for (longest values first). */
    readonly names: readonly string[],
    private readonly columns: readonly ArrayLike<FieldValue | null>[],
  ) {
    this.hits = new Int32Array(3 * names.length);
  }

  /**
   * The encoder for these rows, with the fields whose values a sample of the lines holds, or null
   * when no field is worth referencing.
   */
  static choose(raws: ArrayLike<string>, fields: ReadonlyMap<string, ArrayLike<FieldValue | null>>): RawRefEncoder | null {
    const sampled = new Map<string, FieldRows>();
    for (const [name, column] of fields) sampled.set(name, (row) => column[row]);
    const names = RawRefEncoder.chooseFields(raws, sampled);
    return names.length === 0
      ? null
      : RawRefEncoder.of(
          names,
          names.map((name) => fields.get(name)!),
        );
  }

  /**
   * The fields worth referencing in these rows, in the order the encoder looks for them (longest
   * values first), judged on a sample of the rows: `fields` is read at those rows only.
   */
  static chooseFields(raws: ArrayLike<string>, fields: ReadonlyMap<string, FieldRows>): string[] {
    const n = raws.length;
    const step = Math.max(1, Math.floor(n / SAMPLE_ROWS));
    const chosen: { name: string; length: number }[] = [];
    for (const [name, valueAt] of fields) {
      let present = 0;
      let found = 0;
      let length = 0;
      const distinct = new Set<string>();
      for (let row = 0; row < n; row += step) {
        const text = referenceable(valueAt(row));
        if (text === null) continue;
        present++;
        if (findBounded(raws[row], text, 0) === -1) continue;
        found++;
        length += text.length;
        distinct.add(text);
      }
      // Few distinct values (a status code) cost zstd little in the line, and would be in every frame's values.
      const varied = distinct.size >= found * MIN_DISTINCT_SHARE;
      if (found > 0 && found >= present * MIN_HIT_SHARE && varied) chosen.push({ name, length: length / found });
    }
    chosen.sort((a, b) => b.length - a.length || (a.name < b.name ? -1 : 1));
    return chosen.slice(0, MAX_RAW_REFS).map((field) => field.name);
  }

  /** The encoder of the fields `names` (as chooseFields gives them), whose dense columns are `columns`. */
  static of(names: readonly string[], columns: readonly ArrayLike<FieldValue | null>[]): RawRefEncoder {
    if (names.length === 0 || names.length > MAX_RAW_REFS || columns.length !== names.length)
      throw new Error('RawRefEncoder: bad field list');
    return new RawRefEncoder(names, columns);
  }

  /** The skeleton of `line` (row `row` of the columns); `onRef` sees the text of each referenced value. */
  encode(line: string, row: number, onRef?: (text: string) => void): string {
    const hits = this.hits;
    let count = 0;
    for (let k = 0; k < this.columns.length; k++) {
      const text = referenceable(this.columns[k][row]);
      if (text === null) continue;
      let at = findBounded(line, text, 0);
      while (at !== -1 && overlaps(hits, count, at, at + text.length)) at = findBounded(line, text, at + 1);
      if (at === -1) continue;
      hits[3 * count] = at;
      hits[3 * count + 1] = at + text.length;
      hits[3 * count + 2] = k + 1;
      count++;
      onRef?.(text);
    }
    const escape = line.indexOf(MARK) !== -1;
    if (count === 0) return escape ? line.replaceAll(MARK, MARK + MARK) : line;
    sortHits(hits, count);
    let out = '';
    let at = 0;
    for (let h = 0; h < count; h++) {
      const part = line.slice(at, hits[3 * h]);
      out += (escape ? part.replaceAll(MARK, MARK + MARK) : part) + MARK + String.fromCharCode(hits[3 * h + 2]);
      at = hits[3 * h + 1];
    }
    const tail = line.slice(at);
    return out + (escape ? tail.replaceAll(MARK, MARK + MARK) : tail);
  }
}

function overlaps(hits: Int32Array, count: number, start: number, end: number): boolean {
  for (let h = 0; h < count; h++) if (start < hits[3 * h + 1] && end > hits[3 * h]) return true;
  return false;
}

/** Insertion sort of the hit triples by start (a line has a handful). */
function sortHits(hits: Int32Array, count: number): void {
  for (let i = 1; i < count; i++) {
    const start = hits[3 * i];
    const end = hits[3 * i + 1];
    const field = hits[3 * i + 2];
    let j = i - 1;
    while (j >= 0 && hits[3 * j] > start) {
      hits[3 * (j + 1)] = hits[3 * j];
      hits[3 * (j + 1) + 1] = hits[3 * j + 1];
      hits[3 * (j + 1) + 2] = hits[3 * j + 2];
      j--;
    }
    hits[3 * (j + 1)] = start;
    hits[3 * (j + 1) + 1] = end;
    hits[3 * (j + 1) + 2] = field;
  }
}

/**
 * The line of a skeleton: `valueOf(k)` gives the text of field k (0-based in the block's names)
 * at this row. Throws on a reference past the names (a corrupt block).
 */
export function fillRefs(skeleton: string, fieldCount: number, valueOf: (field: number) => string): string {
  let at = skeleton.indexOf(MARK);
  if (at === -1) return skeleton;
  let out = '';
  let from = 0;
  while (at !== -1) {
    out += skeleton.slice(from, at);
    const code = skeleton.charCodeAt(at + 1);
    if (code === MARK_CODE) out += MARK;
    else if (code >= 1 && code <= fieldCount) out += valueOf(code - 1);
    else throw new Error('segment block: bad field reference in _raw');
    from = at + 2;
    at = skeleton.indexOf(MARK, from);
  }
  return out + skeleton.slice(from);
}

/** Writes the block's referenced field names (the start of a RawRefs payload). */
export function writeRefNames(w: ByteWriter, names: readonly string[]): void {
  w.varint(names.length);
  for (const name of names) {
    const bytes = Buffer.from(name, 'utf8');
    w.varint(bytes.length);
    w.bytes(bytes);
  }
}

/** Reads what writeRefNames wrote. */
export function readRefNames(r: ByteReader): string[] {
  const count = r.varint();
  if (count > MAX_RAW_REFS) throw new Error('segment block: too many field references');
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = r.take(r.varint());
    names.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'));
  }
  return names;
}

/** Stores skeletons (one per row) as a RawRefs block; `sink` receives their UTF-8 (the skeleton tokens). */
export function encodeRawRefsBlock(skeletons: readonly string[], names: readonly string[], level: number, sink?: StringSink): Buffer {
  let units = 0;
  for (const skeleton of skeletons) units += skeleton.length;
  const w = payloadWriter(units * 3 + skeletons.length * 5 + 256);
  writeRefNames(w, names);
  writeStringList(w, skeletons, 0, skeletons.length, true, sink);
  return seal(w, ColumnEncoding.RawRefs, skeletons.length, level);
}

/** True for a stored `_raw` block with field references (whole, or framed with such frames). */
export function holdsFieldRefs(block: Uint8Array): boolean {
  const encoding = readBlockHeader(block).encoding;
  if (encoding === ColumnEncoding.RawRefs) return true;
  if (encoding !== ColumnEncoding.Framed) return false;
  const { frames } = openFramed(block);
  return frames.length > 0 && readBlockHeader(frames[0].data).encoding === ColumnEncoding.RawRefs;
}

/** The skeletons of a RawRefs block: at every row, or (ascending `rows`) at those rows only (the others null). */
export function readSkeletons(block: Uint8Array, rows?: ArrayLike<number>): { names: string[]; skeletons: (string | null)[] } {
  const { encoding, rows: n, payload } = openBlockTransient(block);
  if (encoding !== ColumnEncoding.RawRefs) throw new Error('segment block: not a _raw block with field references');
  const r = new ByteReader(payload);
  const names = readRefNames(r);
  const layout = openStringList(payload, r, n, true);
  const skeletons = new Array<string | null>(n).fill(null);
  stringsOfRows(payload, layout, rows ?? Array.from({ length: n }, (_, i) => i), (row, skeleton) => (skeletons[row] = skeleton));
  return { names, skeletons };
}

/**
 * The skeletons of a RawRefs block whose text holds `search` (a token), written into `into` at
 * `offset` (see readStringListMatching); the block's field names.
 */
export function readSkeletonsMatching(block: Uint8Array, search: LiteralByteSearch, into: ListedRows, offset: number): string[] {
  const { encoding, rows: n, payload } = openBlockTransient(block);
  if (encoding !== ColumnEncoding.RawRefs) throw new Error('segment block: not a _raw block with field references');
  const r = new ByteReader(payload);
  const names = readRefNames(r);
  // Every candidate is filled in from its fields: only the rows with a hit, however many.
  readStringListMatching(payload, r, n, true, [search], into, offset, false);
  return names;
}
