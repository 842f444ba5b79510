/**
 * Bulk-index compatibility: `POST /es/_bulk` (and `/ingest/bulk`) NDJSON and `POST /es/{index}/_doc`.
 *
 * Documents become events in index `main`: the action's `_index` (or the path index) is the `source` label
 * (docs/api.md: "mapped to the `_source` tag"), `_type` is ignored, keys are flattened (document.ts), and the time,
 * host, level and `_raw` message come from the keys of document-keys.ts (else the receive time, and the
 * document line as `_raw`). These mappings are the endpoint's contract, so they run whatever
 * `ingest.pipeline` says. `_id` is echoed in the response but not stored.
 */
import type { LogEvent } from '../../storage/core/event';
import { DEFAULT_INDEX } from '../../storage/core/event';
import { invalidJson } from '../core/errors';
import { excerpt, isPlainObject, receivedAt, tryParseJson, type IngestContext } from './common';
import { applyDocument, documentMessage, fieldsHoldDocument } from './document';
import { checkEvent, countRefusal, invalid, isRefusal, type Refusal, type RefusalCounts } from './refusal';

export type BulkActionName = 'index' | 'create' | 'update' | 'delete';

export interface BulkError {
  type: string;
  reason: string;
}

export interface BulkItemResult {
  _index: string;
  _id: string;
  status: number;
  result?: 'created';
  _version?: number;
  _shards?: { total: number; successful: number; failed: number };
  _seq_no?: number;
  _primary_term?: number;
  error?: BulkError;
}

/** One response item keyed by its action; malformed or unknown action lines are reported under `index`. */
export type BulkItem = { index: BulkItemResult } | { create: BulkItemResult } | { update: BulkItemResult } | { delete: BulkItemResult };

export interface BulkResult {
  events: LogEvent[];
  /** One per action, in request order. */
  items: BulkItem[];
  /** True when any item failed (the response's `errors`). */
  errors: boolean;
  /** Failed items by reason (an action that is not a document counts as `invalid`). */
  refused: RefusalCounts;
}

const ACTIONS: ReadonlySet<string> = new Set(['index', 'create', 'update', 'delete']);

/** Reads non-blank lines with one line of lookahead; a trailing `\r` is dropped. */
class Lines {
  private pos = 0;
  private peeked: string | null | undefined;
  constructor(private readonly body: string) {}

  next(): string | null {
    if (this.peeked !== undefined) {
      const p = this.peeked;
      this.peeked = undefined;
      return p;
    }
    while (this.pos <= this.body.length) {
      let nl = this.body.indexOf('\n', this.pos);
      if (nl < 0) nl = this.body.length;
      const end = nl > this.pos && this.body.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      const line = this.body.slice(this.pos, end);
      this.pos = nl + 1;
      if (line.trim() !== '') return line;
    }
    return null;
  }

  peek(): string | null {
    if (this.peeked === undefined) this.peeked = this.next();
    return this.peeked;
  }
}

type Action =
  | { ok: true; name: BulkActionName; index: string | undefined; id: string | undefined }
  | { ok: false; name: BulkActionName; index: string | undefined; error: BulkError };

/**
 * An action line: an object whose first key names the action, with object metadata. Keys after the
 * action are ignored, as Elasticsearch does (winston-elasticsearch sends `"attempts":0` there).
 */
function parseAction(line: string): Action {
  const parsed = tryParseJson(line);
  if (!parsed.ok) {
    return {
      ok: false,
      name: 'index',
      index: quotedIndex(line),
      error: { type: 'parse_exception', reason: `malformed action line: ${parsed.message}` },
    };
  }
  const v = parsed.value;
  const keys = isPlainObject(v) ? Object.keys(v) : [];
  if (!isPlainObject(v) || keys.length === 0) {
    return {
      ok: false,
      name: 'index',
      index: undefined,
      error: {
        type: 'illegal_argument_exception',
        reason: 'malformed action line: expected an object whose first key names the action (index, create, update or delete)',
      },
    };
  }
  const key = keys[0]!;
  const meta = v[key];
  const name = (ACTIONS.has(key) ? key : 'index') as BulkActionName;
  const index = indexIn(meta) ?? keys.map((k) => (ACTIONS.has(k) ? indexIn(v[k]) : undefined)).find((i) => i !== undefined);
  if (!ACTIONS.has(key)) {
    return {
      ok: false,
      name,
      index,
      error: {
        type: 'illegal_argument_exception',
        reason: `unknown action [${excerpt(key, 40)}]: expected one of [create, delete, index, update]`,
      },
    };
  }
  if (!isPlainObject(meta) || (meta._index !== undefined && meta._index !== null && typeof meta._index !== 'string')) {
    return {
      ok: false,
      name,
      index,
      error: { type: 'illegal_argument_exception', reason: `malformed [${key}] action: metadata must be an object with a string _index` },
    };
  }
  const rawId = meta._id;
  const id =
    typeof rawId === 'string' && rawId !== '' ? rawId : typeof rawId === 'number' && Number.isFinite(rawId) ? String(rawId) : undefined;
  return { ok: true, name, index, id };
}

function indexIn(meta: unknown): string | undefined {
  return isPlainObject(meta) && typeof meta._index === 'string' ? meta._index : undefined;
}

/** The `_index` written in an action line that is not valid JSON, so that its failed item names it. */
function quotedIndex(line: string): string | undefined {
  const m = /"_index"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(line);
  if (m === null) return undefined;
  const text = tryParseJson(m[1]!);
  return text.ok && typeof text.value === 'string' ? text.value : undefined;
}

/** An object whose first key is an action name with object metadata: used to resync after a bad line. */
function isActionLine(line: string): boolean {
  const c = line.trimStart().charCodeAt(0);
  if (c !== 123) return false;
  const a = parseAction(line);
  return a.ok;
}

