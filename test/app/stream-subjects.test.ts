/** Issue 18: which resource each stream belongs to (src/app/stream-subjects.ts), and `regent streams --resource`. */
import { expect } from 'chai';
import { streamSubjects } from '../../src/app/stream-subjects.js';
import { kindTable, streamOwnersOf } from '../../src/app/kinds.js';
import { subjectMatches } from '../../src/cli/commands/streams.js';
import type { KindName, ObjectOf } from '../../src/resources/index.js';

const uid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const object = (kind: KindName, name: string, n: number, namespace = 'default') => ({ kind, apiVersion: 'regent.dev/v1alpha1', metadata: { name, namespace, uid: uid(n) }, spec: {} }) as unknown as ObjectOf<KindName>;

describe('stream subjects (issue 18: streams map to their resource)', () => {
  const objects: Partial<Record<KindName, ObjectOf<KindName>[]>> = {
    Server: [object('Server', 'web-2', 1, 'shop')],
    Network: [object('Network', 'net-a', 2)],
    Volume: [object('Volume', 'data-1', 3)],
    LoadBalancer: [object('LoadBalancer', 'lb-1', 4)],
    Identity: [object('Identity', 'acme', 5)],
    Region: [object('Region', 'region-one', 6)],
    Nova: [object('Nova', 'nova', 7)],
  };
  const owners = streamOwnersOf(kindTable(), (kind, id) => (objects[kind] ?? []).some((o) => o.metadata.uid === id));
  owners.noteNovaServer('nova-id-1', uid(1));
  const subjectOf = streamSubjects({ list: (kind) => objects[kind] ?? [], owners });
  const cases: Array<[string, string | undefined]> = [
    [`server-lifecycle-${uid(1)}`, 'Server shop/web-2'],
    ['server-rebuild-nova-id-1', 'Server shop/web-2'],
    [`volume-attachment-${uid(1)}-${uid(3)}`, 'Server shop/web-2'],
    [`network-lifecycle-${uid(2)}`, 'Network default/net-a'],
    [`volume-lifecycle-${uid(3)}`, 'Volume default/data-1'],
    [`load-balancer-${uid(4)}`, 'LoadBalancer default/lb-1'],
    [`identity-lifecycle-${uid(5)}`, 'Identity default/acme'],
    [`region-connection-${uid(6)}`, 'Region default/region-one'],
    [`vlan-allocation-${uid(6)}-physnet1`, 'Region default/region-one'],
    [`nova-database-${uid(7)}`, 'Nova default/nova'],
    [`nova-db-archive-${uid(7)}`, 'Nova default/nova'],
    // unknown: a resource the caches do not hold, a Nova id no pass has learned, a stream of no kind
    [`server-lifecycle-${uid(99)}`, undefined],
    ['server-rebuild-unknown', undefined],
    ['toy-a', undefined],
  ];
  for (const [stream, expected] of cases) {
    it(`${stream} → ${expected ?? 'nothing'}`, () => {
      const s = subjectOf(stream);
      expect(s ? `${s.kind} ${s.namespace}/${s.name}` : undefined).to.equal(expected);
    });
  }

  it('regent streams --resource matches name, namespace/name or Kind/namespace/name', () => {
    const s = { kind: 'Server', namespace: 'shop', name: 'web-2' };
    expect(subjectMatches(s, 'web-2')).to.equal(true);
    expect(subjectMatches(s, 'shop/web-2')).to.equal(true);
    expect(subjectMatches(s, 'server/shop/web-2')).to.equal(true);
    expect(subjectMatches(s, 'web-1')).to.equal(false);
    expect(subjectMatches(s, 'default/web-2')).to.equal(false);
    expect(subjectMatches(s, 'Volume/shop/web-2')).to.equal(false);
  });
});
