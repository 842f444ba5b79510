/**
 * The byte search of a block's `_raw` before it becomes strings: only rows that hold every
 * literal the query needs get a string, and their block rows become the candidates.
 */
import type { Column } from '../core/column';
import { decodeColumnBlockMatching } from '../segment/column-codec';
import { LiteralByteSearch } from '../segment/literal-search';
import { holdsFieldRefs } from '../segment/raw-refs';
import { decodeRawRefsMatching, fieldSource, type StoredColumns } from '../segment/row-block';
import type { BlockInput } from './block-input';

export class RawSearch {
  /** Byte searches every row must pass before its `_raw` becomes a string (empty: no such filter). */
  readonly searches: LiteralByteSearch[];
  private readonly ownTokenSearches = new Map<number, LiteralByteSearch | null>();

  /** `rawTokens`: the scan request's lower-cased tokens every match's `_raw` holds. */
  constructor(
    rawLiterals: readonly string[],
    private readonly rawTokens: readonly string[] | undefined,
  ) {
    // Longest anchor first: it is searched over the whole text, the others only in its hit rows.
    this.searches = rawLiterals
      .map((literal) => LiteralByteSearch.of(literal))
      .filter((search): search is LiteralByteSearch => search !== null)
      .sort((a, b) => b.length - a.length);
  }

  /**
   * The rows of a block's `_raw` that may match the searches, as strings. A `_raw` with field
   * references is searched in its skeletons where a frame's filters allow it (row-block.ts).
   */
  search(
    buffer: Uint8Array,
    rows: number,
    input: BlockInput,
    block: StoredColumns,
    decodedFields: Map<string, Column>,
  ): { column: Column; rows: Uint32Array | null } {
    if (!holdsFieldRefs(buffer)) return decodeColumnBlockMatching(buffer, this.searches, input.rawFrames);
    const own = input.rawOwnTokens ?? null;
    const searches = own === null ? null : own.map((token) => (token === -1 ? null : this.ownTokenSearch(token)));
    // decodeRawRefsMatching indexes by frame: spread the per-chosen-frame searches out.
    const byFrame: (LiteralByteSearch | null)[] = [];
    input.rawFrames?.forEach((frame, i) => (byFrame[frame] = searches?.[i] ?? null));
    return decodeRawRefsMatching(
      buffer,
      rows,
      input.rawFrames,
      byFrame,
      fieldSource(block, undefined, decodedFields),
      this.longestRawToken,
    );
  }

  /** The longest token every match's `_raw` holds (null: none): frames with field references look for it in their values too. */
  private get longestRawToken(): string | null {
    const tokens = this.rawTokens ?? [];
    return tokens.length === 0 ? null : tokens.reduce((a, b) => (b.length > a.length ? b : a));
  }

  /** The byte search of the request's raw token `index`. */
  private ownTokenSearch(index: number): LiteralByteSearch | null {
    let search = this.ownTokenSearches.get(index);
    if (search === undefined) {
      const token = this.rawTokens?.[index];
      search = token === undefined ? null : LiteralByteSearch.of(token);
      this.ownTokenSearches.set(index, search);
    }
    return search;
  }
}
