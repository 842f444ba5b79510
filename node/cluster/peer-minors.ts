/**
 * The protocol version each peer last spoke to this node (in a Join, or a heartbeat either way):
 * what the master asks before it decides a ring epoch in a layout that older releases would read
 * as the plain ring, placing keys unlike the others.
 */
import type { ProtocolVersion } from './protocol';

export class PeerMinors {
  private readonly minors = new Map<string, number>();

  heard(id: string, version: ProtocolVersion | null): void {
    if (version === null) return;
    // A later major knows everything major 1 added.
    this.minors.set(id, version.major > 1 ? Number.POSITIVE_INFINITY : version.minor);
  }

  /** Whether `id` has spoken to this node since it started. */
  has(id: string): boolean {
    return this.minors.has(id);
  }

  /** Whether every one of `ids` was heard speaking major 1 at `minor` or later; one never heard is not. */
  allAtLeast(ids: Iterable<string>, minor: number): boolean {
    for (const id of ids) if (!((this.minors.get(id) ?? -1) >= minor)) return false;
    return true;
  }
}
