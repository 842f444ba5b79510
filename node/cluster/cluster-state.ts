/**
 * The cluster state: who the members are, the ring epochs that place data, and which nodes were
 * taken out of placement. Only the master decides a new version (the pure transitions here);
 * every node keeps and persists the newest version it has seen (state-store.ts, state-sync.ts).
 */
import { isStoredIndexName } from '../../storage/core/event';
import { isMemberAddress, MAX_ADDRESS_LENGTH, nodeIdProblem } from '../config/peer-names';
import { CURRENT_LAYOUT, EPOCH_LAYOUTS, type EpochLayout, type RingEpoch } from './epochs';

export type Role = 'all' | 'coordinator' | 'shard';
export const ROLES: readonly Role[] = ['all', 'coordinator', 'shard'];

export interface Member {
  id: string;
  /** host:port of its HTTP API. */
  http: string;
  /** host:port of its gRPC server: what peers call, and with the id the node's identity. */
  grpc: string;
  role: Role;
}

/**
 * Events a node stored alone before it became a member: they keep keys of their own, with a
 * negative partition no placement gives (stored-alone.ts), and that node alone owns them.
 */
export interface StoredAlone {
  node: string;
  /** The partition of every key of these events: negative, one per node. */
  partition: number;
  indexes: string[];
  /** The events' time range, microseconds, inclusive. */
  fromMicros: number;
  toMicros: number;
}

/** The most index names a node's stored-alone events may have: a state with more is refused. */
export const MAX_STORED_ALONE_INDEXES = 10_000;

/**
 * A node an operator forgot: removed, down, its data given up. It is no member any more, but the
 * ring epochs up to `throughEpoch` still list it (placement of their buckets never changes): there
 * its id stands for the forgotten node, which holds nothing anyone can read. The id may join again
 * later as a new node, in an epoch after `throughEpoch`.
 */
export interface ForgottenNode {
  id: string;
  /** The newest ring epoch when it was forgotten. */
  throughEpoch: number;
  /** Whether the state's stored-alone entry of its id is its own: those events are given up with it. */
  storedAlone: boolean;
}

export interface ClusterState {
  /** Bumped by the master for every change it decides. */
  version: number;
  members: Member[];
  epochs: RingEpoch[];
  /** Node ids taken out of future placement by an operator (their old data stays queryable). */
  removed: string[];
  /**
   * While the cluster forms, the gRPC addresses of the seeds the master still waits for; empty
   * once it has formed. Nothing is written while it forms, so a node that joins then goes into
   * every ring epoch as if it had been there from the start: a new cluster spreads its first data
   * over all its seeds instead of placing it on the master alone until the next epoch.
   */
  forming: string[];
  /** What members stored alone before they joined, one entry per such member; never changes once added. */
  storedAlone: StoredAlone[];
  /** Nodes forgotten by an operator, oldest first; never shortened. */
  forgotten: ForgottenNode[];
}

/** The most members a state may hold: more than any cluster runs, few enough that a message cannot blow up a node. */
export const MAX_MEMBERS = 1024;

/** The most forgotten nodes a state records: an operator forgets a node now and then, not thousands. */
export const MAX_FORGOTTEN = 4096;

/** What a node holds before it has joined any cluster. */
export const EMPTY_STATE: ClusterState = Object.freeze({
  version: 0,
  members: [],
  epochs: [],
  removed: [],
  forming: [],
  storedAlone: [],
  forgotten: [],
}) as ClusterState;

/**
 * The first state of a new cluster: the master, ring epoch 0 from the beginning of time, the
 * other seeds' addresses as awaited while it forms, and what the master stored alone before.
 */
export function foundCluster(master: Member, seeds: readonly string[] = [], storedAlone: StoredAlone | null = null): ClusterState {
  const forming = [...new Set(seeds)].filter((seed) => seed !== master.grpc).sort();
  return {
    version: 1,
    members: [master],
    epochs: [{ epoch: 0, fromMicros: 0, members: [master.id], layout: CURRENT_LAYOUT }],
    removed: [],
    forming,
    storedAlone: storedAlone === null ? [] : [storedAlone],
    forgotten: [],
  };
}

/**
 * Why a node's stored-alone events cannot be taken in: another member's share its partition, or a
 * forgotten node of its id had stored-alone events, whose entry keeps its partition (null: they can).
 */
