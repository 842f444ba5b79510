/**
 * The log of refused peers: at most one line per peer address a minute, so a stranger that keeps
 * calling (or connecting) does not flood the log. Every refusal is still counted by the caller.
 */
import type { Logger } from '../../core/logger';

/** Refusals from one address are logged at most this often. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** Addresses remembered for that at most: past it, refusals from new addresses are only counted until a minute passed. */
const MAX_REMEMBERED = 1000;

/** `127.0.0.1:53211` -> `127.0.0.1`: each connection of a peer has its own port. */
export function hostOf(peer: string): string {
  const colon = peer.lastIndexOf(':');
  return colon < 0 ? peer : peer.slice(0, colon);
}

export class RefusalLog {
  /** When refusals from each address were last logged. */
  private readonly lastLogged = new Map<string, number>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logs `line` as a warning unless a refusal from `peer`'s host was logged less than a minute ago. */
  refused(peer: string, line: (host: string) => string): void {
    const host = hostOf(peer);
    const now = this.now();
    const last = this.lastLogged.get(host);
    if (last !== undefined && now - last < REFUSAL_LOG_INTERVAL_MS) return;
    if (last === undefined && this.lastLogged.size >= MAX_REMEMBERED) {
      for (const [known, at] of this.lastLogged) if (now - at >= REFUSAL_LOG_INTERVAL_MS) this.lastLogged.delete(known);
      if (this.lastLogged.size >= MAX_REMEMBERED) return;
    }
    this.lastLogged.set(host, now);
    this.logger.warn(line(host));
  }
}
