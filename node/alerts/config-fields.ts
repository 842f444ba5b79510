/**
 * The rules a channel's config fields are checked by. Each rule takes a value and the field's path
 * (`channels[1].config.url`) and returns the value to store, or throws a 422 VALIDATION_ERROR
 * naming that path, so the client learns which channel and which field to fix.
 */
import { ApiError, validationError } from '../core/errors';

export interface FieldRule {
  required: boolean;
  /** Stored when the field is absent (and not required). */
  default?: unknown;
  /** Checks a present value; returns it as stored. */
  check(value: unknown, path: string): unknown;
}

export type ConfigFields = Readonly<Record<string, FieldRule>>;

export function invalid(path: string, reason: string): ApiError {
  return validationError(`${path} ${reason}`, 422);
}

/** A plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw invalid(path, 'must be a string');
  if (value.trim() === '') throw invalid(path, 'must not be empty');
  return value;
}

export function text(options: { required: boolean; default?: string }): FieldRule {
  return { ...options, check: nonEmptyString };
}

/** A template may be any string, even empty (an empty message is the author's choice). */
export function template(): FieldRule {
  return {
    required: false,
    check: (value, path) => {
      if (typeof value !== 'string') throw invalid(path, 'must be a string');
      return value;
    },
  };
}

/** An absolute http or https URL: fetch cannot send to anything else. */
export function httpUrl(options: { required: boolean }): FieldRule {
  return {
    ...options,
    check: (value, path) => {
      const url = nonEmptyString(value, path);
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw invalid(path, 'must be an absolute http or https URL');
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid(path, 'must be an absolute http or https URL');
      return url;
    },
  };
}

export function oneOf(values: readonly string[], options: { required: boolean; default?: string }): FieldRule {
  return {
    ...options,
    check: (value, path) => {
      if (typeof value !== 'string' || !values.includes(value)) throw invalid(path, `must be one of ${values.join(', ')}`);
      return value;
    },
  };
}

// RFC 9110 token characters: a header name fetch accepts.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// A value fetch accepts: no line breaks or NUL, which would split or end the header.
const HEADER_VALUE = /^[^\r\n\0]*$/;

/** A key-value object of HTTP headers, names and values as fetch accepts them. */
export function headers(): FieldRule {
  return {
    required: false,
    check: (value, path) => {
      if (!isRecord(value)) throw invalid(path, 'must be an object of header names to string values');
      const entries = Object.keys(value).map((name): [string, string] => {
        const headerValue = value[name];
        if (!HEADER_NAME.test(name)) throw invalid(`${path}.${name}`, 'is not a valid header name');
        if (typeof headerValue !== 'string') throw invalid(`${path}.${name}`, 'must be a string');
        if (!HEADER_VALUE.test(headerValue)) throw invalid(`${path}.${name}`, 'must not hold a line break');
        return [name, headerValue];
      });
      // fromEntries makes every name an own property, `__proto__` (a valid token) included.
      return Object.fromEntries(entries);
    },
  };
}

export function stringList(): FieldRule {
  return {
    required: false,
    check: (value, path) => {
      if (!Array.isArray(value)) throw invalid(path, 'must be an array of strings');
      value.forEach((item, index) => {
        if (typeof item !== 'string') throw invalid(`${path}[${index}]`, 'must be a string');
      });
      return [...(value as string[])];
    },
  };
}

// One @, something on each side, no spaces or angle brackets: enough to refuse a typo without
// refusing an address an SMTP server would take.
const EMAIL_ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/;

function emailAddress(value: unknown, path: string): string {
  if (typeof value !== 'string' || !EMAIL_ADDRESS.test(value)) throw invalid(path, 'must be an email address (name@host)');
  return value;
}

export function emailAddressField(options: { required: boolean }): FieldRule {
  return { ...options, check: emailAddress };
}

export function emailAddressList(options: { required: boolean }): FieldRule {
  return {
    ...options,
    check: (value, path) => {
      if (!Array.isArray(value) || value.length === 0) throw invalid(path, 'must be a non-empty array of email addresses');
      return value.map((item, index) => emailAddress(item, `${path}[${index}]`));
    },
  };
}

export function port(options: { required: boolean; default: number }): FieldRule {
  return {
    ...options,
    check: (value, path) => {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
        throw invalid(path, 'must be an integer port from 1 to 65535');
      }
      return value;
    },
  };
}

/** A chat id: a string or an integer (a group's is negative, prefixed -100). */
export function chatId(): FieldRule {
  return {
    required: true,
    check: (value, path) => {
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      if (typeof value === 'string' && value.trim() !== '') return value;
      throw invalid(path, 'must be a string or an integer');
    },
  };
}

/** A secret placed in a URL path (a bot token): no character that would change the path. */
export function pathSecret(): FieldRule {
  return {
    required: true,
    check: (value, path) => {
      const secret = nonEmptyString(value, path);
      if (/[\s/?#%]/.test(secret)) throw invalid(path, 'must not hold spaces or any of / ? # %');
      return secret;
    },
  };
}
