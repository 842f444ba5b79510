/**
 * The one table of document keys that shippers use for the event's time, host, level and message,
 * looked up in the order listed (the first usable value wins). A dotted key matches either a
 * dotted name (`{"host.name": ...}`) or the nested object (`{"host": {"name": ...}}`).
 *
 * Every mapped key also stays a field under its own name, so nothing a shipper sent is lost.
 * The source label of bulk and `_doc` documents comes from the request (the action's `_index`, else
 * the path's `{index}`), else from a document `source` key like any other field.
 */

/** Event time: the first key whose value parses as a time (timevalue.ts). */
export const TIME_KEYS = [
  '@timestamp',
  'timestamp',
  'time',
  'ts',
  'datetime',
  'timereported', // rsyslog StdJSONFmt
  'ISODATE', // syslog-ng
] as const;

/** `host`: the first string value. */
export const HOST_KEYS = [
  'host', // a string (in ECS `host` is an object: its `name` comes next)
  'host.name', // Elastic Common Schema, Beats
  'host.hostname', // ecs-logging libraries
  'hostname', // pino, bunyan
  'HOST', // syslog-ng
  'fromhost', // rsyslog StdJSONFmt
] as const;

/** How a number under a level key reads: a pino/bunyan level (10..60) or a syslog severity (priority % 8). */
export type LevelNumbers = 'pino' | 'syslog';

/**
 * `level`: the first value that names a level. Text is normalized (level.ts: `WARNING` -> `warn`,
 * `err` -> `error`, `emerg` -> `fatal`); numbers read as the key says, decimal text too for syslog.
 */
export const LEVEL_KEYS: readonly { key: string; numbers: LevelNumbers }[] = [
  { key: 'level', numbers: 'pino' }, // most loggers; pino's numbers
  { key: 'log.level', numbers: 'pino' }, // Elastic Common Schema
  { key: 'severity', numbers: 'syslog' }, // winston-elasticsearch, rsyslog templates
  { key: 'priority', numbers: 'syslog' }, // rsyslog StdJSONFmt (severity text)
  { key: 'PRIORITY', numbers: 'syslog' }, // syslog-ng (severity text), journald (severity number)
];

/**
 * `_raw` of bulk and `_doc` documents: the first non-empty string. Without one (or when the
 * document has keys no field can hold, see document.ts) `_raw` is the document line as received.
 */
export const MESSAGE_KEYS = [
  'event.original', // ECS: the original event text, when the shipper kept it
  'message', // ECS, Beats, winston, rsyslog StdJSONFmt
  'msg', // pino, bunyan
  'MESSAGE', // syslog-ng, journald
  'log', // Docker json-file, Fluent Bit (a string; ECS `log` is an object)
] as const;

/** `doc[path]` from a dotted name or nested objects; own properties only. */
export function lookup(doc: Record<string, unknown>, path: string): unknown {
  if (Object.prototype.hasOwnProperty.call(doc, path)) return doc[path];
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  const head = path.slice(0, dot);
  if (!Object.prototype.hasOwnProperty.call(doc, head)) return undefined;
  const inner = doc[head];
  return typeof inner === 'object' && inner !== null && !Array.isArray(inner)
    ? lookup(inner as Record<string, unknown>, path.slice(dot + 1))
    : undefined;
}