function item(name: BulkActionName, r: BulkItemResult): BulkItem {
  return { [name]: r } as unknown as BulkItem;
}

/**
 * Actions `index` and `create` take the next line as the document. `update` (whose document line is
 * consumed), `delete` (no document line) and unknown actions fail with status 400; so do unparseable
 * lines. Resync rule after a bad action line: if the next line is itself a valid action line it starts the
 * next pair, otherwise it is taken as the bad action's document and skipped. `_id` is the action's, else
 * `<idSeed>-<item number>`. `defaultIndex` (from `/es/{index}/_bulk`) stands in for an action without `_index`.
 */
export function parseBulk(body: string, ctx: IngestContext, idSeed: string, defaultIndex?: string): BulkResult {
  const lines = new Lines(body);
  const result: BulkResult = { events: [], items: [], errors: false, refused: {} };
  const fail = (
    name: BulkActionName,
    index: string | undefined,
    id: string,
    error: BulkError,
    refusal: Refusal = invalid(error.reason),
  ): void => {
    result.errors = true;
    countRefusal(result.refused, refusal);
    result.items.push(item(name, { _index: index ?? DEFAULT_INDEX, _id: id, status: 400, error }));
  };
  for (let line = lines.next(); line !== null; line = lines.next()) {
    const n = result.items.length;
    const action = parseAction(line);
    if (!action.ok) {
      const next = lines.peek();
      if (next !== null && !isActionLine(next)) lines.next();
      fail(action.name, action.index ?? defaultIndex, `${idSeed}-${n}`, action.error);
      continue;
    }
    const id = action.id ?? `${idSeed}-${n}`;
    if (action.name === 'delete' || action.name === 'update') {
      if (action.name === 'update') lines.next();
      fail(action.name, action.index ?? defaultIndex, id, {
        type: 'illegal_argument_exception',
        reason: `[${action.name}] is not supported: events are append-only; use index or create`,
      });
      continue;
    }
    const docLine = lines.next();
    if (docLine === null) {
      fail(action.name, action.index ?? defaultIndex, id, {
        type: 'illegal_argument_exception',
        reason: `[${action.name}] action without a document line`,
      });
      break;
    }
    const doc = mapDocumentLine(docLine, action.index ?? defaultIndex, ctx);
    if (isRefusal(doc)) {
      fail(action.name, action.index ?? defaultIndex, id, bulkError(doc), doc);
      continue;
    }
    result.events.push(doc);
    result.items.push(
      item(action.name, {
        _index: action.index ?? defaultIndex ?? DEFAULT_INDEX,
        _id: id,
        _version: 1,
        result: 'created',
        _shards: { total: 1, successful: 1, failed: 0 },
        _seq_no: n,
        _primary_term: 1,
        status: 201,
      }),
    );
  }
  return result;
}

/**
 * A refused document's item error, shaped as Elasticsearch's: what it cannot map is a
 * `mapper_parsing_exception`; a document over the field limit, or a time outside the accepted
 * window, an `illegal_argument_exception` (its answer to `index.mapping.total_fields.limit`).
 */
export function bulkError(refusal: Refusal): BulkError {
  const type =
    refusal.reason === 'invalid' || refusal.reason === 'non_finite_number' ? 'mapper_parsing_exception' : 'illegal_argument_exception';
  return { type, reason: refusal.message };
}

/** The event for a document line, or the reason it cannot be indexed. */
function mapDocumentLine(line: string, source: string | undefined, ctx: IngestContext): LogEvent | Refusal {
  const parsed = tryParseJson(line);
  if (!parsed.ok) return invalid(`failed to parse document: ${parsed.message}`);
  if (!isPlainObject(parsed.value)) return invalid('failed to parse document: expected a JSON object');
  return mapDocument(line, parsed.value, source, ctx);
}

/**
 * The event of one document (document-keys.ts): `_raw` is its message when it has one and its
 * fields hold every key, else the document line as received, so that no key is lost. A value that
 * cannot be stored exactly, or an event checkEvent refuses, gives the refusal instead.
 */
function mapDocument(raw: string, doc: Record<string, unknown>, source: string | undefined, ctx: IngestContext): LogEvent | Refusal {
  const now = receivedAt(ctx);
  const ev: LogEvent = { time: now, raw, index: DEFAULT_INDEX, fields: {} };
  if (source !== undefined && source !== '') ev.fields.source = source;
  const refusal = applyDocument(ev, doc, { pickTime: true, pickLabels: true, nowMicros: now });
  if (refusal !== null) return refusal;
  const message = documentMessage(doc);
  if (message !== undefined && fieldsHoldDocument(doc, ev.fields)) ev.raw = message;
  return checkEvent(ev, ctx) ?? ev;
}

/**
 * `POST /es/{index}/_doc`: one JSON object (else INVALID_JSON); `pathIndex` becomes `source`, the id is
 * `<idSeed>-0`. A document checkEvent refuses gives the refusal (the route answers 400) and no event.
 */
export function parseEsDoc(
  body: string,
  pathIndex: string,
  ctx: IngestContext,
  idSeed: string,
): { event: LogEvent; refusal: null; id: string } | { event: null; refusal: Refusal; id: string } {
  const text = body.trim();
  const parsed = tryParseJson(text);
  if (!parsed.ok) throw invalidJson(`invalid JSON: ${parsed.message}`);
  if (!isPlainObject(parsed.value)) throw invalidJson('expected one JSON object as the document');
  const id = `${idSeed}-0`;
  const out = mapDocument(text, parsed.value, pathIndex, ctx);
  return isRefusal(out) ? { event: null, refusal: out, id } : { event: out, refusal: null, id };
}
