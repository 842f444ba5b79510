/**
 * The metadata store: typed collections of JSON records (saved queries, dashboards, alerts and
 * API keys), held in memory and persisted in the node records' `metadata` area as one
 * record per item plus the version, each write atomic. One node alone, or a cluster's master,
 * applies writes (`apply`); a replica takes the master's whole snapshot when it is newer (`install`).
 */
import { randomBytes } from 'crypto';
import type { NodeRecords, RecordWrite } from '../../storage/node-records';
import { metadataCollection, type MetadataCollection } from './collections';

export type MetadataRecord = Record<string, unknown>;

export interface MetadataSnapshot {
  /** Bumped by every applied write; a replica installs only a newer snapshot. */
  version: number;
  /** collection name -> record id -> record (JSON objects) */
  collections: Record<string, Record<string, MetadataRecord>>;
}

export type MetadataWrite =
  | { collection: string; op: 'create'; record: MetadataRecord }
  | { collection: string; op: 'replace'; id: string; record: MetadataRecord }
  | { collection: string; op: 'delete'; id: string };

export interface MetadataApplied {
  version: number;
  /** The record as stored (with `id`, `created_at`, `updated_at`); null after a delete. */
  record: MetadataRecord | null;
}

/** A replace or delete of an id the collection does not hold. */
export class MetadataNotFoundError extends Error {
  override readonly name = 'MetadataNotFoundError';

  constructor(
    readonly collection: string,
    readonly id: string,
    noun: string,
  ) {
    super(`no ${noun} with id "${id}"`);
  }
}

export interface MetadataStoreOptions {
  /** The wall clock, in milliseconds since the epoch, for `created_at` / `updated_at`. */
  now?: () => number;
}

const VERSION_KEY = 'version';
const ITEM_KEY = /^item\/([a-z][a-z0-9_]*)\/(.+)$/s;
const COLLECTION_NAME = /^[a-z][a-z0-9_]*$/;

function itemKey(collection: string, id: string): string {
  return `item/${collection}/${id}`;
}

