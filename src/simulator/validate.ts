// Small readers for untyped JSON bodies. They throw 400s worded like Nova's JSON-schema errors, which is
// close enough for every service (each keeps its own body shape via SimError rendering).
import { SimError } from './http.js';

export type Json = Record<string, unknown>;

export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(field: string, value: unknown, why: string): SimError {
  return new SimError(400, `Invalid input for field/attribute ${field}. Value: ${JSON.stringify(value)}. ${why}`);
}

/** The object under `key` of the request body (`{"server": {...}}`). */
export function member(body: unknown, key: string): Json {
  if (!isObj(body)) throw new SimError(400, 'The request body is missing or malformed: expected a JSON object.');
  const v = body[key];
  if (!isObj(v)) throw new SimError(400, `Invalid input for field/attribute ${key}. '${key}' is a required property`);
  return v;
}

export function reqStr(o: Json, key: string, max = 255): string {
  const v = o[key];
  if (typeof v !== 'string') throw invalid(key, v, v === undefined ? `'${key}' is a required property` : `${JSON.stringify(v)} is not of type 'string'`);
  if (v.length > max) throw invalid(key, v, `'${v}' is too long`);
  return v;
}

export function optStr(o: Json, key: string, max = 65535): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(key, v, `${JSON.stringify(v)} is not of type 'string'`);
  if (v.length > max) throw invalid(key, v, `'${v}' is too long`);
  return v;
}

/** A string or explicit null (e.g. `"description": null`); undefined when absent. */
export function optNullableStr(o: Json, key: string): string | null | undefined {
  const v = o[key];
  if (v === null) return null;
  return optStr(o, key);
}

export function optInt(o: Json, key: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number | undefined {
  let v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) v = Number(v);
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(key, v, `${JSON.stringify(v)} is not of type 'integer'`);
  if (v < min) throw invalid(key, v, `${v} is less than the minimum of ${min}`);
  if (v > max) throw invalid(key, v, `${v} is greater than the maximum of ${max}`);
  return v;
}

export function reqInt(o: Json, key: string, min?: number, max?: number): number {
  const v = optInt(o, key, min, max);
  if (v === undefined) throw invalid(key, v, `'${key}' is a required property`);
  return v;
}

export function optBool(o: Json, key: string): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'True') return true;
  if (v === 'false' || v === 'False') return false;
  throw invalid(key, v, `${JSON.stringify(v)} is not of type 'boolean'`);
}

export function optStrMap(o: Json, key: string): Record<string, string> | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!isObj(v)) throw invalid(key, v, `${JSON.stringify(v)} is not of type 'object'`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw invalid(key, v, `${JSON.stringify(x)} is not of type 'string'`);
    out[k] = x;
  }
  return out;
}

export function optStrList(o: Json, key: string): string[] | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalid(key, v, `${JSON.stringify(v)} is not of type 'array' of strings`);
  return v as string[];
}

export function optArray(o: Json, key: string): unknown[] | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw invalid(key, v, `${JSON.stringify(v)} is not of type 'array'`);
  return v;
}

/** Query flag in the many spellings OpenStack accepts ("1", "true", "True"). */
export const truthy = (v: string | null | undefined): boolean =>
  v !== null && v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
