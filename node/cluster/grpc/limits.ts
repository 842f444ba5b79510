/**
 * Message sizes between nodes, set on purpose rather than left at gRPC's defaults (4 MiB in, no
 * bound out). Requests are small by construction: a write or hint is one share part
 * (share-parts.ts, 2 MiB), a query fragment names its keys, a state push carries the metadata.
 * Replies can be large: a stats partial of a million groups or an export page, bounded on the
 * callee by its query memory limit (query.max_query_memory, 1 GiB by default).
 */
export const GRPC_MAX_REQUEST_BYTES = 64 * 1024 * 1024;
export const GRPC_MAX_REPLY_BYTES = 1024 * 1024 * 1024;
