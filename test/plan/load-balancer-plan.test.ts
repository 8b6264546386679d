/**
 * `regent plan` of a LoadBalancer (issue 32), over the simulator's Octavia and Neutron: a new one plans the create of
 * the load balancer alone (LB3) with the request Octavia would get; an unchanged one has nothing to decide; a listener
 * added plans its create (LB4); a listener removed plans the write-ahead prune — the arm (LB8), then on the pass that
 * reads it back the delete, DESTRUCTIVE; a floating IP no longer wanted is LB9's arm and release; a member removed is
 * LB6's batch update; a deletion (`--delete`) is LB14's arm, then the floating IP's release, or the cascade delete; a
 * change `apply` refuses (an immutable listener port) is shown with apply's own message; a load balancer Octavia shows
 * PENDING_* plans only the yield (LB1) and says what it waits for. Every plan is read-only: the simulator sees only
 * GETs (and Keystone token issue), the event store's head and streams and the stored resources are as they were.
 *
 * And the rule table's labels are the machine source's (machines/load-balancer.ts, machines/load-balancer/transitions.ts):
 * each row's label is one the source gives a transition with that outcome, and each decision the coverage calls
 * unlabelled has no label there.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { applyManifestFiles, applyManifests } from '../../src/kube/cli/manifests.js';
import { KIND_NAMES } from '../../src/resources/index.js';
import { exitCodeOf, type Plan, type PlannedDecision, type ResourcePlan } from '../../src/plan/report.js';
import { planText } from '../../src/plan/text.js';
import { RULE_TABLES } from '../../src/plan/rules.js';
import { isDestructive } from '../../src/plan/destructive.js';
import { COVERED_UNLABELLED } from '../../src/plan/coverage/index.js';
import { LB_EFFECTS, loadBalancerDefinition } from '../../machines/load-balancer.js';
import { WRITE_AHEAD_OUTCOMES } from '../../machines/write-ahead-delete.js';
import { loadBalancerManifest, startLoadBalancerRig, tcpListener, type LoadBalancerRig, type LoadBalancerSpecInput } from './support/load-balancer-rig.js';

// ─── the source's labels ────────────────────────────────────────────────────────────────────────────

const MACHINE_FILE = 'machines/load-balancer.ts';
const LISTS_FILE = 'machines/load-balancer/transitions.ts';

/** `LB8/LB9` → LB8, LB9; `LB3–LB9` → LB3 … LB9. */
const labelsIn = (text: string): string[] => {
  const labels: string[] = [];
  for (const m of text.matchAll(/LB(\d+)(?:\s*[–-]\s*LB(\d+))?/g)) {
    const first = Number(m[1]);
    const last = m[2] === undefined ? first : Number(m[2]);
    for (let n = first; n <= last; n++) labels.push(`LB${n}`);
  }
  return labels;
};
const commentOf = (line: string): string => (line.includes('//') ? line.slice(line.indexOf('//')) : '');
const isComment = (line: string): boolean => line.trim().startsWith('//');

/** The write-ahead builders (machines/write-ahead-delete.ts) and the outcome each records unless named. */
const BUILDERS: Record<string, string> = {
  arm: WRITE_AHEAD_OUTCOMES.armed,
  submit: WRITE_AHEAD_OUTCOMES.submitted,
  resend: WRITE_AHEAD_OUTCOMES.resubmitted,
  inProgress: WRITE_AHEAD_OUTCOMES.inProgress,
  confirm: WRITE_AHEAD_OUTCOMES.deleted,
  withdraw: WRITE_AHEAD_OUTCOMES.withdrawn,
};

/** A transition as written: the outcome it records and how it is written (a builder, or `plain` with outcome('…')). */
const transitionIn = (line: string): { outcome: string; shape: string } | undefined => {
  const builder = /\b(arm|submit|resend|inProgress|confirm|withdraw)\(\{/.exec(line);
  if (builder) return { outcome: /\},\s*'(\w+)'\)/.exec(line)?.[1] ?? (BUILDERS[builder[1] as string] as string), shape: builder[1] as string };
  const explicit = /outcome\('(\w+)'\)/.exec(line);
  return explicit ? { outcome: explicit[1] as string, shape: 'plain' } : undefined;
};

interface Site {
  where: string;
  outcome: string;
  /** Its own trailing comment's labels. */
  own: string[];
  /** The labels of the comment heading its run of transitions of one shape. */
  group: string[];
  /** The labels of the comment of the state (or exported list) that holds it. */
  holder: string[];
}

