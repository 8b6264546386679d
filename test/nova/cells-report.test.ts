/**
 * The cells report (src/nova/cells-report.ts) — nova-operator.md, "The cells sequence": which pod's termination
 * message is the Job's report, and which of its lines are cells. (That the db-sync script writes exactly these
 * lines is tested against the script itself in scripts.test.ts.)
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { CELL_LINE, parseCellsReport, reportPod, type ReportPod } from '../../src/nova/cells-report.js';

const U0 = '00000000-0000-0000-0000-000000000000';
const U1 = '2b6e3f4c-8a1d-4c3e-9f0a-1b2c3d4e5f60';
const U2 = '9d8c7b6a-5f4e-4d3c-8b2a-190817263544';

describe('cells report', () => {
  describe('parseCellsReport', () => {
    it('R1 every <name>=<uuid> line is a cell, in the order written', () => {
      expect(parseCellsReport(`cell0=${U0}\ncell1=${U1}\n`)).to.deep.equal([{ name: 'cell0', uuid: U0 }, { name: 'cell1', uuid: U1 }]);
    });
    it('R2 stray nova-manage output on the same stream is dropped, not published as a cell', () => {
      const text = [
        'Modules with known eventlet monkey patching issues were imported prior to eventlet monkey patching: urllib3.',
        `cell0=${U0}`,
        '',
        'WARNING: something=else',
        `cell1=${U1}`,
        'done',
      ].join('\n');
      expect(parseCellsReport(text)).to.deep.equal([{ name: 'cell0', uuid: U0 }, { name: 'cell1', uuid: U1 }]);
    });
    const rejected: [string, string][] = [
      [` cell1=${U1}`, 'a leading space'],
      [`cell1=${U1} `, 'a trailing space'],
      [`cell1 = ${U1}`, 'spaces around ='],
      [`cell1=${U1.toUpperCase()}`, 'an upper-case UUID'],
      [`cell1=${U1.slice(0, 35)}`, 'a truncated UUID (a message cut at its size limit)'],
      [`cell1=${U1}0`, 'a UUID one character too long'],
      [`cell.1=${U1}`, 'a name with a dot'],
      [`=${U1}`, 'an empty name'],
      [`my cell=${U1}`, 'a name with a space'],
      [`cell1=${U1}=x`, 'a second ='],
    ];
    for (const [line, what] of rejected) {
      it(`R3 a line with ${what} is not a cell`, () => {
        expect(parseCellsReport(`cell0=${U0}\n${line}\n`)).to.deep.equal([{ name: 'cell0', uuid: U0 }]);
      });
    }
    it('R4 CRLF line ends are tolerated', () => {
      expect(parseCellsReport(`cell0=${U0}\r\ncell1=${U1}\r\n`)).to.deep.equal([{ name: 'cell0', uuid: U0 }, { name: 'cell1', uuid: U1 }]);
    });
    it('R5 a name given twice is one entry, at its first position, with the last UUID given', () => {
      expect(parseCellsReport(`cell1=${U1}\ncell0=${U0}\ncell1=${U2}\n`)).to.deep.equal([{ name: 'cell1', uuid: U2 }, { name: 'cell0', uuid: U0 }]);
    });
    it('R6 an empty or unreadable message is no cells', () => {
      expect(parseCellsReport('')).to.deep.equal([]);
      expect(parseCellsReport('Error: list_cells failed\n')).to.deep.equal([]);
    });
    it('R7 any set of well-formed lines interleaved with stray output reads back exactly', () => {
      const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/);
      const uuid = fc.uuid().map((u) => u.toLowerCase());
      const stray = fc.string({ maxLength: 40 }).filter((s) => !s.includes('\n') && !CELL_LINE.test(s) && !CELL_LINE.test(s.replace(/\r$/, '')));
      fc.assert(fc.property(fc.uniqueArray(fc.record({ name, uuid }), { selector: (c) => c.name, maxLength: 8 }), fc.array(stray, { maxLength: 8 }), (cells, noise) => {
        const lines: string[] = [];
        cells.forEach((c, i) => {
          if (noise[i] !== undefined) lines.push(noise[i]!);
          lines.push(`${c.name}=${c.uuid}`);
        });
        lines.push(...noise.slice(cells.length));
        expect(parseCellsReport(lines.join('\n'))).to.deep.equal(cells);
      }));
    });
  });

  describe('reportPod', () => {
    const JOB = 'job-uid-2';
    const pod = (uid: string, phase: ReportPod['phase'], creationTimestamp: string, labels: Record<string, string> = { 'batch.kubernetes.io/controller-uid': JOB }): ReportPod => ({
      uid, labels, phase, creationTimestamp, terminationMessage: `from ${uid}`,
    });

    it('P1 the pod that succeeded is read, even when a failed retry is newer', () => {
      const pods = [pod('a', 'Failed', '2026-01-01T10:00:00Z'), pod('b', 'Succeeded', '2026-01-01T10:01:00Z'), pod('c', 'Failed', '2026-01-01T10:02:00Z')];
      expect(reportPod(pods, JOB)?.uid).to.equal('b');
    });
    it('P2 without a succeeded pod the newest one is read', () => {
      const pods = [pod('a', 'Failed', '2026-01-01T10:00:00Z'), pod('c', 'Running', '2026-01-01T10:02:00Z'), pod('b', 'Failed', '2026-01-01T10:01:00Z')];
      expect(reportPod(pods, JOB)?.uid).to.equal('c');
    });
    it('P2 creation times are compared as times, not as strings (fractional seconds, offsets)', () => {
      const pods = [pod('a', 'Failed', '2026-01-01T10:00:00.900Z'), pod('b', 'Failed', '2026-01-01T11:00:00+02:00')];
      expect(reportPod(pods, JOB)?.uid).to.equal('a');
    });
    it('P3 only pods carrying the Job\'s UID count: a succeeded pod an earlier Job of the same name left behind is never read', () => {
      const pods = [pod('old', 'Succeeded', '2026-01-01T09:00:00Z', { 'batch.kubernetes.io/controller-uid': 'job-uid-1', 'job-name': 'nova-db-sync' }), pod('new', 'Failed', '2026-01-01T10:00:00Z')];
      expect(reportPod(pods, JOB)?.uid).to.equal('new');
    });
    it('P3 the legacy controller-uid label counts too', () => {
      expect(reportPod([pod('a', 'Succeeded', '2026-01-01T10:00:00Z', { 'controller-uid': JOB })], JOB)?.uid).to.equal('a');
    });
    it('P3 a job-name label alone does not count', () => {
      expect(reportPod([pod('a', 'Succeeded', '2026-01-01T10:00:00Z', { 'job-name': 'nova-db-sync' })], JOB)).to.equal(undefined);
    });
    it('P4 no pod of the Job is undefined', () => {
      expect(reportPod([], JOB)).to.equal(undefined);
      expect(reportPod([pod('x', 'Succeeded', '2026-01-01T10:00:00Z', { 'controller-uid': 'other' })], JOB)).to.equal(undefined);
    });
    it('P4 an empty Job UID matches no pod, not even one with an empty label', () => {
      expect(reportPod([pod('x', 'Succeeded', '2026-01-01T10:00:00Z', { 'controller-uid': '' })], '')).to.equal(undefined);
    });
    it('P5 an unparseable creation time never wins over a known one', () => {
      const pods = [pod('a', 'Failed', 'garbage'), pod('b', 'Failed', '2026-01-01T10:00:00Z')];
      expect(reportPod(pods, JOB)?.uid).to.equal('b');
      expect(reportPod([pods[1]!, pods[0]!], JOB)?.uid).to.equal('b');
    });
    it('P6 the choice is always a pod of the Job, and a succeeded one whenever the Job has one', () => {
      const phase = fc.constantFrom<ReportPod['phase']>('Pending', 'Running', 'Succeeded', 'Failed', 'Unknown');
      const arbPod = fc.record({
        uid: fc.uuid(),
        labels: fc.constantFrom<Record<string, string>>({ 'controller-uid': JOB }, { 'batch.kubernetes.io/controller-uid': JOB }, { 'controller-uid': 'other' }, {}),
        phase,
        creationTimestamp: fc.integer({ min: 1_700_000_000, max: 1_800_000_000 }).map((s) => new Date(s * 1000).toISOString()),
      });
      fc.assert(fc.property(fc.array(arbPod, { maxLength: 6 }), (pods) => {
        const own = pods.filter((p) => Object.values(p.labels).includes(JOB));
        const chosen = reportPod(pods, JOB);
        if (own.length === 0) {
          expect(chosen).to.equal(undefined);
          return;
        }
        expect(own).to.include(chosen);
        const succeeded = own.filter((p) => p.phase === 'Succeeded');
        const pool = succeeded.length > 0 ? succeeded : own;
        expect(chosen!.phase === 'Succeeded').to.equal(succeeded.length > 0);
        for (const p of pool) expect(Date.parse(chosen!.creationTimestamp)).to.be.at.least(Date.parse(p.creationTimestamp));
      }));
    });
  });
});
