/**
 * The node's TLS certificate, key and CA (`tls.*`), in one place for the HTTPS server, the gRPC
 * server and the clients to other nodes. `SIGHUP` re-reads the files (`reload`): connections made
 * from then on use the new ones, connections already open keep theirs. A reload that cannot read
 * the files, or finds a key that does not match its certificate, changes nothing.
 */
import fs from 'fs';
import tls from 'tls';
import { X509Certificate } from 'crypto';

/** Where the PEM files are (the `tls` section of the settings). */
export interface TlsPaths {
  certFile: string | null;
  keyFile: string | null;
  caFile: string | null;
}

/** The PEM contents read from `TlsPaths`. */
export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  /** The CA that other nodes' certificates must chain to; null: the system's CAs, and no client certificates asked. */
  ca: Buffer | null;
}

function readPem(setting: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new Error(`${setting} ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
}

/** Reads and checks the files: each readable, the key matching the certificate. Throws naming what is wrong. */
export function readTlsFiles(paths: TlsPaths): TlsFiles {
  if (paths.certFile === null || paths.keyFile === null) throw new Error('tls.enabled needs tls.cert_file and tls.key_file');
  const files: TlsFiles = {
    cert: readPem('tls.cert_file', paths.certFile),
    key: readPem('tls.key_file', paths.keyFile),
    ca: paths.caFile === null ? null : readPem('tls.ca_file', paths.caFile),
  };
  try {
    tls.createSecureContext({ cert: files.cert, key: files.key, ...(files.ca === null ? {} : { ca: files.ca }) });
  } catch (error) {
    throw new Error(`tls.cert_file, tls.key_file and tls.ca_file do not make a usable certificate: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return files;
}

export class TlsMaterial {
  private current: TlsFiles;
  private context: tls.SecureContext;
  private readonly listeners = new Set<(files: TlsFiles) => void>();

  constructor(files: TlsFiles) {
    this.current = files;
    this.context = TlsMaterial.contextOf(files);
  }

  static open(paths: TlsPaths): TlsMaterial {
    return new TlsMaterial(readTlsFiles(paths));
  }

  private static contextOf(files: TlsFiles): tls.SecureContext {
    return tls.createSecureContext({ cert: files.cert, key: files.key, ...(files.ca === null ? {} : { ca: files.ca }) });
  }

  get files(): TlsFiles {
    return this.current;
  }

  /** With a CA, nodes verify each other both ways (mutual TLS): a peer must present a certificate it signed. */
  get mutual(): boolean {
    return this.current.ca !== null;
  }

  /** The server side's context for a new connection. */
  get secureContext(): tls.SecureContext {
    return this.context;
  }

  /** When the certificate stops being valid (ISO 8601), for the log line of a start or a reload. */
  get validTo(): string {
    return new Date(new X509Certificate(this.current.cert).validTo).toISOString();
  }

  /** Calls `listener` after every reload; returns the function that stops it. */
  onChange(listener: (files: TlsFiles) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Re-reads the files at `paths`; throws (keeping the files in use) when they cannot be used. */
  reload(paths: TlsPaths): void {
    const files = readTlsFiles(paths);
    this.context = TlsMaterial.contextOf(files);
    this.current = files;
    for (const listener of this.listeners) listener(files);
  }
}
