/**
 * The version of the node-to-node protocol (proto/trawl.proto), carried in every request and reply.
 * A minor version adds optional fields only, so any minor of a known major is understood; a node
 * refuses a peer whose major it does not know. The rules are in proto/README.md.
 */

export interface ProtocolVersion {
  major: number;
  minor: number;
}

export const PROTOCOL_VERSION: Readonly<ProtocolVersion> = Object.freeze({ major: 1, minor: 12 });

/** The minor of major 1 from which a node reads `RingEpoch.layout`; an older node would place a laid-out epoch on the ring. */
export const LAYOUT_MINOR = 4;

/** The minor of major 1 from which a node answers ShardQuery.Catalog (GET /fields, GET /sources). */
export const CATALOG_MINOR = 6;

/**
 * The minor of major 1 from which a caller reads a Query stream's last counters beside its result
 * (`ShardQueryMessage.final_progress`); an older caller gets them in a `progress` message first.
 */
export const FINAL_PROGRESS_MINOR = 7;

/** The minor of major 1 from which a node runs fragments on one long-lived call (ShardQuery.Fragments). */
export const FRAGMENT_STREAM_MINOR = 9;

/**
 * The minor of major 1 from which a coordinator asks one owner for all the keys of a piece with
 * the same owners (coordinator/key-assignment.ts). A node stores such keys in one segment only
 * while every member speaks it (storage-groups.ts): an older coordinator may ask two owners for
 * parts of one group, which a node storing it together cannot answer.
 */
export const STORAGE_GROUP_MINOR = 10;

/** The minor of major 1 from which a node reads a fragment's keys as runs (`ShardQueryRequest.key_runs`, key-runs.ts). */
export const KEY_RUNS_MINOR = 11;

/**
 * The minor of major 1 from which a node checks a fragment's listed index names
 * (`ShardQueryRequest.listed_indexes`): a coordinator resolves a query's globs from heartbeats
 * only while every node it asks speaks it, since an older one would not refuse a fragment whose
 * list lacks an index it holds.
 */
export const LISTED_INDEXES_MINOR = 12;

/** The majors this release speaks. A release that starts a new major keeps the previous one here for rolling upgrades. */
export const KNOWN_MAJORS: ReadonlySet<number> = new Set([1]);

export const formatVersion = (version: ProtocolVersion): string => `${version.major}.${version.minor}`;

/**
 * Why this node cannot talk to a peer that sent `version` (null: it can). A peer that sends none
 * is not a Trawl node of any release (every release sends one), so it is refused too.
 */
export function protocolProblem(version: ProtocolVersion | null, peer: string): string | null {
  if (version === null) return `${peer} sent no protocol_version; it is not a Trawl node this one can talk to`;
  if (KNOWN_MAJORS.has(version.major)) return null;
  const known = [...KNOWN_MAJORS].map((major) => `${major}.x`).join(', ');
  return `${peer} speaks protocol ${formatVersion(version)}, which this node (protocol ${formatVersion(PROTOCOL_VERSION)}) does not know; it speaks ${known}: run releases whose protocol majors overlap`;
}
