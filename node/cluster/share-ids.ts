/**
 * Share ids: the name of one part of one owner's share of a write, `<ms>-<16 hex>-<part>`. The ms
 * is when the origin took the request (13 digits, so ids of one origin sort by it), the hex a
 * random request id, the part its number within the share. An owner keeps the ids it applied, so
 * a part that comes again (a hint of a write whose acknowledgement was lost) is applied once.
 */
import { randomBytes } from 'crypto';

const SHARE_ID = /^(\d{13})-[0-9a-f]{16}-(\d{1,6})$/;

/** A request's stem of share ids: parts are `${stem}-${part}`. */
export interface RequestShareIds {
  createdMs: number;
  stem: string;
}

export function newRequestShareIds(nowMs = Date.now()): RequestShareIds {
  return { createdMs: nowMs, stem: `${String(nowMs).padStart(13, '0')}-${randomBytes(8).toString('hex')}` };
}

export function shareIdOf(request: RequestShareIds, part: number): string {
  return `${request.stem}-${part}`;
}

/** The ms an id's request was taken at; null when `id` is not a share id. */
export function shareIdCreatedMs(id: string): number | null {
  const match = SHARE_ID.exec(id);
  return match === null ? null : Number(match[1]);
}
