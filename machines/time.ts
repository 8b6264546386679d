/**
 * Time arithmetic for deciders. Machines never read a clock: times arrive on stimuli as RFC 3339
 * strings (the pass's own clock), and rules such as "a window longer than any request's lifetime has
 * passed" compare two of them. Parsed here by hand, because the purity rule forbids the `Date`
 * global in machines/ (a guard that consulted it could decide differently on replay).
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
};

/** Milliseconds since the epoch of an RFC 3339 time (no zone means UTC, as Nova prints it); null when unparseable. */
export const epochMs = (time: string | null | undefined): number | null => {
  if (typeof time !== 'string') return null;
  const m = RFC3339.exec(time);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return null;
  const millis = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  let offsetMinutes = 0;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
  }
  const days = daysFromCivil(Number(y), month, day);
  return ((days * 24 + Number(h)) * 60 + Number(mi) - offsetMinutes) * 60_000 + Number(s) * 1000 + millis;
};

/** True when both times parse and `later` is at least `ms` after `earlier`. Unknown times never elapse. */
export const atLeastAfter = (earlier: string | null | undefined, later: string | null | undefined, ms: number): boolean => {
  const a = epochMs(earlier);
  const b = epochMs(later);
  return a !== null && b !== null && b - a >= ms;
};
