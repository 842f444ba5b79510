/**
 * Notification templates, Go-template-like: `{{.alert.name}}`, `{{.alert.<field>}}`,
 * `{{.result.<column>}}` (a column of the first result row; the whole rest of the path is the
 * column name, so `{{.result.count()}}` and `{{.result.order.id}}` work), `{{.timestamp}}`.
 *
 * A placeholder that names no value (an unknown alert field, a column the result lacks, another
 * root) renders as the empty string: a column can only be checked once the query has run, so
 * every unknown name is treated alike rather than refused for some and not others. Text between
 * `{{` and `}}` that does not start with `.` is no placeholder and is kept as written.
 *
 * `{{.alert.channels}}` is never filled: an alert's channels hold the secrets of every other
 * channel (keys, tokens), which one channel's message must not carry to its receiver.
 *
 * Values go in as text: a string as is, a number or boolean as JSON writes it, null as empty, an
 * object or array as its JSON. In a JSON body template the author writes the quotes.
 */
import type { Notification, NotifiedAlert } from './types';

const PLACEHOLDER = /\{\{\s*(\.[^{}]*?)\s*\}\}/g;

/** The text a value is inserted as. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The alert's fields a notification may show: all but its channels (their secrets). */
export function shownAlertFields(alert: NotifiedAlert): Record<string, unknown> {
  const { channels: _channels, ...shown } = alert;
  return shown;
}

/** The value a placeholder path (`.alert.name`) names, or undefined. */
export function lookup(path: string, notification: Notification): unknown {
  if (path === '.timestamp') return notification.timestamp;
  if (path.startsWith('.alert.')) return own(shownAlertFields(notification.alert), path.slice('.alert.'.length));
  if (path.startsWith('.result.')) return own(notification.result, path.slice('.result.'.length));
  return undefined;
}

/**
 * Renders a template. `escape` is applied to every inserted value (a chat message in HTML or
 * MarkdownV2 escapes the markup characters of values, not of the author's text).
 */
export function renderTemplate(template: string, notification: Notification, escape: (text: string) => string = (text) => text): string {
  return template.replace(PLACEHOLDER, (_whole, path: string) => escape(valueText(lookup(path, notification))));
}

/**
 * The built-in message, where a channel has no template:
 * `[Trawl] alert "<name>" triggered at <timestamp>: <first column> = <value> (query: <q>)`,
 * without the `: <column> = <value>` part when the result has no column.
 */
export function defaultMessage(notification: Notification, escape: (text: string) => string = (text) => text): string {
  const { alert, result, timestamp } = notification;
  const firstColumn = Object.keys(result)[0];
  const value = firstColumn === undefined ? '' : `: ${escape(firstColumn)} = ${escape(valueText(result[firstColumn]))}`;
  return `[Trawl] alert "${escape(valueText(alert.name))}" triggered at ${escape(timestamp)}${value} (query: ${escape(valueText(alert.q))})`;
}

/** What a test notification starts with. */
export const TEST_MARK = '[TEST]';

/** A message text marked as a test when the notification is one. */
export function markTest(message: string, notification: Notification): string {
  return notification.test === true ? `${TEST_MARK} ${message}` : message;
}
