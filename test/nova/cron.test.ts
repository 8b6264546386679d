/** The local runner's cron parser (src/nova/jobs/cron.ts): the robfig/cron standard dialect Kubernetes validates with. */
import { expect } from 'chai';
import { CronParseError, cronMatches, latestFiring, nextFiring, parseCron } from '../../src/nova/jobs/cron.js';

const at = (iso: string): Date => new Date(iso);
const sorted = (s: ReadonlySet<number>): number[] => [...s].sort((a, b) => a - b);

describe('nova jobs: cron schedules', () => {
  describe('parsing', () => {
    const cases: Array<[string, string, { minutes?: number[]; hours?: number[]; daysOfMonth?: number[]; months?: number[]; daysOfWeek?: number[] }]> = [
      ['a number is that value', '5 2 * * *', { minutes: [5], hours: [2] }],
      ['* is every value of the field', '* * * * *', { hours: Array.from({ length: 24 }, (_, i) => i) }],
      ['a list is each of its items', '0,15,45 * * * *', { minutes: [0, 15, 45] }],
      ['a range includes both ends', '* 9-12 * * *', { hours: [9, 10, 11, 12] }],
      ['a step over * starts at the minimum', '*/20 * * * *', { minutes: [0, 20, 40] }],
      ['a step over a range starts at its start', '5-30/10 * * * *', { minutes: [5, 15, 25] }],
      ['N/step means N through the maximum', '50/3 * * * *', { minutes: [50, 53, 56, 59] }],
      ['lists mix ranges, steps and numbers', '1,10-12,*/30 * * * *', { minutes: [0, 1, 10, 11, 12, 30] }],
      ['day of month starts at 1', '0 0 */10 * *', { daysOfMonth: [1, 11, 21, 31] }],
      ['month and weekday names, any case', '0 0 * Jan,MAR-apr mon-WED', { months: [1, 3, 4], daysOfWeek: [1, 2, 3] }],
      ['? is * (robfig)', '0 0 ? * ?', { daysOfWeek: [0, 1, 2, 3, 4, 5, 6] }],
      ['@daily is midnight', '@daily', { minutes: [0], hours: [0] }],
      ['@hourly is minute 0 of every hour', '@hourly', { minutes: [0] }],
      ['@weekly is Sunday midnight', '@weekly', { daysOfWeek: [0] }],
      ['@yearly is January 1st', '@yearly', { daysOfMonth: [1], months: [1] }],
      ['fields may be separated by several spaces or tabs', ' 0\t2  *  * * ', { minutes: [0], hours: [2] }],
    ];
    for (const [rule, expression, expected] of cases) {
      it(`${rule}: "${expression}"`, () => {
        const s = parseCron(expression);
        for (const [field, values] of Object.entries(expected)) expect(sorted(s[field as 'minutes']), field).to.deep.equal(values);
      });
    }

    const invalid: Array<[string, string, RegExp]> = [
      ['four fields are refused', '0 2 * *', /expected 5 fields/],
      ['six fields (seconds) are refused', '0 0 2 * * *', /expected 5 fields/],
      ['a minute of 60 is out of range', '60 * * * *', /minute 60 is outside 0-59/],
      ['an hour of 24 is out of range', '0 24 * * *', /hour 24 is outside 0-23/],
      ['day of month 0 is out of range', '0 0 0 * *', /day of month 0 is outside 1-31/],
      ['month 13 is out of range', '0 0 1 13 *', /month 13 is outside 1-12/],
      ['weekday 7 is refused, as Kubernetes refuses it', '0 0 * * 7', /day of week 7 is outside 0-6/],
      ['a backwards range is refused', '30-10 * * * *', /runs backwards/],
      ['a zero step is refused', '*/0 * * * *', /must be a positive number/],
      ['a negative-looking item is refused', '-5 * * * *', /range/],
      ['an empty list item is refused', '1,,2 * * * *', /empty item/],
      ['a word that is no name is refused', '0 0 * * funday', /is not a number or a name/],
      ['names outside their field are refused', 'jan * * * *', /is not a number/],
      ['an unknown macro is refused', '@fortnightly', /unknown macro/],
      ['a time zone prefix is refused', 'CRON_TZ=Europe/Berlin 0 2 * * *', /time zone/],
      ['two steps are refused', '*/2/3 * * * *', /is not a minute item/],
    ];
    for (const [rule, expression, message] of invalid) {
      it(`${rule}: "${expression}"`, () => {
        expect(() => parseCron(expression)).to.throw(CronParseError, message);
      });
    }
  });

  describe('matching (UTC)', () => {
    it('matches on the minute, ignoring seconds', () => {
      const s = parseCron('30 2 * * *');
      expect(cronMatches(s, at('2025-03-04T02:30:59Z'))).to.equal(true);
      expect(cronMatches(s, at('2025-03-04T02:31:00Z'))).to.equal(false);
      expect(cronMatches(s, at('2025-03-04T03:30:00Z'))).to.equal(false);
    });

    it('both day fields restricted: a day matching either fires (OR)', () => {
      const s = parseCron('0 0 1 * 1'); // the 1st, and every Monday
      expect(cronMatches(s, at('2025-09-01T00:00:00Z'))).to.equal(true); // Monday the 1st
      expect(cronMatches(s, at('2025-10-01T00:00:00Z'))).to.equal(true); // Wednesday the 1st
      expect(cronMatches(s, at('2025-10-06T00:00:00Z'))).to.equal(true); // Monday the 6th
      expect(cronMatches(s, at('2025-10-07T00:00:00Z'))).to.equal(false); // Tuesday the 7th
    });

    it('one day field *: both must match (AND)', () => {
      const s = parseCron('0 0 * * 1');
      expect(cronMatches(s, at('2025-10-06T00:00:00Z'))).to.equal(true);
      expect(cronMatches(s, at('2025-10-01T00:00:00Z'))).to.equal(false);
    });

    it('a stepped * in day of month counts as restricted (robfig): OR with a restricted weekday', () => {
      const s = parseCron('0 0 */2 * 1'); // odd days, or Mondays
      expect(s.dayOfMonthStar).to.equal(false);
      expect(cronMatches(s, at('2025-10-06T00:00:00Z'))).to.equal(true); // Monday the 6th (even)
      expect(cronMatches(s, at('2025-10-07T00:00:00Z'))).to.equal(true); // Tuesday the 7th (odd)
      expect(cronMatches(s, at('2025-10-08T00:00:00Z'))).to.equal(false); // Wednesday the 8th
    });

    it('matches in UTC whatever the process time zone', () => {
      const s = parseCron('0 23 31 12 *');
      expect(cronMatches(s, at('2025-12-31T23:00:00Z'))).to.equal(true);
      expect(cronMatches(s, at('2025-12-31T23:00:00+01:00'))).to.equal(false);
    });
  });

  describe('firing times', () => {
    it('latestFiring is the most recent firing after `after` and at or before `at`', () => {
      const s = parseCron('*/15 * * * *');
      expect(latestFiring(s, at('2025-01-01T10:44:10Z'), at('2025-01-01T10:00:00Z'))?.toISOString()).to.equal('2025-01-01T10:30:00.000Z');
      expect(latestFiring(s, at('2025-01-01T10:45:00Z'), at('2025-01-01T10:00:00Z'))?.toISOString()).to.equal('2025-01-01T10:45:00.000Z');
    });

    it('latestFiring excludes `after` itself: a firing already made is not made again', () => {
      const s = parseCron('*/15 * * * *');
      expect(latestFiring(s, at('2025-01-01T10:44:00Z'), at('2025-01-01T10:30:00Z'))).to.equal(undefined);
    });

    it('after many missed firings, only the latest is returned (never a backlog)', () => {
      const s = parseCron('* * * * *');
      expect(latestFiring(s, at('2025-01-02T00:00:30Z'), at('2025-01-01T00:00:00Z'))?.toISOString()).to.equal('2025-01-02T00:00:00.000Z');
    });

    it('nextFiring is strictly after, and finds Feb 29', () => {
      expect(nextFiring(parseCron('0 2 * * *'), at('2025-01-01T02:00:00Z'))?.toISOString()).to.equal('2025-01-02T02:00:00.000Z');
      expect(nextFiring(parseCron('0 0 29 2 *'), at('2025-03-01T00:00:00Z'))?.toISOString()).to.equal('2028-02-29T00:00:00.000Z');
    });

    it('a date that never comes (Feb 30) has no firing', () => {
      expect(nextFiring(parseCron('0 0 30 2 *'), at('2025-01-01T00:00:00Z'))).to.equal(undefined);
    });
  });
});
