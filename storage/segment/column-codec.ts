/**
 * The column block codec: one column of one row block <-> one self-describing stored block.
 * Encoding lives in column-encode.ts, decoding in column-decode.ts; the format in
 * block-envelope.ts (header, zstd) and string-list.ts (string sections).
 */
export { ColumnEncoding, readBlockHeader } from './block-envelope';
export type { BlockHeader } from './block-envelope';
export { encodeColumnBlock, encodeTimeBlock } from './column-encode';
export type { ColumnBlockSummary, EncodedColumnBlock } from './column-encode';
export { decodeColumnBlock, decodeColumnBlockMatching, decodeColumnBlockRows } from './column-decode';