const commentBlockAbove = (lines: readonly string[], index: number): string => {
  const block: string[] = [];
  for (let j = index - 1; j >= 0 && (isComment(lines[j] as string) || /^\s*(\/\*\*|\*)/.test(lines[j] as string)); j--) block.unshift(lines[j] as string);
  return block.join('\n');
};

const indentOf = (line: string): number => line.length - line.trimStart().length;

/** The state names of the machine (nested ones included): what a holder of transitions in the machine file is. */
const stateNames = (): Set<string> => {
  const names = new Set<string>();
  const walk = (node: { states?: Record<string, unknown> }) => {
    for (const [name, child] of Object.entries(node.states ?? {})) {
      names.add(name);
      walk(child as { states?: Record<string, unknown> });
    }
  };
  walk(loadBalancerDefinition.machine.root as unknown as { states?: Record<string, unknown> });
  return names;
};

/** The comment of what holds line `index`: its innermost state (machine file) or its exported list (lists file). */
const holderComment = (file: string, lines: readonly string[], index: number, states: Set<string>): string => {
  if (file === LISTS_FILE) {
    for (let j = index; j >= 0; j--) if (/^export const \w+/.test(lines[j] as string)) return commentBlockAbove(lines, j);
    return '';
  }
  let indent = indentOf(lines[index] as string);
  for (let j = index - 1; j >= 0; j--) {
    const line = lines[j] as string;
    if (line.trim() === '' || indentOf(line) >= indent) continue;
    indent = indentOf(line);
    const key = /^\s*(\w+): \{\s*$/.exec(line)?.[1];
    if (key && states.has(key)) return commentBlockAbove(lines, j);
  }
  return '';
};

/** Every transition of the machine and its shared lists, with the labels the source gives it. */
const sourceSites = (): Site[] => {
  const states = stateNames();
  const sites: Site[] = [];
  for (const file of [MACHINE_FILE, LISTS_FILE]) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (isComment(line) || /^\s*\*/.test(line)) return;
      const transition = transitionIn(line);
      if (!transition) return;
      const own = labelsIn(commentOf(line));
      let group: string[] = [];
      if (own.length === 0) {
        let j = index - 1;
        while (j >= 0 && transitionIn(lines[j] as string)?.shape === transition.shape && labelsIn(commentOf(lines[j] as string)).length === 0) j--;
        if (j >= 0 && isComment(lines[j] as string)) group = labelsIn(commentBlockAbove(lines, j + 1));
      }
      const holder = [...new Set(labelsIn(holderComment(file, lines, index, states)))];
      sites.push({ where: `${file}:${index + 1}`, outcome: transition.outcome, own, group, holder });
    });
  }
  return sites;
};

/** The header's rules (`- LBn …`) and the outcomes each names in backquotes. */
const headerNames = (): Map<string, string[]> => {
  const header = readFileSync(MACHINE_FILE, 'utf8').split(' * Rules (labels used in the tests):')[1]?.split(' * Stimuli')[0] ?? '';
  const named = new Map<string, string[]>();
  for (const rule of header.split(/\n \* - (?=LB\d+ )/).slice(1)) {
    const id = /^LB\d+/.exec(rule)?.[0] as string;
    for (const m of rule.matchAll(/`(\w+)`/g)) named.set(m[1] as string, [...(named.get(m[1] as string) ?? []), id]);
  }
  return named;
};

/**
 * The labels the source gives transitions with this outcome: each one's own comment, else its run's heading comment,
 * else its holder's comment when that names exactly one rule; and the header rule that names the outcome.
 */
const sourceLabels = (sites: readonly Site[], header: Map<string, string[]>, outcome: string): string[] => {
  const labels = new Set(header.get(outcome) ?? []);
  for (const site of sites.filter((s) => s.outcome === outcome)) {
    const direct = [...site.own, ...site.group];
    for (const label of direct.length > 0 ? direct : site.holder.length === 1 ? site.holder : []) labels.add(label);
  }
  return [...labels];
};

