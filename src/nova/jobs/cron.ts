/**
 * A standard five-field cron schedule, parsed and matched without a dependency, for the local runner's archive
 * CronJob (src/nova/jobs/local.ts). The dialect is the one Kubernetes validates CronJob schedules with
 * (robfig/cron's standard parser), so a schedule the local runner accepts is one a cluster accepts too:
 *
 *   minute hour day-of-month month day-of-week
 *   0-59   0-23 1-31         1-12  0-6 (0 = Sunday; SUN-SAT and JAN-DEC names, any case)
 *
 * Each field is a comma list of `*` or `?` (every value), `N`, `N-M`, each optionally `/step`; `N/step` means
 * `N-max/step`. Macros: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly.
 * Day matching follows robfig/cron (and Vixie cron): when both day fields are restricted, a day matches if
 * EITHER does; when either is `*`/`?` (unstepped), both must match. A stepped `*` (every second minute, say) counts as restricted.
 * Times are UTC minutes (Kubernetes uses the controller manager's zone, UTC on the clusters we target; a
 * `CRON_TZ=`/`TZ=` prefix is refused, as the CronJob API refuses it).
 */

export class CronParseError extends Error {
  override readonly name = 'CronParseError';
}

export interface CronSchedule {
  readonly expression: string;
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
  /** The day-of-month field was `*` or `?` (unstepped): day matching is AND rather than OR. */
  readonly dayOfMonthStar: boolean;
  readonly dayOfWeekStar: boolean;
}

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day of week', min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const value = (text: string, field: FieldSpec, expression: string): number => {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return field.min + named;
  if (!/^\d+$/.test(text)) throw new CronParseError(`cron schedule "${expression}": ${field.name} "${text}" is not a number${field.names ? ' or a name' : ''}`);
  const n = Number(text);
  if (n < field.min || n > field.max) throw new CronParseError(`cron schedule "${expression}": ${field.name} ${n} is outside ${field.min}-${field.max}`);
  return n;
};

const parseField = (text: string, field: FieldSpec, expression: string): { values: Set<number>; star: boolean } => {
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(',')) {
    if (part === '') throw new CronParseError(`cron schedule "${expression}": empty item in the ${field.name} field`);
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined || range === undefined || range === '') throw new CronParseError(`cron schedule "${expression}": "${part}" is not a ${field.name} item`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1) throw new CronParseError(`cron schedule "${expression}": step "${stepText}" in the ${field.name} field must be a positive number`);
      step = Number(stepText);
    }
    let start: number;
    let end: number;
    if (range === '*' || range === '?') {
      start = field.min;
      end = field.max;
      if (step === 1) star = true;
    } else {
      const bounds = range.split('-');
      if (bounds.length > 2 || bounds.some((b) => b === '')) throw new CronParseError(`cron schedule "${expression}": "${range}" is not a ${field.name} range`);
      start = value(bounds[0]!, field, expression);
      end = bounds.length === 2 ? value(bounds[1]!, field, expression) : stepText !== undefined ? field.max : start;
      if (start > end) throw new CronParseError(`cron schedule "${expression}": ${field.name} range ${range} runs backwards`);
    }
    for (let v = start; v <= end; v += step) values.add(v);
  }
  return { values, star };
};

/** Parses a five-field schedule or a macro; CronParseError names the field and what is wrong. */
export const parseCron = (expression: string): CronSchedule => {
  const trimmed = expression.trim();
  if (/^(CRON_)?TZ=/.test(trimmed)) throw new CronParseError(`cron schedule "${expression}": a time zone prefix is not supported (Kubernetes refuses it too)`);
  const expanded = trimmed.startsWith('@') ? MACROS[trimmed.toLowerCase()] : trimmed;
  if (expanded === undefined) throw new CronParseError(`cron schedule "${expression}": unknown macro (known: ${Object.keys(MACROS).join(', ')})`);
  const parts = expanded.split(/\s+/).filter(Boolean);
  if (parts.length !== 5) throw new CronParseError(`cron schedule "${expression}": expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  const [minutes, hours, dom, months, dow] = parts.map((p, i) => parseField(p, FIELDS[i]!, expression)) as [ReturnType<typeof parseField>, ReturnType<typeof parseField>, ReturnType<typeof parseField>, ReturnType<typeof parseField>, ReturnType<typeof parseField>];
  return {
    expression,
    minutes: minutes.values,
    hours: hours.values,
    daysOfMonth: dom.values,
    months: months.values,
    daysOfWeek: dow.values,
    dayOfMonthStar: dom.star,
    dayOfWeekStar: dow.star,
  };
};

/** Whether the UTC minute of `at` is a firing time (seconds ignored). */
export const cronMatches = (schedule: CronSchedule, at: Date): boolean => {
  if (!schedule.minutes.has(at.getUTCMinutes()) || !schedule.hours.has(at.getUTCHours()) || !schedule.months.has(at.getUTCMonth() + 1)) return false;
  const dom = schedule.daysOfMonth.has(at.getUTCDate());
  const dow = schedule.daysOfWeek.has(at.getUTCDay());
  return schedule.dayOfMonthStar || schedule.dayOfWeekStar ? dom && dow : dom || dow;
};

const MINUTE = 60_000;
/** How far back `latestFiring` looks: a year of minutes (a Regent down longer than that fires once, not never). */
export const LOOKBACK_MINUTES = 366 * 24 * 60;

/**
 * The most recent firing time `t` with `after < t <= at` (whole UTC minutes), or undefined. This is what
 * the Kubernetes CronJob controller starts after missed schedules: the latest one only, never a backlog.
 */
export const latestFiring = (schedule: CronSchedule, at: Date, after: Date): Date | undefined => {
  const floor = Math.floor(at.getTime() / MINUTE) * MINUTE;
  const limit = Math.max(after.getTime(), floor - LOOKBACK_MINUTES * MINUTE);
  for (let t = floor; t > limit; t -= MINUTE) {
    const candidate = new Date(t);
    if (cronMatches(schedule, candidate)) return candidate;
  }
  return undefined;
};

/** The next firing time strictly after `after`, within `horizonMinutes` (default four years: Feb 29). */
export const nextFiring = (schedule: CronSchedule, after: Date, horizonMinutes = 4 * 366 * 24 * 60): Date | undefined => {
  const start = Math.floor(after.getTime() / MINUTE) * MINUTE + MINUTE;
  for (let i = 0; i < horizonMinutes; i += 1) {
    const candidate = new Date(start + i * MINUTE);
    if (cronMatches(schedule, candidate)) return candidate;
  }
  return undefined;
};
