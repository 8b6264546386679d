/**
 * A Server whose spec does not decode (possible on a cluster whose CRD lags the code) gets a status
 * condition naming the wrong field, and nothing else happens to it: no OpenStack call, no finalizer.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import type { ResourceSource } from '../../src/kube/port.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { Engine } from '../../src/engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { reconcileServer } from '../../src/controllers/server/reconcile.js';
import { StatusRunner } from '../../src/status/runner.js';
import { MemoryCheckpoint } from '../../src/status/checkpoint.js';
import { silentLogger } from '../../src/log/logger.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { statusRunnerParts } from '../../src/app/kinds.js';

describe('server controller: a spec that does not decode', () => {
  it('records the refusal as an event and renders Available=False/InvalidSpec naming the field; nothing else happens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-invalid-'));
    const embedded = await openEmbeddedSource({ path: join(dir, 'r.db') });
    try {
      await applyManifests(embedded, `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: web-x }
spec: { name: web-x, image: { name: cirros }, flavor: { name: m1.small }, networkID: net-a, sshInjection: none }
`);
      // A source that hands out the object with a spec the codecs refuse (flavor names neither id nor name).
      const source: ResourceSource = Object.create(embedded, {
        get: {
          value: async (kind: 'Server', ns: string, name: string) => {
            const object = await embedded.get(kind, ns, name);
            return object && { ...object, spec: { ...object.spec, flavor: {} } };
          },
        },
      });
      const unexpected = () => {
        throw new Error('no OpenStack call may happen for an invalid spec');
      };
      const os = new Proxy({}, { get: unexpected }) as OpenStackSession;
      const store = new MemoryEventStore();
      const engine = new Engine({ store, registry: createProductRegistry() });
      const disposition = await reconcileServer({ engine, source, os, logger: silentLogger() }, 'default', 'web-x');
      expect(disposition.kind).to.equal('done');
      const object = await embedded.get('Server', 'default', 'web-x');
      expect(object?.metadata.finalizers ?? []).to.deep.equal([]);
      const events = await store.readAll();
      expect(events.map((e) => e.type)).to.deep.equal(['serverLifecycle.specRejected']);
      const runner = new StatusRunner({ store, engine, source, checkpoint: new MemoryCheckpoint(), logger: silentLogger(), ...statusRunnerParts(['Server', 'Network']) });
      await runner.render({ kind: 'Server', namespace: 'default', name: 'web-x' });
      const status = (await embedded.get('Server', 'default', 'web-x'))?.status as { conditions: Array<{ type: string; status: string; reason: string; message: string }>; provisioningStatus: string };
      const available = status.conditions.find((c) => c.type === 'Available');
      expect(available).to.include({ status: 'False', reason: 'InvalidSpec' });
      expect(available?.message).to.match(/spec\.flavor/);
      expect(status.provisioningStatus).to.equal('error');
    } finally {
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
