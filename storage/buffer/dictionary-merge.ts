/**
 * Merges the string dictionaries of several chunks (event-chunk.ts) into one, by their UTF-8
 * bytes: a flush then carries each string field as codes into the merged dictionary, and makes
 * one JS string per distinct value instead of one per chunk entry (or per row).
 */
import { ByteDictionary } from './byte-chunk-builder';
import { unpackStrings, type PackedStrings } from './event-chunk';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over bytes, unsigned (ByteDictionary keeps hashes in a Uint32Array). */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i], FNV_PRIME);
  return hash >>> 0;
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export class DictionaryMerger {
  private readonly merged: ByteDictionary;

  /** Hints: the entries and bytes of the dictionaries to come (an upper bound of the merged ones). */
  constructor(entriesHint: number, bytesHint: number) {
    this.merged = new ByteDictionary(Math.max(16, entriesHint), Math.max(256, bytesHint));
  }

  /**
   * Whether a dictionary can be merged by bytes: `utf16le` lists (which hold a lone surrogate)
   * could spell a string another list spells in UTF-8, and would then get two codes.
   */
  static accepts(dict: PackedStrings): boolean {
    return dict.encoding !== 'utf16le';
  }

  /** The merged code of each of `dict`'s entries. */
  add(dict: PackedStrings): Uint32Array {
    const bytes = bufferOf(dict.bytes);
    const ascii = dict.encoding === 'latin1';
    const { ends } = dict;
    const codes = new Uint32Array(ends.length);
    let start = 0;
    for (let i = 0; i < ends.length; i++) {
      const end = ends[i];
      codes[i] = this.merged.codeOf(bytes, start, end, ascii, hashBytes(bytes, start, end));
      start = end;
    }
    return codes;
  }

  /** The merged entries as JS strings (code order), and each one's UTF-8 byte length. */
  finish(): { dict: string[]; dictBytes: Uint32Array } {
    const { entries } = this.merged;
    const dictBytes = new Uint32Array(entries.count);
    for (let code = 0; code < entries.count; code++) dictBytes[code] = entries.byteLength(code);
    return { dict: unpackStrings(entries.build()), dictBytes };
  }
}
