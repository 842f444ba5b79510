/**
 * Decodes the columns of one row block from their stored buffers. A `_raw` with field references
 * (raw-refs.ts) is decoded after the other columns, from the fields it references: from the
 * columns decoded in the same call, or from the block's other stored buffers.
 */
import type { Column } from '../core/column';
import { valueAt } from '../core/column';
import { RAW_COLUMN } from '../core/event';
import { ColumnEncoding, readBlockHeader } from './block-envelope';
import { decodeColumnBlock, decodeColumnBlockRows } from './column-decode';
import { openFramed } from './framed-block';
import type { LiteralByteSearch } from './literal-search';
import { ListedRows } from './listed-rows';
import { fillRefs, holdsFieldRefs, readSkeletons, readSkeletonsMatching, refText } from './raw-refs';

/** The stored buffers of a row block's columns (null: not stored), by position. */
export interface StoredColumns {
  names: readonly string[];
  buffers: readonly (Uint8Array | null)[];
}

/** A referenced field's column, valid at least at `rows` (every row when undefined). */
export type FieldSource = (name: string, rows: ArrayLike<number> | undefined) => Column;

/**
 * Decodes the named columns of a block of `rows` rows. With `only` (ascending block rows), string
 * columns are decoded at those rows alone and must not be read elsewhere. `block` holds the
 * buffers a `_raw` with references reads its fields from when `names` lacks them. `known`
 * columns were decoded before (at least at the rows that will be read) and are not decoded again.
 */
export function decodeColumns(
  rows: number,
  names: readonly string[],
  buffers: readonly (Uint8Array | null)[],
  only?: ArrayLike<number>,
  block?: StoredColumns,
  known?: ReadonlyMap<string, Column>,
): Map<string, Column> {
  const decoded = new Map<string, Column>();
  let raw: Uint8Array | null = null;
  names.forEach((name, i) => {
    const buffer = buffers[i];
    const before = known?.get(name);
    if (before !== undefined) decoded.set(name, before);
    else if (buffer === null) decoded.set(name, { kind: 'const', value: null, length: rows });
    else if (name === RAW_COLUMN && holdsFieldRefs(buffer)) {
      raw = buffer;
      decoded.set(name, { kind: 'const', value: null, length: rows }); // its place in the order; filled below
    } else decoded.set(name, only === undefined ? decodeColumnBlock(buffer) : decodeColumnBlockRows(buffer, only));
  });
  if (raw !== null) decoded.set(RAW_COLUMN, decodeRawWithRefs(raw, rows, only, fieldSource(block ?? { names, buffers }, decoded)));
  return decoded;
}

/**
 * Fields from `decoded` when there (decoded at the rows asked for), else from the block's buffers;
 * with `keep`, what is decoded from the buffers is added to it.
 */
export function fieldSource(block: StoredColumns, decoded?: ReadonlyMap<string, Column>, keep?: Map<string, Column>): FieldSource {
  return (name, rows) => {
    const known = decoded?.get(name) ?? keep?.get(name);
    if (known !== undefined) return known;
    const at = block.names.indexOf(name);
    const buffer = at === -1 ? null : block.buffers[at];
    if (buffer === null) throw new Error(`segment block: _raw references field ${name}, which was not read`);
    const column = rows === undefined ? decodeColumnBlock(buffer) : decodeColumnBlockRows(buffer, rows);
    keep?.set(name, column);
    return column;
  };
}

/** The pieces of a `_raw` block: its frames, or the whole block as one. */
function piecesOf(block: Uint8Array): { start: number; rows: number; data: Uint8Array }[] {
  if (readBlockHeader(block).encoding !== ColumnEncoding.Framed) return [{ start: 0, rows: readBlockHeader(block).rows, data: block }];
  let start = 0;
  return openFramed(block).frames.map((frame) => {
    const piece = { start, rows: frame.rows, data: frame.data };
    start += frame.rows;
    return piece;
  });
}

/** `fields` at `rows`, each field decoded once (every piece of a block references the same columns). */
function columnsAt(fields: FieldSource, rows: ArrayLike<number> | undefined): (name: string) => Column {
  const cache = new Map<string, Column>();
  return (name) => {
    let column = cache.get(name);
    if (column === undefined) cache.set(name, (column = fields(name, rows)));
    return column;
  };
}

/** Fills in the skeletons listed `[from, to)` in place, from the fields named `names` at their rows. */
function fillRows(lines: ListedRows, from: number, to: number, names: readonly string[], columnOf: (name: string) => Column): void {
  const columns = names.map(columnOf);
  for (let k = from; k < to; k++) {
    const row = lines.rows[k];
    const skeleton = lines.valueOf(k);
    if (typeof skeleton !== 'string') continue;
    lines.setValue(
      k,
      fillRefs(skeleton, names.length, (field) => {
        const text = refText(valueAt(columns[field], row));
        if (text === null) throw new Error(`segment block: _raw references field ${names[field]}, which has no such value at row ${row}`);
        return text;
      }),
    );
  }
}

