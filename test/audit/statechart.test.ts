/**
 * The statechart as data and as SVG: every transition, including targetless ones, `always` and inline
 * guards (which machine.toJSON() drops), with a stable id, its guard, outcome and effects; drawn
 * offline by Graphviz in WebAssembly.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assign, setup } from 'xstate';
import { statechartOf, statechartOfDefinition, edgeLabel, activeNodeIds } from '../../src/audit/graph/statechart.js';
import { toDot } from '../../src/audit/graph/dot.js';
import { renderSvg } from '../../src/audit/graph/render.js';
import { serverRebuildDefinition } from '../../machines/server-rebuild.js';
import { outcome } from '../../machines/definition.js';

const regent = (args: string[]) => {
  const result = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
  return { code: result.status, out: result.stdout, err: result.stderr };
};

const R11 = 'e--serverRebuild.Initiated--reconcile--7';
/** U2: the resubmission on evidence after an unknown outcome. */
const U2 = 'e--serverRebuild.Initiated--reconcile--8';

describe('audit: statechart drawing', function () {
  this.timeout(30_000);
  const chart = statechartOfDefinition(serverRebuildDefinition);

  it('lists every state node with nesting and the initial child', () => {
    expect(chart.nodes.map((n) => n.id)).to.deep.equal([
      'serverRebuild',
      'serverRebuild.noMarker',
      'serverRebuild.Initiated',
      'serverRebuild.Rebuilding',
      'serverRebuild.Succeeded',
      'serverRebuild.Failed',
      'serverRebuild.Failed.stamped',
      'serverRebuild.Failed.parked',
    ]);
    expect(chart.nodes.find((n) => n.id === 'serverRebuild.Failed')).to.include({ type: 'compound', initial: 'serverRebuild.Failed.stamped' });
  });

  it('R11, the destructive submit, is one edge with its guard, outcome and destructive effect; U2 its only other, the resubmission on evidence', () => {
    const edge = chart.edges.find((e) => e.id === R11);
    expect(edge).to.deep.include({ source: 'serverRebuild.Initiated', targets: ['serverRebuild.Initiated'], event: 'reconcile', index: 7, guard: 'quiescentOffTargetNothingOutstanding', outcome: 'submitted', reenter: true });
    expect(edge?.effects).to.deep.equal(['nova.rebuild']);
    expect(edge?.destructive).to.deep.equal(['nova.rebuild']);
    expect(edgeLabel(edge as never)).to.equal('reconcile [quiescentOffTargetNothingOutstanding] / submitted ⚠ nova.rebuild');
    expect(chart.edges.filter((e) => e.destructive.length > 0).map((e) => e.id)).to.deep.equal([R11, U2]);
    expect(chart.edges.find((e) => e.id === U2)).to.deep.include({ guard: 'noRebuildSinceDecision', outcome: 'resubmittedOnEvidence' });
  });

  it('keeps targetless transitions (the root-level observation) and transitions declared on a compound state', () => {
    expect(chart.edges.find((e) => e.source === 'serverRebuild' && e.event === 'observed')).to.deep.include({ targets: [], guard: null, outcome: null });
    expect(chart.edges.find((e) => e.source === 'serverRebuild.Failed' && e.event === 'rebuild.accepted')?.guard).to.equal('resultForTarget');
    expect(chart.edges).to.have.length(57);
  });

  it('includes always transitions and names inline guards, which toJSON() leaves out', () => {
    const isEven = ({ context }: { context: { n: number } }) => context.n % 2 === 0;
    const machine = setup({ types: {} as { context: { n: number }; events: { type: 'go' } }, guards: { ready: () => true }, actions: { outcome: () => {} } }).createMachine({
      id: 'tiny',
      initial: 'a',
      context: { n: 0 },
      states: {
        a: { always: [{ guard: 'ready', target: 'b', actions: outcome('jumped') as never }] },
        b: { on: { go: { guard: isEven, target: 'a', actions: assign({ n: 1 }) } } },
      },
    });
    const tiny = statechartOf(machine, { id: 'tiny', version: 1 });
    expect(tiny.edges.map((e) => [e.id, e.guard, e.outcome])).to.deep.equal([
      ['e--tiny.a--always--0', 'ready', 'jumped'],
      ['e--tiny.b--go--0', 'isEven', null],
    ]);
  });

  it('maps a state value to its nodes, ancestors included', () => {
    expect(activeNodeIds(chart, { Failed: 'parked' })).to.deep.equal(['serverRebuild', 'serverRebuild.Failed', 'serverRebuild.Failed.parked']);
    expect(activeNodeIds(chart, 'Initiated')).to.deep.equal(['serverRebuild', 'serverRebuild.Initiated']);
  });

  it('renders SVG offline with an element per state and per transition id, and no external reference', async () => {
    const svg = await renderSvg(toDot(chart));
    expect(svg).to.include('<svg');
    for (const node of chart.nodes) expect(svg, node.id).to.include(`id="n&#45;&#45;${node.id}"`);
    for (const edge of chart.edges) expect(svg.includes(`id="${edge.id.replace(/-/g, '&#45;')}"`) || svg.includes(`id="a_${edge.id.replace(/-/g, '&#45;')}"`), edge.id).to.equal(true);
    const external = svg.match(/(?:href|src)="(?:https?:)?\/\/[^"]*"/g) ?? [];
    expect(external).to.deep.equal([]);
  });

  it('regent viz writes the SVG, the DOT or the statechart as JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-viz-'));
    try {
      const out = join(dir, 'rebuild.svg');
      const svg = regent(['viz', 'serverRebuild', '--out', out]);
      expect(svg.code, svg.err).to.equal(0);
      expect(svg.out).to.include('serverRebuild v2: 8 states, 57 transitions');
      expect(readFileSync(out, 'utf8')).to.match(/^<\?xml[\s\S]*<svg[\s\S]*quiescentOffTargetNothingOutstanding/);
      const json = regent(['viz', 'serverRebuild', '--format', 'json']);
      expect((JSON.parse(json.out) as { edges: unknown[] }).edges).to.have.length(57);
      expect(regent(['viz', 'serverRebuild', '--format', 'dot']).out).to.match(/^digraph "serverRebuild"/);
      const unknown = regent(['viz', 'nope']);
      expect(unknown.code).to.not.equal(0);
      expect(unknown.err).to.match(/^regent: no machine nope/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
