/** What holds an Identity's delete (src/controllers/identity/dependents.ts): its Networks and what lives on them. */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { identityDependents } from '../../src/controllers/identity/dependents.js';

describe('identity dependents', () => {
  it('the Networks naming the identity, and the Servers, Volumes, LoadBalancers and SecurityGroups on them; nothing of another identity', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-dependents-'));
    const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    try {
      await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: default }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: other }
spec: { regionRef: { name: default }, organizationID: other, projectID: ops }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-b }
spec: { identityRef: { name: other }, prefix: 10.1.0.0/24 }
---
apiVersion: regent.dev/v1alpha1
kind: SecurityGroup
metadata: { name: web-sg }
spec: { networkID: net-a, rules: [] }
---
apiVersion: regent.dev/v1alpha1
kind: SecurityGroup
metadata: { name: ops-sg }
spec: { networkID: net-b, rules: [] }
`);
      expect(await identityDependents(source, 'default', 'acme')).to.deep.equal(['Network/net-a', 'SecurityGroup/web-sg']);
      expect(await identityDependents(source, 'default', 'other')).to.deep.equal(['Network/net-b', 'SecurityGroup/ops-sg']);
    } finally {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
