/**
 * Strict readers for request bodies and query strings. The real service will not
 * guess what a malformed field meant, so neither does the emulator: a wrong type
 * or a missing required field is a 400 naming the field.
 */
import { badRequest } from './errors.js';

export type JsonObject = Record<string, unknown>;

export function asObject(body: unknown): JsonObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('request body must be a JSON object');
  }
  return body as JsonObject;
}

export function reqString(o: JsonObject, field: string, opts: { allowEmpty?: boolean } = {}): string {
  const v = o[field];
  if (v === undefined || v === null) throw badRequest(`${field} is required`);
  if (typeof v !== 'string') throw badRequest(`${field} must be a string`);
  if (!opts.allowEmpty && v.length === 0) throw badRequest(`${field} must not be empty`);
  return v;
}

export function optString(o: JsonObject, field: string): string | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badRequest(`${field} must be a string`);
  return v;
}

export function optBool(o: JsonObject, field: string): boolean | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw badRequest(`${field} must be a boolean`);
  return v;
}

export function optInt(o: JsonObject, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw badRequest(`${field} must be an integer from ${min} to ${max}`);
  }
  return v;
}

export function reqStringArray(o: JsonObject, field: string, opts: { allowEmpty?: boolean } = {}): string[] {
  const v = o[field];
  if (v === undefined || v === null) throw badRequest(`${field} is required`);
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw badRequest(`${field} must be an array of strings`);
  if (!opts.allowEmpty && v.length === 0) throw badRequest(`${field} must not be empty`);
  return v as string[];
}

export function optStringArray(o: JsonObject, field: string): string[] | undefined {
  if (o[field] === undefined || o[field] === null) return undefined;
  return reqStringArray(o, field, { allowEmpty: true });
}

/** Query integers: digits only ("10", not "1e1" or "-1"), within bounds. */
export function queryInt(q: URLSearchParams, name: string, dflt: number, min: number, max: number): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return dflt;
  if (!/^\d+$/.test(raw)) throw badRequest(`${name} must be a whole number`);
  const n = Number(raw);
  if (n < min || n > max) throw badRequest(`${name} must be from ${min} to ${max}`);
  return n;
}

/** Query seconds may be fractional ("0.5"): the document calls them numbers. */
export function queryNumber(q: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw badRequest(`${name} must be a number`);
  const n = Number(raw);
  if (n < min || n > max) throw badRequest(`${name} must be from ${min} to ${max}`);
  return n;
}

export function queryBool(q: URLSearchParams, name: string, dflt: boolean): boolean {
  const raw = q.get(name);
  if (raw === null || raw === '') return dflt;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw badRequest(`${name} must be true or false`);
}

/** Seconds in a body may be fractional; the document calls them numbers. */
export function optNumber(o: JsonObject, field: string, min: number, max: number): number | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
    throw badRequest(`${field} must be a number from ${min} to ${max}`);
  }
  return v;
}