export function storedAloneConflict(state: ClusterState, storedAlone: StoredAlone): string | null {
  if (state.forgotten.some((each) => each.id === storedAlone.node && each.storedAlone)) {
    return `node ${storedAlone.node} was forgotten with events it stored alone, which keep the stored-alone partition of its id; a node joining under its id must hold no events (an empty data dir)`;
  }
  const holder = state.storedAlone.find((each) => each.partition === storedAlone.partition && each.node !== storedAlone.node);
  return holder === undefined
    ? null
    : `the events node ${storedAlone.node} stored alone would share partition ${storedAlone.partition} with those of node ${holder.node}`;
}

/** The state once the cluster stops waiting for seeds (all joined, or the master's wait ran out). */
export function withFormed(state: ClusterState): ClusterState {
  return state.forming.length === 0 ? state : { ...state, version: state.version + 1, forming: [] };
}

export function memberById(state: ClusterState, id: string): Member | undefined {
  return state.members.find((member) => member.id === id);
}

/** The node ids the newest epoch places data on. */
export function ringMembers(state: ClusterState): string[] {
  return lastEpoch(state)?.members ?? [];
}

/** The epoch numbers whose ring holds `id`. */
export function epochsOf(state: ClusterState, id: string): number[] {
  return state.epochs.filter((epoch) => epoch.members.includes(id)).map((epoch) => epoch.epoch);
}

function lastEpoch(state: ClusterState): RingEpoch | undefined {
  let last: RingEpoch | undefined;
  for (const epoch of state.epochs) if (last === undefined || epoch.epoch > last.epoch) last = epoch;
  return last;
}

export function sameMember(a: Member, b: Member): boolean {
  return a.id === b.id && a.http === b.http && a.grpc === b.grpc && a.role === b.role;
}

/**
 * Why `member` may not join: another node holds its id at another gRPC address, or its gRPC or
 * HTTP address under another id. (A removed node stays a member, so its id and addresses stay
 * held: it can only come back as itself, still removed.)
 */
export type JoinConflict = { kind: 'node-id-taken'; holder: Member } | { kind: 'address-taken'; holder: Member; address: string };

export function joinConflict(state: ClusterState, member: Member): JoinConflict | null {
  const holder = memberById(state, member.id);
  if (holder !== undefined && holder.grpc !== member.grpc) return { kind: 'node-id-taken', holder };
  for (const other of state.members) {
    if (other.id === member.id) continue;
    if (other.grpc === member.grpc || other.http === member.http) {
      return { kind: 'address-taken', holder: other, address: other.grpc === member.grpc ? member.grpc : member.http };
    }
  }
  return null;
}

/**
 * A new epoch never starts before the one it follows, whatever the clock of the master that
 * decides it. `layout` null: the ring, for a cluster with a member that predates layouts.
 */
function appendEpoch(state: ClusterState, members: string[], fromMicros: number, layout: EpochLayout | null): RingEpoch[] {
  const last = lastEpoch(state);
  const epoch: RingEpoch = {
    epoch: last === undefined ? 0 : last.epoch + 1,
    fromMicros: last === undefined ? 0 : Math.max(fromMicros, last.fromMicros),
    members: [...members].sort(),
    ...(layout === null ? {} : { layout }),
  };
  return [...state.epochs, epoch];
}

/** An epoch as the ring places it: without a layout. */
function withoutLayout({ layout: _layout, ...epoch }: RingEpoch): RingEpoch {
  return epoch;
}

/**
 * The state once `member` joins, or announces itself again: the same object when nothing changes;
 * a new version with its new HTTP address or role when only those differ; for a node new to the
 * ring also a ring epoch from `epochStartMicros` with it added, in `layout` (null: the ring, when
 * a member may not read layouts; while the cluster forms, epoch 0 then drops its layout too). The
 * caller checks joinConflict first.
 */
