/**
 * The secret-store gate (src/nova/secret-store.ts): which store a Nova selects, the embedded stand-in, and the
 * namespace-scoped Kubernetes gate (ClusterSecretStore unsupported; a SecretStore by its Ready condition).
 */
import { expect } from 'chai';
import { DEFAULT_SECRET_STORE, namespacedSecretStoreGate, selectedSecretStore, type ObservedSecretStore } from '../../src/nova/secret-store.js';
import type { NovaSpec } from '../../src/resources/nova.js';

const spec = (secretStoreRef?: NovaSpec['secretStoreRef']): NovaSpec =>
  ({ secretStoreRef, database: {}, messaging: {}, serviceUser: {} }) as unknown as NovaSpec;

describe('nova secret-store gate', () => {
  it('an unset spec.secretStoreRef selects the default ClusterSecretStore openbao-cluster-store', () => {
    expect(selectedSecretStore(spec())).to.deep.equal({ name: 'openbao-cluster-store', kind: 'ClusterSecretStore' });
    expect(DEFAULT_SECRET_STORE.name).to.equal('openbao-cluster-store');
  });

  it('a ref without a kind is a SecretStore, as External Secrets reads a storeRef; a kind given is kept', () => {
    expect(selectedSecretStore(spec({ name: 'mine' }))).to.deep.equal({ name: 'mine', kind: 'SecretStore' });
    expect(selectedSecretStore(spec({ name: 'c', kind: 'ClusterSecretStore' }))).to.deep.equal({ name: 'c', kind: 'ClusterSecretStore' });
  });

  describe('namespace-scoped Kubernetes', () => {
    const reads: string[] = [];
    const gate = (observed: ObservedSecretStore | undefined) =>
      namespacedSecretStoreGate(async (namespace, name) => {
        reads.push(`${namespace}/${name}`);
        return observed;
      });
    beforeEach(() => void (reads.length = 0));

    it('a ClusterSecretStore is unsupported and is not read (a namespaced install can neither read nor watch it)', async () => {
      const verdict = await gate({ conditions: [{ type: 'Ready', status: 'True' }] }).check('openstack', DEFAULT_SECRET_STORE);
      expect(verdict.kind).to.equal('unsupported');
      expect(verdict.message).to.include('(the default)').and.include('select a SecretStore in namespace openstack');
      expect(reads).to.deep.equal([]);
    });

    const table: Array<[string, ObservedSecretStore | undefined, string, string]> = [
      ['a SecretStore with Ready True is ready', { conditions: [{ type: 'Ready', status: 'True' }] }, 'ready', 'is Ready'],
      ['a SecretStore with Ready False is not ready, with its reason and message', { conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidStoreConfiguration', message: 'bad role' }] }, 'notReady', 'InvalidStoreConfiguration: bad role'],
      ['a SecretStore without a Ready condition is not ready', {}, 'notReady', 'no Ready condition'],
      ['no SecretStore of that name is not ready', undefined, 'notReady', 'there is none in namespace openstack'],
    ];
    for (const [title, observed, kind, says] of table) {
      it(title, async () => {
        const verdict = await gate(observed).check('openstack', { name: 'openbao', kind: 'SecretStore' });
        expect(verdict.kind).to.equal(kind);
        expect(verdict.message).to.include(says);
        expect(reads).to.deep.equal(['openstack/openbao']);
      });
    }
  });
});
