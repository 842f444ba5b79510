/**
 * Durable records of the node itself, beside the events: the cluster state, metadata collections,
 * hints for other nodes. Each area is a key prefix in the engine's RocksDB (`n:<area>/<key>`), so
 * a record is as durable as an acknowledged event (RocksDB's WAL; fsync per `storage.fsync`),
 * and a write of several records is atomic.
 */
import { prefixEnd, type Rocks, type WriteOp } from './core/rocks';

const PREFIX = 'n:';

export interface RecordWrite {
  key: string;
  /** null deletes the record. */
  value: Buffer | null;
}

/** One area of node records; keys are strings that sort as their bytes. */
export class NodeRecords {
  constructor(
    private readonly rocks: Rocks,
    readonly area: string,
    private readonly sync: () => boolean,
  ) {
    if (area.includes('/')) throw new Error(`a record area has no '/': ${area}`);
  }

  private keyOf(key: string): Buffer {
    return Buffer.from(`${PREFIX}${this.area}/${key}`);
  }

  /** The write of one record as an operation, to commit in the same batch as something else. */
  op(key: string, value: Buffer | null): WriteOp {
    return value === null ? { type: 'del', key: this.keyOf(key) } : { type: 'put', key: this.keyOf(key), value };
  }

  async get(key: string): Promise<Buffer | null> {
    return this.rocks.get(this.keyOf(key));
  }

  /** Applies the writes atomically; resolves once they are durable. */
  async write(writes: readonly RecordWrite[]): Promise<void> {
    await this.rocks.write(
      writes.map((write) => this.op(write.key, write.value)),
      this.sync(),
    );
  }

  async put(key: string, value: Buffer): Promise<void> {
    await this.write([{ key, value }]);
  }

  async delete(key: string): Promise<void> {
    await this.write([{ key, value: null }]);
  }

  /** Every record whose key starts with `prefix`, in key order. */
  async *scan(prefix = ''): AsyncGenerator<{ key: string; value: Buffer }> {
    const start = this.keyOf(prefix);
    const strip = `${PREFIX}${this.area}/`.length;
    for await (const { key, value } of this.rocks.scanRange(start, prefixEnd(start))) {
      yield { key: key.toString('utf8', strip), value };
    }
  }
}