export function withJoined(
  state: ClusterState,
  member: Member,
  epochStartMicros: number,
  layout: EpochLayout | null = CURRENT_LAYOUT,
  storedAlone: StoredAlone | null = null,
): ClusterState {
  const known = memberById(state, member.id);
  // Taken in once, at the node's first join: later joins of the node bring the same or nothing.
  const newAlone = storedAlone !== null && !state.storedAlone.some((each) => each.node === member.id) ? [storedAlone] : [];
  if (known !== undefined && sameMember(known, member) && newAlone.length === 0) return state;
  const members = known === undefined ? [...state.members, member] : state.members.map((each) => (each.id === member.id ? member : each));
  const ring = ringMembers(state);
  const inRing = ring.includes(member.id) || state.removed.includes(member.id);
  const forming = state.forming.filter((seed) => seed !== member.grpc);
  // While forming nothing has been placed yet, so a newcomer may join every epoch from its start.
  const epochs = inRing
    ? state.epochs
    : state.forming.length > 0
      ? state.epochs.map((epoch) => {
          const joined = { ...epoch, members: [...epoch.members, member.id].sort() };
          return layout === null ? withoutLayout(joined) : joined;
        })
      : appendEpoch(state, [...ring, member.id], epochStartMicros, layout);
  return {
    version: state.version + 1,
    members: members.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    epochs,
    removed: state.removed,
    forming,
    storedAlone: [...state.storedAlone, ...newAlone],
    forgotten: state.forgotten,
  };
}

/** Why an operator's remove cannot be done. */
export type RemoveProblem = 'unknown-node' | 'already-removed' | 'last-member';

export function removeProblem(state: ClusterState, id: string): RemoveProblem | null {
  if (memberById(state, id) === undefined) return 'unknown-node';
  if (state.removed.includes(id)) return 'already-removed';
  const ring = ringMembers(state);
  if (ring.length === 1 && ring[0] === id) return 'last-member';
  return null;
}

/**
 * The state once `id` is taken out of future placement: a ring epoch without it from
 * `epochStartMicros` in `layout` (null: the ring), and its id in `removed`. It stays a member, so
 * its old data stays reachable while it runs. The caller checks removeProblem first.
 */
export function withRemoved(
  state: ClusterState,
  id: string,
  epochStartMicros: number,
  layout: EpochLayout | null = CURRENT_LAYOUT,
): ClusterState {
  return {
    version: state.version + 1,
    members: state.members,
    epochs: appendEpoch(
      state,
      ringMembers(state).filter((member) => member !== id),
      epochStartMicros,
      layout,
    ),
    removed: [...state.removed, id].sort(),
    forming: state.forming,
    storedAlone: state.storedAlone,
    forgotten: state.forgotten,
  };
}

/** Why an operator's forget cannot be done (whether the node is up is membership's to say). */
export type ForgetProblem = 'unknown-node' | 'not-removed' | 'removal-pending';

/**
 * A node may be forgotten once removed and once the epoch without it places data: before that,
 * new data would still go to it.
 */
export function forgetProblem(state: ClusterState, id: string, nowMicros: number): ForgetProblem | null {
  if (memberById(state, id) === undefined) return 'unknown-node';
  if (!state.removed.includes(id)) return 'not-removed';
  const removal = removalEpoch(state, id);
  if (removal !== undefined && removal.fromMicros > nowMicros) return 'removal-pending';
  return null;
}

/** The ring epoch a removal of `id` started: the first after the last one that places data on it. */
export function removalEpoch(state: ClusterState, id: string): RingEpoch | undefined {
  const lastWith = Math.max(-1, ...epochsOf(state, id));
  return state.epochs.filter((epoch) => epoch.epoch > lastWith).sort((a, b) => a.epoch - b.epoch)[0];
}

/**
 * The state once `id` is forgotten: no member, no removed id, and recorded in `forgotten` with
 * the newest epoch (the epochs that still list it mean the forgotten node) and whether the
 * stored-alone entry of its id is its own (kept: entries never change, and they mean it too).
 * The caller checks forgetProblem first.
 */
export function withForgotten(state: ClusterState, id: string): ClusterState {
  return {
    version: state.version + 1,
    members: state.members.filter((member) => member.id !== id),
    epochs: state.epochs,
    removed: state.removed.filter((each) => each !== id),
    forming: state.forming,
    storedAlone: state.storedAlone,
    forgotten: [
      ...state.forgotten,
      { id, throughEpoch: lastEpoch(state)?.epoch ?? 0, storedAlone: state.storedAlone.some((each) => each.node === id) },
    ],
  };
}

/**
 * Whether `id` in ring epoch `epoch` stands for a forgotten node (its data given up): no copy it
 * held can be read, so it answers for none of that epoch's keys even if its id joined again.
 */