function encode(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The latest time written in these records: the store's writes come after it. */
function latestTime(items: Map<string, Map<string, MetadataRecord>>): number {
  let latest = 0;
  for (const records of items.values()) {
    for (const record of records.values()) {
      for (const time of [record.created_at, record.updated_at]) {
        const ms = typeof time === 'string' ? Date.parse(time) : NaN;
        if (ms > latest) latest = ms;
      }
    }
  }
  return latest;
}

function isVersion(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** The stored value of a key, or an error naming the key: a store that cannot be read whole does not open. */
function decode(key: string, value: Buffer): unknown {
  try {
    return JSON.parse(value.toString('utf8'));
  } catch {
    throw new Error(`metadata record "${key}" is not JSON`);
  }
}

/** A snapshot from another node, checked before it replaces anything. */
function checkSnapshot(snapshot: MetadataSnapshot): void {
  if (!isObject(snapshot) || !isVersion(snapshot.version)) throw new Error('a metadata snapshot needs a version: an integer >= 0');
  if (!isObject(snapshot.collections)) throw new Error('a metadata snapshot needs collections: an object');
  for (const [name, items] of Object.entries(snapshot.collections)) {
    if (!COLLECTION_NAME.test(name)) throw new Error(`metadata snapshot: "${name}" is not a collection name`);
    if (!isObject(items)) throw new Error(`metadata snapshot: collection "${name}" is not an object`);
    for (const [id, record] of Object.entries(items)) {
      if (id === '' || !isObject(record))
        throw new Error(`metadata snapshot: ${name} record "${id}" needs a non-empty id and a JSON object`);
    }
  }
}

export class MetadataStore {
  /** Writes and installs run one at a time, each after the previous one is durable. */
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * The time of the last write: the next one is at least a millisecond later, whatever the wall
   * clock says, so `created_at` orders records by creation and a replace always moves `updated_at` on.
   */
  private lastWriteMs: number;

  private constructor(
    private readonly records: NodeRecords,
    private version: number,
    /** collection -> id -> record; records are never handed out, only copies. */
    private items: Map<string, Map<string, MetadataRecord>>,
    private readonly now: () => number,
  ) {
    this.lastWriteMs = latestTime(items);
  }

  /** Loads every record of the area into memory. */
  static async open(records: NodeRecords, options: MetadataStoreOptions = {}): Promise<MetadataStore> {
    let version = 0;
    const items = new Map<string, Map<string, MetadataRecord>>();
    for await (const { key, value } of records.scan()) {
      const decoded = decode(key, value);
      if (key === VERSION_KEY) {
        if (!isVersion(decoded)) throw new Error(`metadata version is not an integer >= 0: ${value.toString('utf8')}`);
        version = decoded;
        continue;
      }
      const item = ITEM_KEY.exec(key);
      if (item === null) throw new Error(`unexpected metadata record "${key}"`);
      if (!isObject(decoded)) throw new Error(`metadata record "${key}" is not a JSON object`);
      const [, collection, id] = item as unknown as [string, string, string];
      let collectionItems = items.get(collection);
      if (collectionItems === undefined) items.set(collection, (collectionItems = new Map()));
      collectionItems.set(id, decoded);
    }
    return new MetadataStore(records, version, items, options.now ?? Date.now);
  }

  /** Bumped by every write and install: a reader that derives something from the records rebuilds it when this moves. */
  get currentVersion(): number {
    return this.version;
  }

  /** The collection's records, oldest first (by `created_at`; equal times, from another writer, by id). */
  list(collection: string): MetadataRecord[] {
    const records = [...(this.items.get(collection)?.values() ?? [])];
    records.sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)) || String(a.id).localeCompare(String(b.id)));
    return records.map((record) => structuredClone(record));
  }

  get(collection: string, id: string): MetadataRecord | undefined {
    const record = this.items.get(collection)?.get(id);
    return record === undefined ? undefined : structuredClone(record);
  }

  /**
   * Applies one write as the authority and resolves once it is durable. Throws what the
   * collection's check throws for a bad record, and MetadataNotFoundError for an unknown id.
   */
  apply(write: MetadataWrite): Promise<MetadataApplied> {
    return this.serially(() => this.applyNow(write));
  }

  /** Every collection that holds records, as copies. */
  snapshot(): MetadataSnapshot {
    const collections: MetadataSnapshot['collections'] = {};
    for (const [name, items] of this.items) {
      if (items.size > 0) collections[name] = Object.fromEntries([...items].map(([id, record]) => [id, structuredClone(record)]));
    }
    return { version: this.version, collections };
  }

  /** A replica: replaces everything with the snapshot when it is newer (true), else keeps what it has (false). */
  install(snapshot: MetadataSnapshot): Promise<boolean> {
    return this.serially(async () => {
      checkSnapshot(snapshot);
      if (snapshot.version <= this.version) return false;
      const next = new Map<string, Map<string, MetadataRecord>>();
      const writes: RecordWrite[] = [];
      for (const [name, items] of Object.entries(snapshot.collections)) {
        const kept = new Map<string, MetadataRecord>();
        for (const [id, record] of Object.entries(items)) {
          kept.set(id, structuredClone(record));
          writes.push({ key: itemKey(name, id), value: encode(record) });
        }
        next.set(name, kept);
      }
      for (const [name, items] of this.items) {
        for (const id of items.keys()) {
          if (!next.get(name)?.has(id)) writes.push({ key: itemKey(name, id), value: null });
        }
      }
      writes.push({ key: VERSION_KEY, value: encode(snapshot.version) });
      await this.records.write(writes);
      this.items = next;
      this.version = snapshot.version;
      this.lastWriteMs = Math.max(this.lastWriteMs, latestTime(next));
      return true;
    });
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async applyNow(write: MetadataWrite): Promise<MetadataApplied> {
    const collection = metadataCollection(write.collection);
    const items = this.items.get(collection.name) ?? new Map<string, MetadataRecord>();
    const nowMs = Math.max(this.now(), this.lastWriteMs + 1);
    const now = new Date(nowMs).toISOString();
    let id: string;
    let record: MetadataRecord | null;
    switch (write.op) {
      case 'create': {
        const fields = collection.validate(write.record);
        id = this.newId(collection, items);
        record = this.stored(id, fields, now, now);
        break;
      }
      case 'replace': {
        const fields = collection.validate(write.record);
        const existing = items.get(write.id);
        if (existing === undefined) throw new MetadataNotFoundError(collection.name, write.id, collection.noun);
        id = write.id;
        record = this.stored(id, fields, existing.created_at, now);
        break;
      }
      case 'delete': {
        const existing = items.get(write.id);
        if (existing === undefined) throw new MetadataNotFoundError(collection.name, write.id, collection.noun);
        collection.checkDelete?.(
          existing,
          [...items.values()].filter((other) => other !== existing),
        );
        id = write.id;
        record = null;
        break;
      }
    }
    const version = this.version + 1;
    await this.records.write([
      { key: itemKey(collection.name, id), value: record === null ? null : encode(record) },
      { key: VERSION_KEY, value: encode(version) },
    ]);
    // Memory follows only a durable write: a failed one leaves the store as it was.
    if (record === null) items.delete(id);
    else items.set(id, record);
    this.items.set(collection.name, items);
    this.version = version;
    this.lastWriteMs = nowMs;
    return { version, record: record === null ? null : structuredClone(record) };
  }

  /** The record as kept: id first, the collection's fields, then the times (which the fields cannot override). */
  private stored(id: string, fields: MetadataRecord, createdAt: unknown, updatedAt: string): MetadataRecord {
    return Object.assign({ id }, fields, { id, created_at: createdAt, updated_at: updatedAt });
  }

  private newId(collection: MetadataCollection, items: Map<string, MetadataRecord>): string {
    for (;;) {
      const id = collection.idPrefix + randomBytes(12).toString('base64url');
      if (!items.has(id)) return id;
    }
  }
}