describe('plan: the loadBalancer rule table is true to the machine source', () => {
  const sites = sourceSites();
  const header = headerNames();
  const rows = RULE_TABLES.loadBalancer ?? [];

  it('the source reader finds the transitions and their labels (an own comment, a run heading, a holder, the header)', () => {
    const labelsAt = (outcome: string) => sites.filter((s) => s.outcome === outcome).map(({ own, group, holder }) => ({ own, group, holder }));
    const LIVE = ['LB1', 'LB2', 'LB3', 'LB4', 'LB5', 'LB6', 'LB7', 'LB8', 'LB9', 'LB10', 'LB11', 'LB12', 'LB13'];
    expect(labelsAt('listenerCreateSubmitted')).to.deep.equal([{ own: ['LB4'], group: [], holder: LIVE }]);
    expect(labelsAt('poolPruneSubmitted')).to.deep.equal([{ own: [], group: ['LB8', 'LB9'], holder: LIVE }]);
    expect(labelsAt('failedStands')).to.deep.equal([{ own: [], group: [], holder: ['LB12'] }]);
    expect(labelsAt('converged')).to.deep.equal([{ own: [], group: [], holder: LIVE }]);
    expect(sites.filter((s) => s.outcome === 'deleteSubmitted').map((s) => s.holder)).to.deep.equal([['LB14'], ['LB14']]);
    expect(header.get('specRejected')).to.deep.equal(['LB13']);
  });

  it("each row's label is one the source gives a transition with that outcome", () => {
    const wrong = rows.map((row) => ({ row, labels: sourceLabels(sites, header, row.outcome) })).filter(({ row, labels }) => !labels.includes(row.rule.id));
    expect(wrong.map(({ row, labels }) => `${row.outcome}${row.from ? ` from ${row.from.join('|')}` : ''}: table ${row.rule.id}, source ${labels.join('/') || 'none'}`)).to.deep.equal([]);
  });

  it('each decision the coverage calls unlabelled has no label of its own in the source (nor any, where no row labels it elsewhere)', () => {
    const wrong: string[] = [];
    for (const type of Object.keys(COVERED_UNLABELLED.loadBalancer ?? {})) {
      const outcome = type.slice('loadBalancer.'.length);
      const own = sites.filter((s) => s.outcome === outcome).flatMap((s) => [...s.own, ...s.group]);
      if (own.length > 0) wrong.push(`${outcome}: the source labels it ${own.join('/')}`);
      if (sites.every((s) => s.outcome !== outcome)) wrong.push(`${outcome}: no transition records it`);
      if (!rows.some((r) => r.outcome === outcome) && sourceLabels(sites, header, outcome).length > 0) wrong.push(`${outcome}: no row, but the source gives ${sourceLabels(sites, header, outcome).join('/')}`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it("every delete the topology decides is destructive (the machine's destructiveEffects); no create or update is", () => {
    const flagged = Object.values(LB_EFFECTS).filter((type) => isDestructive(type, loadBalancerDefinition));
    expect(flagged.sort()).to.deep.equal(['neutron.deleteFloatingIP', 'octavia.deleteHealthMonitor', 'octavia.deleteListener', 'octavia.deleteLoadBalancer', 'octavia.deletePool']);
  });
});

// ─── plans over the simulator ───────────────────────────────────────────────────────────────────────

const monitor = { delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 };
const WEB: LoadBalancerSpecInput = { listeners: [tcpListener('https', 443, { monitor }), tcpListener('api', 8443)] };
const summary = (d: PlannedDecision) => `${d.pass} ${d.event.slice('loadBalancer.'.length)} (${d.from} → ${d.to}) ${d.rule?.id ?? '—'}${d.destructive ? ' DESTRUCTIVE' : ''}`;
const lbDecisions = (r: ResourcePlan | undefined) => (r?.decisions ?? []).filter((d) => d.machine === 'loadBalancer');

describe('plan: a LoadBalancer', function () {
  this.timeout(120_000);
  let rig: LoadBalancerRig;
  before(async () => {
    rig = await startLoadBalancerRig();
  });
  after(async () => rig?.close());

  /** A plan, proven read-only: only GETs (and Keystone token issue) reach the simulator; stores and resources as they were. */
  const readOnlyPlan = async (text: string, extra: Parameters<LoadBalancerRig['plan']>[1] = {}, observes = true): Promise<Plan> => {
    const snapshot = async () => ({
      last: await rig.store.lastPosition(),
      heads: await rig.store.listStreams(),
      resources: await Promise.all(KIND_NAMES.map(async (kind) => JSON.stringify((await rig.source.list(kind)).items))),
      events: await rig.source.listEvents(),
    });
    const before = await snapshot();
    const firstCall = rig.sim.calls().length;
    const plan = await rig.plan(text, extra);
    const calls = rig.sim.calls().slice(firstCall);
    expect(calls.filter((c) => c.method !== 'GET').filter((c) => !(c.method === 'POST' && c.path.endsWith('/auth/tokens'))).map((c) => `${c.method} ${c.path}`), 'a mutation reached the cloud').to.deep.equal([]);
    if (observes) expect(calls.filter((c) => c.method === 'GET').length, 'the plan observed the cloud').to.be.greaterThan(0);
    expect(await snapshot(), 'a store changed').to.deep.equal(before);
    return plan;
  };
  const lbIdOf = async (name: string) => (await rig.machine(name))?.context.loadBalancerId as string;

  it('a new LoadBalancer: the load balancer alone (LB3) with the request Octavia would get; then it waits for PENDING_CREATE to clear', async () => {
    const plan = await readOnlyPlan(loadBalancerManifest('new-lb', { ...WEB, vipAddress: '10.0.0.100' }));
    const [lb] = plan.resources;
    expect(lb).to.include({ kind: 'LoadBalancer', verdict: 'planned', apply: 'created', destructive: false });
    expect(lbDecisions(lb).map(summary)).to.deep.equal(['1 loadBalancerCreateSubmitted (∅ → provisioning) LB3']);
    const [create] = lbDecisions(lb);
    const name = create?.effects[0]?.params.name as string;
    expect(name).to.match(/^lb-[0-9a-f-]{36}$/);
    const [call] = create?.effects[0]?.calls ?? [];
    expect(call).to.deep.include({ service: 'load-balancer', method: 'POST', path: '/lbaas/loadbalancers' });
    // the load balancer alone (Zed: nothing nested), its VIP on net-a's subnet at the spec's address
    const body = (call?.body as { loadbalancer: Record<string, unknown> }).loadbalancer;
    expect(Object.keys(body).sort()).to.deep.equal(['name', 'vip_address', 'vip_subnet_id']);
    expect(body).to.deep.include({ name, vip_address: '10.0.0.100' });
    const subnets = await rig.os.neutron.listSubnets({});
    expect(subnets.map((s) => s.id)).to.include(body.vip_subnet_id);
    expect(lb?.stops).to.equal('after Octavia accepts the create: waits for provisioning_status to leave PENDING_CREATE; then one listener, pool, member set or monitor per pass');
    expect(lb?.writes.map((w) => `${w.op} ${w.detail ?? ''}`)).to.include('addFinalizer regent.dev/load-balancer');
    expect(exitCodeOf(plan)).to.equal(0);
    expect(await rig.os.octavia.listLoadBalancers({ name })).to.deep.equal([]);
  });

  it('an unchanged LoadBalancer: nothing to decide, exit 0', async () => {
    await rig.bringUp('same-lb', WEB);
    const plan = await readOnlyPlan(loadBalancerManifest('same-lb', WEB));
    expect(plan.resources[0]).to.deep.include({ apply: 'unchanged', decisions: [], destructive: false, stops: 'nothing to decide (next pass in 60 s: provisioned)' });
    expect(exitCodeOf(plan)).to.equal(0);
  });

  it('a listener added: its create alone (LB4), the request Octavia would get; not destructive', async () => {
    await rig.bringUp('grow-lb', WEB);
    const lbId = await lbIdOf('grow-lb');
    const plan = await readOnlyPlan(loadBalancerManifest('grow-lb', { listeners: [...WEB.listeners, tcpListener('admin', 9443, { allowedCIDRs: ['10.1.0.0/16'] })] }));
    const [lb] = plan.resources;
    expect(lbDecisions(lb).map(summary)).to.deep.equal(['1 listenerCreateSubmitted (provisioned → provisioning) LB4']);
    const effect = lbDecisions(lb)[0]?.effects[0];
    expect(effect?.type).to.equal('octavia.createListener');
    expect(effect?.calls).to.have.length(1);
    expect(effect?.calls[0]).to.deep.include({ method: 'POST', path: '/lbaas/listeners' });
    expect((effect?.calls[0]?.body as { listener: Record<string, unknown> }).listener).to.deep.include({ loadbalancer_id: lbId, protocol: 'TCP', protocol_port: 9443, allowed_cidrs: ['10.1.0.0/16'] });
    expect(lb?.stops).to.equal('after Octavia accepts the listener create: waits for provisioning_status to leave PENDING_UPDATE; the next pass creates its pool');
    expect(exitCodeOf(plan)).to.equal(0);
  });

  it('a listener removed: the arm (LB8, nothing deleted), then on the read-back pass its delete, DESTRUCTIVE; exit 2', async () => {
    await rig.bringUp('shrink-lb', WEB);
    const lbId = await lbIdOf('shrink-lb');
    const api = (await rig.os.octavia.listListeners({ name: `${String((await rig.machine('shrink-lb'))?.context.name)}-api-listener` }))[0];
    expect(api?.id).to.be.a('string');
    const plan = await readOnlyPlan(loadBalancerManifest('shrink-lb', { listeners: [WEB.listeners[0] as (typeof WEB.listeners)[number]] }));
    const [lb] = plan.resources;
    expect(lbDecisions(lb).map(summary)).to.deep.equal(['1 pruneArmed (provisioned → pruning) LB8', '2 listenerPruneSubmitted (pruning → pruning) LB8 DESTRUCTIVE']);
    const del = lbDecisions(lb)[1]?.effects[0];
    expect(del).to.deep.include({ type: 'octavia.deleteListener', destructive: true });
    expect(del?.params).to.deep.include({ listenerId: api?.id, name: api?.name });
    expect(del?.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`DELETE /lbaas/listeners/${String(api?.id)}`]);
    expect(lb?.destructive).to.equal(true);
    expect(exitCodeOf(plan)).to.equal(2);
    expect(planText(plan)).to.match(/listenerPruneSubmitted \(pruning → pruning\)\s+LB8\s+octavia\.deleteListener: DELETE \/lbaas\/listeners\/\S+\s+DESTRUCTIVE/);
    expect((await rig.os.octavia.listListeners({ loadbalancer_id: lbId })).map((l) => l.id)).to.include(api?.id);
  });

  it('a member removed: the whole member set in one batch update (LB6); not flagged destructive (a set, not a delete)', async () => {
    await rig.bringUp('members-lb', WEB);
    const https = WEB.listeners[0] as (typeof WEB.listeners)[number];
    const plan = await readOnlyPlan(loadBalancerManifest('members-lb', { listeners: [{ ...https, members: https.members.slice(0, 1) }, ...WEB.listeners.slice(1)] }));
    const [lb] = plan.resources;
    expect(lbDecisions(lb).map(summary)).to.deep.equal(['1 membersUpdateSubmitted (provisioned → provisioning) LB6']);
    const set = lbDecisions(lb)[0]?.effects[0];
    expect(set?.type).to.equal('octavia.setPoolMembers');
    expect(set?.calls[0]?.method).to.equal('PUT');
    expect(set?.calls[0]?.body).to.deep.equal({ members: [{ address: '10.0.0.11', protocol_port: 8443 }] });
    expect(exitCodeOf(plan)).to.equal(0);
  });

  it('a floating IP no longer wanted: the arm (LB9), then its release, DESTRUCTIVE', async () => {
    await rig.bringUp('public-lb', { ...WEB, floatingIP: true });
    const fip = (await rig.machine('public-lb'))?.context.observed?.floatingIP;
    expect(fip?.address).to.match(/^172\.24\.4\./);
    const plan = await readOnlyPlan(loadBalancerManifest('public-lb', WEB));
    const [lb] = plan.resources;
    expect(lbDecisions(lb).map(summary)).to.deep.equal(['1 pruneArmed (provisioned → pruning) LB9', '2 floatingIPReleaseSubmitted (pruning → pruning) LB9 DESTRUCTIVE']);
    expect(lbDecisions(lb)[1]?.effects[0]?.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`DELETE /floatingips/${String(fip?.id)}`]);
    expect(exitCodeOf(plan)).to.equal(2);
  });

  it('a deletion (--delete): the arm (LB14), then the floating IP released first; without one, the cascade delete — each DESTRUCTIVE', async () => {
    const withFip = await readOnlyPlan(loadBalancerManifest('public-lb', { ...WEB, floatingIP: true }), { deleting: true });
    expect(withFip.resources[0]?.apply).to.equal('deleted');
    expect(lbDecisions(withFip.resources[0]).map(summary)).to.deep.equal([
      '1 deleteArmed (provisioned → deleting.armed) LB14',
      '2 floatingIPReleaseSubmitted (deleting.armed → deleting.releasingFloatingIP) LB14 DESTRUCTIVE',
    ]);
    expect(withFip.resources[0]?.stops).to.equal('after Neutron releases the floating IP: waits for it to be gone (in a deletion, the cascade delete follows)');

    const lbId = await lbIdOf('same-lb');
    const plan = await readOnlyPlan(loadBalancerManifest('same-lb', WEB), { deleting: true });
    const [lb] = plan.resources;
    expect(lbDecisions(lb).map(summary)).to.deep.equal(['1 deleteArmed (provisioned → deleting.armed) LB14', '2 deleteSubmitted (deleting.armed → deleting.submitted) LB14 DESTRUCTIVE']);
    const cascade = lbDecisions(lb)[1]?.effects[0];
    expect(cascade).to.deep.include({ type: 'octavia.deleteLoadBalancer', destructive: true });
    expect(cascade?.params).to.deep.include({ loadBalancerId: lbId, cascade: true });
    // the request line carries its query: the cascade is the request's, not only the params'
    expect(cascade?.calls.map((c) => `${c.method} ${c.path}${c.query ?? ''}`)).to.deep.equal([`DELETE /lbaas/loadbalancers/${lbId}?cascade=true`]);
    expect(lb?.stops).to.equal('after Octavia accepts the cascade delete: waits for the load balancer to be gone (PENDING_DELETE to clear)');
    expect(exitCodeOf(plan)).to.equal(2);
    expect((await rig.os.octavia.getLoadBalancer(lbId)).provisioningStatus).to.deep.include({ value: 'ACTIVE' });
  });

  it("a change apply refuses (a listener's port is immutable) is shown with apply's own message; exit 1", async () => {
    const https = WEB.listeners[0] as (typeof WEB.listeners)[number];
    const text = loadBalancerManifest('same-lb', { listeners: [{ ...https, port: 4443 }, ...WEB.listeners.slice(1)] });
    let applied: string | undefined;
    try {
      await applyManifestFiles(rig.source, [{ file: 'refused.yaml', text }]);
    } catch (error) {
      applied = (error as Error).message;
    }
    expect(applied).to.match(/^refused\.yaml: document 1: .*port is immutable for an existing listener/);
    const plan = await readOnlyPlan(text, {}, false);
    expect(plan.resources.map((r) => [r.kind, r.verdict])).to.deep.equal([['LoadBalancer', 'refused']]);
    expect(plan.resources[0]?.refusal).to.equal(applied?.replace(/^refused\.yaml/, 'plan.yaml'));
    expect(plan.resources[0]?.decisions).to.deep.equal([]);
    expect(exitCodeOf(plan)).to.equal(1);
  });

  it('Octavia shows PENDING_*: the plan decides only the yield (LB1), declares nothing, and says what it waits for', async () => {
    // a create Octavia has accepted and not provisioned yet (the simulator's clock stands still)
    await applyManifests(rig.source, loadBalancerManifest('busy-lb', WEB));
    await rig.pass('busy-lb');
    const created = await rig.plan(loadBalancerManifest('busy-lb', WEB));
    expect(lbDecisions(created.resources[0]).map(summary)).to.deep.equal(['1 pendingYield (provisioning → provisioning) LB1']);
    expect(lbDecisions(created.resources[0])[0]?.then).to.equal("waits for Octavia's PENDING_* to clear (looks again in 2 s); nothing is sent meanwhile");

    // a provisioned one held PENDING_UPDATE (nothing scheduled ends it), with a listener added: only the yield
    const lbId = await lbIdOf('grow-lb');
    rig.sim.control.forceLoadBalancer(lbId, { provisioning_status: 'PENDING_UPDATE' });
    try {
      const plan = await readOnlyPlan(loadBalancerManifest('grow-lb', { listeners: [...WEB.listeners, tcpListener('extra', 7443)] }));
      const [lb] = plan.resources;
      expect(lbDecisions(lb).map(summary)).to.deep.equal(['1 pendingYield (provisioned → provisioning) LB1']);
      expect(lbDecisions(lb)[0]?.effects).to.deep.equal([]);
      expect(lbDecisions(lb)[0]?.then).to.equal("waits for Octavia's PENDING_* to clear (looks again in 2 s); nothing is sent meanwhile");
      expect(exitCodeOf(plan)).to.equal(0);
    } finally {
      rig.sim.control.forceLoadBalancer(lbId, { provisioning_status: 'ACTIVE' });
    }
  });
});
