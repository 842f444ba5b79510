/** Ingest body parsers: pure functions from a request body to normalized events (see each module). */
export type { IngestContext } from './common';
export { parseNativeBatch, type NativeResult } from './native';
export { parseRawLines, type RawHeaders } from './raw';
export { parseHecLines, type HecResult } from './hec';
export { parseBulk, parseEsDoc, type BulkItem, type BulkItemResult, type BulkResult } from './bulk';
export { parseOtlpLogs } from './otlp';
export { runPipeline } from './pipeline';
