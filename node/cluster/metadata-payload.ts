/**
 * The metadata store as the payload membership replicates with the cluster state: the master's
 * snapshot (JSON) goes out with each state push and heartbeat catch-up, and a replica installs it
 * when it is newer than its own.
 */
import type { MetadataSnapshot, MetadataStore } from '../metadata/store';
import type { ReplicatedPayload } from './membership';

export class MetadataPayload implements ReplicatedPayload {
  constructor(readonly store: MetadataStore) {}

  version(): number {
    return this.store.snapshot().version;
  }

  current(): { version: number; data: Buffer } | null {
    const snapshot = this.store.snapshot();
    return snapshot.version === 0 ? null : { version: snapshot.version, data: Buffer.from(JSON.stringify(snapshot)) };
  }

  async install(version: number, data: Buffer): Promise<void> {
    const snapshot = JSON.parse(data.toString('utf8')) as MetadataSnapshot;
    if (snapshot.version !== version) throw new Error(`metadata payload version ${version} carries snapshot version ${snapshot.version}`);
    await this.store.install(snapshot);
  }
}
