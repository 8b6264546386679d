/**
 * The pure parts of the region benchmark (bench/region/, issue 31): its command line, its percentiles, its table, and
 * how projection lag pairs each stored event with the status patch that rendered it. The benchmark itself runs as
 * `npm run bench:region -- --quick` (CI), never under `npm test`.
 */
import { expect } from 'chai';
import { parseOptions, QUICK } from '../../bench/region/options.js';
import { percentile, spreadOf } from '../../bench/region/measure.js';
import { renderTable } from '../../bench/region/table.js';
import { projectionLag, type LagRecorder } from '../../bench/region/projection-lag.js';
import type { RecordedEvent } from '../../src/events/envelope.js';

const event = (id: string, stream: string, name: string, recordedAt: string): RecordedEvent =>
  ({ id, stream, revision: 0, position: 1, type: 't', data: {}, metadata: { recordedAt, subject: { kind: 'Server', namespace: 'default', name } } }) as unknown as RecordedEvent;

describe('bench:region (issue 31): its pure parts', () => {
  it('--quick is the CI size; each size can be set; a volume needs a server; unknown arguments are refused', () => {
    expect(parseOptions(['--quick'])).to.include({ quick: true, servers: QUICK.servers, volumes: 20, loadBalancers: 5, rebuild: 100 });
    expect(parseOptions([])).to.include({ quick: false, servers: 10_000, projects: 50, pollServers: 100_000, rebuild: 1_000, volumes: 1_000, loadBalancers: 200 });
    const o = parseOptions(['--quick', '--servers', '300', '--json', 'out.json', '--skip', 'poll,lb']);
    expect(o).to.include({ servers: 300, json: 'out.json' });
    expect([...o.skip]).to.deep.equal(['poll', 'lb']);
    expect(() => parseOptions(['--volumes', '2000'])).to.throw('--volumes cannot exceed --rebuild');
    expect(() => parseOptions(['--servers', 'many'])).to.throw('whole number');
    expect(() => parseOptions(['--fast'])).to.throw('unknown argument --fast');
  });

  it('percentiles by nearest rank; min/median/max', () => {
    const values = [5, 1, 4, 2, 3];
    expect(percentile(values, 50)).to.equal(3);
    expect(percentile(values, 99)).to.equal(5);
    expect(Number.isNaN(percentile([], 50))).to.equal(true);
    expect(spreadOf(values)).to.deep.equal({ min: 1, median: 3, max: 5 });
  });

  it('the table aligns its columns under a header', () => {
    const text = renderTable([{ figure: 'monitor', value: '300 ms', baseline: 'raw 200 ms', ratio: '1.50×', goal: '≤ 2×' }]);
    const [header, rule, row] = text.split('\n');
    expect(header).to.match(/^figure\s+\| value\s+\| baseline \(same run\)/);
    expect(rule).to.match(/^-+-\|-/);
    expect(row?.indexOf('|')).to.equal(header?.indexOf('|'));
  });

  it('projection lag: an event counts with the first status patch of its resource after it, if that patch came before the resource\'s next event', () => {
    const t = (ms: number) => new Date(Date.UTC(2026, 11, 5, 4, 0, 0, ms)).toISOString();
    const at = (ms: number) => Date.UTC(2026, 11, 5, 4, 0, 0, ms);
    const events = [
      event('a', 'server-rebuild-1', 'web-1', t(0)),
      event('b', 'server-rebuild-1', 'web-1', t(100)), // rendered nothing new: the next patch comes after event c
      event('c', 'server-rebuild-1', 'web-1', t(200)),
      event('d', 'resource-uid-1', 'web-1', t(210)), // the recorder's own stream: not a machine event
      event('e', 'server-lifecycle-2', 'web-2', t(0)),
    ];
    const recorder: LagRecorder = {
      patches: new Map([['Server/default/web-1', [at(20), at(230)]], ['Server/default/web-2', [at(5)]]]),
      delivered: new Map([['a', at(1)], ['c', at(202)]]),
      stop: async () => undefined,
    };
    const lag = projectionLag(events, recorder);
    expect(lag.events).to.equal(3);
    expect(lag.p50Ms).to.equal(20);
    expect(lag.maxMs).to.equal(30);
    expect(lag.deliveryP99Ms).to.equal(2);
  });
});
