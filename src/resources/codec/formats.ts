/**
 * String formats with the semantics the Kubernetes API server gives them in a structural schema
 * (`format: date-time | ipv4 | cidr | uuid | byte`). The CRDs use `format:` for these, and the io-ts
 * codecs call the same checks, so a value the embedded store accepts is one the API server accepts.
 */
import { isIPv4, isIPv6 } from 'node:net';

export type StringFormat = 'date-time' | 'ipv4' | 'cidr' | 'uuid' | 'byte';

// RFC 3339 as Kubernetes parses it (strfmt.DateTime): a full date, 'T' or 't' or ' ', a time with
// optional fraction, and a mandatory offset.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const isDateTime = (s: string): boolean => {
  const m = DATE_TIME.exec(s);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day >= 1 && day <= daysInMonth;
};

const isCidr = (s: string): boolean => {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const address = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const prefix = Number(bits);
  if (isIPv4(address)) return prefix <= 32;
  if (isIPv6(address)) return prefix <= 128;
  return false;
};

/** True when `value` has the format. Unknown formats pass, as they do in the API server. */
export const hasFormat = (format: StringFormat, value: string): boolean => {
  switch (format) {
    case 'date-time':
      return isDateTime(value);
    case 'ipv4':
      return isIPv4(value);
    case 'cidr':
      return isCidr(value);
    case 'uuid':
      return UUID.test(value);
    case 'byte':
      return BASE64.test(value);
  }
};

/** The API server's wording for a format failure. */
export const formatMessage = (format: StringFormat): string => {
  switch (format) {
    case 'date-time':
      return 'must be an RFC 3339 date-time (e.g. 2026-01-02T15:04:05Z)';
    case 'ipv4':
      return 'must be an IPv4 address';
    case 'cidr':
      return 'must be a CIDR (e.g. 10.0.0.0/24)';
    case 'uuid':
      return 'must be a UUID';
    case 'byte':
      return 'must be base64-encoded';
  }
};