export function isForgottenIn(state: Pick<ClusterState, 'forgotten'>, id: string, epoch: number): boolean {
  return state.forgotten.some((each) => each.id === id && epoch <= each.throughEpoch);
}

/** Whether the stored-alone events of `id` were a forgotten node's (given up with it). */
export function isStoredAloneForgotten(state: Pick<ClusterState, 'forgotten'>, id: string): boolean {
  return state.forgotten.some((each) => each.id === id && each.storedAlone);
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** A value from a peer, short enough to quote in a message or a log line. */
export function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Checks a member received from a peer or read from disk; throws naming the field that is wrong. */
export function parseMember(value: unknown, where: string): Member {
  const member = value as Partial<Member> | null;
  if (typeof member !== 'object' || member === null) throw new Error(`${where} is not an object`);
  if (!isString(member.id)) throw new Error(`${where}.id must be a string`);
  const idProblem = nodeIdProblem(member.id);
  if (idProblem !== null) throw new Error(`${where}.id: ${idProblem}`);
  for (const key of ['http', 'grpc'] as const) {
    if (!isString(member[key]) || !isMemberAddress(member[key])) {
      throw new Error(`${where}.${key} must be HOST:PORT of at most ${MAX_ADDRESS_LENGTH} characters, not ${quoted(member[key])}`);
    }
  }
  if (!ROLES.includes(member.role as Role)) throw new Error(`${where}.role must be one of ${ROLES.join(', ')}, not ${quoted(member.role)}`);
  return { id: member.id!, http: member.http!, grpc: member.grpc!, role: member.role! };
}

function parseStoredAlone(value: unknown, where: string): StoredAlone {
  const alone = value as Partial<StoredAlone> | null;
  if (typeof alone !== 'object' || alone === null) throw new Error(`${where} is not an object`);
  if (!isString(alone.node) || nodeIdProblem(alone.node) !== null) throw new Error(`${where}.node must be a node id`);
  if (!(Number.isSafeInteger(alone.partition) && (alone.partition as number) < 0))
    throw new Error(`${where}.partition must be a negative integer, not ${quoted(alone.partition)}`);
  if (
    !Array.isArray(alone.indexes) ||
    alone.indexes.length > MAX_STORED_ALONE_INDEXES ||
    !alone.indexes.every((name) => isString(name) && isStoredIndexName(name))
  ) {
    throw new Error(`${where}.indexes must be a list of at most ${MAX_STORED_ALONE_INDEXES} index names`);
  }
  if (!isCount(alone.fromMicros) || !isCount(alone.toMicros) || alone.fromMicros > alone.toMicros)
    throw new Error(`${where} needs a time range fromMicros <= toMicros`);
  return {
    node: alone.node,
    partition: alone.partition!,
    indexes: [...alone.indexes],
    fromMicros: alone.fromMicros,
    toMicros: alone.toMicros,
  };
}

/** Checks stored-alone events a joining node announces; throws naming the field that is wrong. */
export function parseJoinStoredAlone(value: unknown, node: string): StoredAlone {
  const parsed = parseStoredAlone(value, 'stored_alone');
  if (parsed.node !== node) throw new Error(`stored_alone names node ${quoted(parsed.node)}, not the joining node ${node}`);
  return parsed;
}

function parseForgotten(value: unknown, where: string): ForgottenNode {
  const forgotten = value as Partial<ForgottenNode> | null;
  if (typeof forgotten !== 'object' || forgotten === null) throw new Error(`${where} is not an object`);
  if (!isString(forgotten.id) || nodeIdProblem(forgotten.id) !== null)
    throw new Error(`${where}.id must be a node id, not ${quoted(forgotten.id)}`);
  if (!isCount(forgotten.throughEpoch)) throw new Error(`${where}.throughEpoch must be a non-negative integer`);
  return { id: forgotten.id, throughEpoch: forgotten.throughEpoch, storedAlone: forgotten.storedAlone === true };
}

function parseEpoch(value: unknown, where: string): RingEpoch {
  const epoch = value as Partial<RingEpoch> | null;
  if (typeof epoch !== 'object' || epoch === null) throw new Error(`${where} is not an object`);
  if (!isCount(epoch.epoch)) throw new Error(`${where}.epoch must be a non-negative integer`);
  if (!isCount(epoch.fromMicros)) throw new Error(`${where}.fromMicros must be a non-negative integer`);
  if (!Array.isArray(epoch.members) || !epoch.members.every(isString)) throw new Error(`${where}.members must be a list of node ids`);
  const parsed: RingEpoch = { epoch: epoch.epoch, fromMicros: epoch.fromMicros, members: [...epoch.members] };
  if (epoch.layout === undefined) return parsed;
  // A layout this node does not know would make it place keys unlike its peers: refuse the state.
  if (!EPOCH_LAYOUTS.includes(epoch.layout as EpochLayout))
    throw new Error(`${where}.layout must be one of ${EPOCH_LAYOUTS.join(', ')} or absent, not ${quoted(epoch.layout)}`);
  return { ...parsed, layout: epoch.layout };
}

/** Checks a state read from disk or received from a peer; throws naming the first field that is wrong. */
export function parseClusterState(value: unknown): ClusterState {
  const state = value as Partial<ClusterState> | null;
  if (typeof state !== 'object' || state === null) throw new Error('the cluster state is not an object');
  if (!isCount(state.version)) throw new Error('state.version must be a non-negative integer');
  if (!Array.isArray(state.members)) throw new Error('state.members must be a list');
  if (!Array.isArray(state.epochs)) throw new Error('state.epochs must be a list');
  if (!Array.isArray(state.removed) || !state.removed.every(isString)) throw new Error('state.removed must be a list of node ids');
  const forming = state.forming ?? [];
  if (!Array.isArray(forming) || !forming.every(isString)) throw new Error('state.forming must be a list of gRPC addresses');
  const forgotten = state.forgotten ?? [];
  if (!Array.isArray(forgotten)) throw new Error('state.forgotten must be a list');
  if (forgotten.length > MAX_FORGOTTEN)
    throw new Error(`state.forgotten holds ${forgotten.length} nodes; a state holds at most ${MAX_FORGOTTEN}`);
  if (state.members.length > MAX_MEMBERS)
    throw new Error(`state.members holds ${state.members.length} members; a cluster has at most ${MAX_MEMBERS}`);
  const parsed: ClusterState = {
    version: state.version,
    members: state.members.map((member, i) => parseMember(member, `state.members[${i}]`)),
    epochs: state.epochs.map((epoch, i) => parseEpoch(epoch, `state.epochs[${i}]`)),
    removed: [...state.removed],
    forming: [...forming],
    storedAlone: (Array.isArray(state.storedAlone) ? state.storedAlone : []).map((each, i) =>
      parseStoredAlone(each, `state.storedAlone[${i}]`),
    ),
    forgotten: forgotten.map((each, i) => parseForgotten(each, `state.forgotten[${i}]`)),
  };
  const ids = new Set(parsed.members.map((member) => member.id));
  if (ids.size < parsed.members.length) throw new Error('state.members names a node id twice');
  const strangerRemoved = parsed.removed.find((id) => !ids.has(id));
  if (strangerRemoved !== undefined) throw new Error(`state names node ${quoted(strangerRemoved)} as removed, but not among its members`);
  // An epoch may list a forgotten node, up to the epoch it was forgotten in.
  for (const epoch of parsed.epochs) {
    const stranger = epoch.members.find((id) => !ids.has(id) && !isForgottenIn(parsed, id, epoch.epoch));
    if (stranger !== undefined)
      throw new Error(`state names node ${quoted(stranger)} in ring epoch ${epoch.epoch}, but neither among its members nor as forgotten`);
  }
  if (parsed.forming.length > MAX_MEMBERS) throw new Error(`state.forming holds more than ${MAX_MEMBERS} addresses`);
  if (state.storedAlone !== undefined && !Array.isArray(state.storedAlone)) throw new Error('state.storedAlone must be a list');
  const aloneStranger = parsed.storedAlone.find((each) => !ids.has(each.node) && !isStoredAloneForgotten(parsed, each.node));
  if (aloneStranger !== undefined)
    throw new Error(`state.storedAlone names node ${quoted(aloneStranger.node)}, which is neither a member nor forgotten with it`);
  if (new Set(parsed.storedAlone.map((each) => each.node)).size < parsed.storedAlone.length)
    throw new Error('state.storedAlone names a node twice');
  if (new Set(parsed.storedAlone.map((each) => each.partition)).size < parsed.storedAlone.length)
    throw new Error('state.storedAlone gives two nodes one partition');
  return parsed;
}
