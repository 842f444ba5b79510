/**
 * The metadata store as the payload membership replicates with the cluster state: the master's
 * snapshot (JSON) goes out with each state push and heartbeat catch-up, and a replica installs it
 * when it is newer than its own.
 */
import type { MetadataRecord, MetadataSnapshot, MetadataStore } from '../metadata/store';
import type { ReplicatedPayload } from './membership';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The records of a snapshot as `collection/id` -> JSON text. */
function recordTexts(collections: Record<string, Record<string, MetadataRecord>>): Map<string, string> {
  const texts = new Map<string, string>();
  for (const [name, items] of Object.entries(collections)) {
    if (!isObject(items)) continue;
    for (const [id, record] of Object.entries(items)) texts.set(`${name}/${id}`, JSON.stringify(record));
  }
  return texts;
}

export class MetadataPayload implements ReplicatedPayload {
  constructor(readonly store: MetadataStore) {}

  version(): number {
    return this.store.snapshot().version;
  }

  current(): { version: number; data: Buffer } | null {
    const snapshot = this.store.snapshot();
    return snapshot.version === 0 ? null : { version: snapshot.version, data: Buffer.from(JSON.stringify(snapshot)) };
  }

  /** Each applied write bumps the version and creates, replaces or deletes one record: k versions change at most k records. */
  problem(version: number, data: Buffer): string | null {
    let snapshot: MetadataSnapshot;
    try {
      snapshot = JSON.parse(data.toString('utf8')) as MetadataSnapshot;
    } catch (error) {
      return `the metadata snapshot is not JSON: ${(error as Error).message}`;
    }
    if (!isObject(snapshot) || snapshot.version !== version || !isObject(snapshot.collections)) {
      return `metadata payload v${version} does not hold a snapshot of that version with its collections`;
    }
    const held = this.store.snapshot();
    const before = recordTexts(held.collections);
    const after = recordTexts(snapshot.collections);
    let changed = 0;
    for (const [key, text] of after) if (before.get(key) !== text) changed++;
    for (const key of before.keys()) if (!after.has(key)) changed++;
    const steps = version - held.version;
    if (changed > steps)
      return `metadata v${version} changes ${changed} records of v${held.version}; ${steps} write${steps === 1 ? '' : 's'} change at most ${steps}`;
    return null;
  }

  async install(version: number, data: Buffer): Promise<void> {
    const snapshot = JSON.parse(data.toString('utf8')) as MetadataSnapshot;
    if (snapshot.version !== version) throw new Error(`metadata payload version ${version} carries snapshot version ${snapshot.version}`);
    await this.store.install(snapshot);
  }
}