/** A `_raw` block with field references, at every row or (ascending `only`) at those rows alone. */
export function decodeRawWithRefs(block: Uint8Array, rows: number, only: ArrayLike<number> | undefined, fields: FieldSource): Column {
  const lines = new ListedRows(rows, only?.length ?? rows);
  const columnOf = columnsAt(fields, only);
  let next = 0;
  for (const piece of piecesOf(block)) {
    const end = piece.start + piece.rows;
    let local: number[] | undefined;
    if (only !== undefined) {
      local = [];
      for (; next < only.length && only[next] < end; next++) local.push(only[next] - piece.start);
      if (local.length === 0) continue;
    }
    const { names, skeletons } = readSkeletons(piece.data, local);
    const from = lines.count;
    if (local === undefined) for (let row = 0; row < piece.rows; row++) lines.add(piece.start + row, skeletons[row]);
    else for (const row of local) lines.add(piece.start + row, skeletons[row]);
    fillRows(lines, from, lines.count, names, columnOf);
  }
  return lines.column();
}

/**
 * decodeColumnBlockMatching (column-decode.ts) of a `_raw` with field references: the rows of
 * the listed pieces (frames; null: all) that may match, their lines filled in. `ownTokens[f]`,
 * when set, is a token every match holds and that no referenced value of frame f holds: only
 * rows whose skeleton holds it are candidates. In the other frames, with `token` (lower-cased, a
 * token every match holds), the candidates are the rows whose skeleton or referenced values hold
 * it (the frame's fields are decoded to tell); without, every row is one.
 */
export function decodeRawRefsMatching(
  block: Uint8Array,
  rows: number,
  frames: readonly number[] | null,
  ownTokens: readonly (LiteralByteSearch | null)[] | null,
  fields: FieldSource,
  token: string | null = null,
): { column: Column; rows: Uint32Array } {
  const matched = new ListedRows(rows);
  const namesOf = new Map<number, string[]>();
  // Fields decoded at every row (to look for the token in their values): they serve any row.
  const whole = new Map<string, Column>();
  const wholeColumn = (name: string): Column => {
    let column = whole.get(name);
    if (column === undefined) whole.set(name, (column = fields(name, undefined)));
    return column;
  };
  piecesOf(block).forEach((piece, f) => {
    if (frames !== null && !frames.includes(f)) return;
    const search = ownTokens?.[f] ?? null;
    const before = matched.count;
    if (search !== null) {
      namesOf.set(before, readSkeletonsMatching(piece.data, search, matched, piece.start));
      return;
    }
    const { names, skeletons } = readSkeletons(piece.data);
    namesOf.set(before, names);
    const holds = token === null ? null : tokenTest(token);
    const columns = holds === null ? [] : names.map(wholeColumn);
    for (let row = 0; row < piece.rows; row++) {
      const skeleton = skeletons[row];
      if (skeleton === null) continue;
      if (holds !== null && !holds.text(skeleton) && !columns.some((column) => holds.value(column, piece.start + row))) continue;
      matched.add(piece.start + row, skeleton);
    }
  });
  const candidates = matched.listed();
  // Each piece names its own fields (the same list in practice): fill piece by piece.
  const atCandidates = columnsAt(fields, candidates);
  const columnOf = (name: string): Column => whole.get(name) ?? atCandidates(name);
  const starts = [...namesOf.keys()];
  starts.forEach((from, i) => {
    const to = i + 1 < starts.length ? starts[i + 1] : matched.count;
    if (to > from) fillRows(matched, from, to, namesOf.get(from)!, columnOf);
  });
  return { column: matched.column(), rows: candidates };
}

/** Whether a text, or the text of a referenced value, holds `token` (lower-cased) as a whole token, in any case. */
export function tokenTest(token: string): { text: (text: string) => boolean; value: (column: Column, row: number) => boolean } {
  const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Token characters: ASCII letters, digits, `_` and every code unit >= 128 (tokenizer.ts).
  const pattern = new RegExp(`(?<![A-Za-z0-9_\\u0080-\\uffff])${escaped}(?![A-Za-z0-9_\\u0080-\\uffff])`, 'i');
  const text = (value: string): boolean => pattern.test(value);
  // An integer's text is its digits: it holds a digits-only token only by being that number.
  const integer = /^(0|[1-9][0-9]{0,14})$/.test(token) ? Number(token) : null;
  const value = (column: Column, row: number): boolean => {
    if (column.kind === 'number') {
      if (column.nulls !== null && column.nulls[row] === 1) return false;
      const v = column.values[row];
      if (Number.isInteger(v) && Math.abs(v) < 1e21) return integer !== null && Math.abs(v) === integer;
    }
    const shown = refText(valueAt(column, row));
    return shown !== null && pattern.test(shown);
  };
  return { text, value };
}
