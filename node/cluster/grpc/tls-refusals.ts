/**
 * Connections to the gRPC port refused in their TLS handshake (plain text on a TLS port, no client
 * certificate, one that `tls.ca_file` did not sign): counted, and logged at most once a minute per
 * address.
 */
import type { Logger } from '../../core/logger';
import { RefusalLog } from './refusal-log';

export class TlsRefusals {
  private readonly observers: ((reason: string) => void)[] = [];
  private readonly log: RefusalLog;

  constructor(logger: Logger, now: () => number = Date.now) {
    this.log = new RefusalLog(logger, now);
  }

  /** Calls `observer` for every refused connection from now on (the metrics). */
  observe(observer: (reason: string) => void): void {
    this.observers.push(observer);
  }

  refused(peer: string, reason: string): void {
    for (const observer of this.observers) observer(reason);
    this.log.refused(
      peer,
      (host) =>
        `cluster: refused a gRPC connection from ${peer} in its TLS handshake: ${reason}; further refusals from ${host} are logged at most once a minute`,
    );
  }
}
