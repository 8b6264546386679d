/** The WorkloadMachine codec (issue 29): required fields, the image rule, the user data bound, immutability. */
import { expect } from 'chai';
import { validateWorkloadMachine } from '../../src/resources/index.js';

const IMAGE = '3f1c4f6e-2b7a-4d4b-9a55-0c6f1f3d2e10';
const object = (spec: Record<string, unknown>) => ({
  apiVersion: 'regent.dev/v1alpha1',
  kind: 'WorkloadMachine',
  metadata: { name: 'demo-cp-0', namespace: 'team-a' },
  spec: { clusterRef: { name: 'demo' }, role: 'ControlPlane', image: { id: IMAGE }, flavorName: 'm1.large', ...spec },
});
const message = (spec: Record<string, unknown>, old?: Record<string, unknown>): string => {
  const previous = old === undefined ? undefined : validateWorkloadMachine(object(old));
  const result = validateWorkloadMachine(object(spec), previous?.ok ? previous.value : undefined);
  if (result.ok) throw new Error('expected a refusal');
  return result.message;
};

describe('WorkloadMachine codec', () => {
  it('accepts the required fields alone, and writes no default', () => {
    const result = validateWorkloadMachine(object({}));
    expect(result.ok && result.value.spec).to.deep.equal({ clusterRef: { name: 'demo' }, role: 'ControlPlane', image: { id: IMAGE }, flavorName: 'm1.large' });
  });

  it('refuses with messages that name the field and the rule', () => {
    expect(message({ flavorName: undefined })).to.equal('WorkloadMachine "team-a/demo-cp-0" is invalid: spec.flavorName: Required value');
    expect(message({ role: 'Etcd' })).to.contain('spec.role: Unsupported value: "Etcd": supported values: "ControlPlane", "Worker"');
    expect(message({ image: { id: IMAGE, name: 'ubuntu' } })).to.contain('spec.image: Invalid value: "object": exactly one of image.id and image.name must be set');
    expect(message({ image: {} })).to.contain('exactly one of image.id and image.name must be set');
    expect(message({ userData: 'é'.repeat(40000) })).to.contain('spec.userData: Invalid value: "string": userData must be at most 65535 bytes (UTF-8)');
    expect(message({ userData: 'u'.repeat(65536) })).to.contain('spec.userData: Too long: may not be longer than 65535');
  });

  it('clusterRef and role are immutable; image, flavor and user data may change', () => {
    expect(message({ clusterRef: { name: 'other' } }, {})).to.contain('spec.clusterRef.name: Invalid value: "string": clusterRef.name is immutable');
    expect(message({ role: 'Worker' }, {})).to.contain('spec.role: Invalid value: "string": role is immutable');
    const old = validateWorkloadMachine(object({}));
    if (!old.ok) throw new Error(old.message);
    expect(validateWorkloadMachine(object({ image: { name: 'ubuntu' }, flavorName: 'm1.xlarge', userData: '#cloud-config\n' }), old.value).ok).to.equal(true);
  });
});
