/**
 * The ComputeConfig step (nova-operator.md, "Pipeline", ComputeConfig; issue 26): the contract a compute node pool
 * joins the Nova on, `{name}-compute-config` (src/nova/config/compute.ts: transport_url, auth_url, compute.conf and,
 * on a TLS bus, ca.crt), written through the SecretStore only when its data differ, owned by the Nova (label
 * regent.dev/owner-uid), and status.computeConfigSecretRef stamped (values.computeConfigSecretRef).
 *
 * With spec.remoteCompute the same contract again as `{name}-remote-compute-config`, its transport_url read from the
 * Secret spec.remoteCompute.transportURLSecretRef names (key default `url`); status.remoteComputeConfigSecretRef.
 * Without the block the remote Secret is deleted when this Nova controls it (its owner label is this Nova's uid; one
 * it does not control is left alone) and the reference cleared (null).
 *
 *   ComputeConfigReady True  ComputeConfigPublished        every contract the spec asks for is published as rendered
 *   ComputeConfigReady False ComputeConfigError            a contract cannot be rendered (a control character, no
 *                                                          Keystone URL): nothing written, the published Secret stays
 *                                                          as it was (and stays stamped)
 *   ComputeConfigReady False WaitingForRemoteTransportURL  the remote Secret or key is missing: a remote contract
 *                                                          published earlier stays as it was
 *
 * The lane always continues: neither False is something a later step could wait on (the spec: "without halting the
 * pipeline"); a fixed spec or the remote Secret's arrival wakes the pass (the Secret index of "Watches").
 * Messages name Secrets, keys and places, never a value.
 */
import type { ConditionInput } from '../../../../projections/conditions.js';
import { OWNER_UID_LABEL, type SecretStore, type StoredSecret } from '../../../kube/secrets.js';
import { computeConfigSecretName, remoteComputeConfigSecretName, renderComputeContract, type ComputeContract } from '../../../nova/config/compute.js';
import { TRANSPORT_URL_KEY, type NovaRef } from '../../../nova/jobs/render.js';
import { continueLane, type NovaStep } from '../lane.js';
import type { NovaLanePass } from '../pass.js';
import { configPortOf } from './config.js';

type Applied =
  /** Published as rendered (written now, or already so). */
  | { kind: 'published' }
  /** Not rendered: what was published stays. */
  | { kind: 'refused'; problems: string[]; present: boolean }
  /** The remote transport URL is missing. */
  | { kind: 'waiting'; message: string; present: boolean };

const sameSecret = (current: StoredSecret | undefined, data: Readonly<Record<string, string>>, owner: string): boolean =>
  current !== undefined &&
  current.labels[OWNER_UID_LABEL] === owner &&
  Object.keys(current.data).length === Object.keys(data).length &&
  Object.entries(data).every(([k, v]) => current.data[k] === v);

/** Writes a rendered contract when it differs; a refused one writes nothing. */
const apply = async (secrets: SecretStore, ref: NovaRef, name: string, contract: ComputeContract): Promise<Applied> => {
  const current = await secrets.get(ref.namespace, name);
  if (!contract.ok) return { kind: 'refused', problems: contract.problems, present: current !== undefined };
  if (!sameSecret(current, contract.data, ref.uid)) await secrets.put(ref.namespace, name, contract.data, { ownerUid: ref.uid, labels: { 'regent.dev/nova': ref.name } });
  return { kind: 'published' };
};

/** The external transport URL of spec.remoteCompute, or what is missing (names only). */
const remoteTransportURL = async (secrets: SecretStore, ref: NovaRef, secretRef: { name: string; key?: string }): Promise<{ url: string } | { missing: string }> => {
  const key = secretRef.key ?? TRANSPORT_URL_KEY;
  const secret = await secrets.get(ref.namespace, secretRef.name);
  if (!secret) return { missing: `no Secret ${secretRef.name} (spec.remoteCompute.transportURLSecretRef)` };
  const url = secret.data[key];
  return url ? { url } : { missing: `Secret ${secretRef.name} has no key ${key} (spec.remoteCompute.transportURLSecretRef)` };
};

const describe = (name: string, applied: Applied): string =>
  applied.kind === 'published'
    ? `${name} published`
    : applied.kind === 'refused'
      ? `${name} is not written: ${applied.problems.join('; ')}; ${applied.present ? 'the published Secret stays as it was' : 'none is published yet'}`
      : `waiting for the remote transport URL: ${applied.message}; ${applied.present ? `${name} stays as it was` : `${name} is not published yet`}`;

const condition = (main: { name: string; applied: Applied }, remote: { name: string; applied: Applied } | undefined): ConditionInput => {
  const contracts = [main, ...(remote ? [remote] : [])];
  const refused = contracts.filter((c) => c.applied.kind === 'refused');
  if (refused.length > 0) return { type: 'ComputeConfigReady', status: 'False', reason: 'ComputeConfigError', message: refused.map((c) => describe(c.name, c.applied)).join('. ') };
  const waiting = contracts.find((c) => c.applied.kind === 'waiting');
  if (waiting) return { type: 'ComputeConfigReady', status: 'False', reason: 'WaitingForRemoteTransportURL', message: describe(waiting.name, waiting.applied) };
  return { type: 'ComputeConfigReady', status: 'True', reason: 'ComputeConfigPublished', message: contracts.map((c) => describe(c.name, c.applied)).join('; ') };
};

export const computeConfigStep: NovaStep<NovaLanePass> = {
  name: 'ComputeConfig',
  conditions: ['ComputeConfigReady'],
  async run(pass) {
    const { nova, ref, values } = pass;
    const { secrets } = pass.deps;
    // the TransportURLSecret step runs before this one and ends the lane without a URL: none here is a table bug
    if (values.transportURL === undefined) throw new Error('ComputeConfig ran without the transport URL: the TransportURLSecret step must run before it');
    const settings = configPortOf(pass).settings(ref.namespace, ref.name);
    const contract = (transportURL: string): ComputeContract =>
      renderComputeContract({ spec: nova.spec, settings, transportURL, ...(values.messagingCA !== undefined ? { messagingCA: values.messagingCA } : {}) });

    const mainName = computeConfigSecretName(ref.name);
    const main = await apply(secrets, ref, mainName, contract(values.transportURL));
    if (main.kind === 'published' || main.present) values.computeConfigSecretRef = mainName;

    const remoteName = remoteComputeConfigSecretName(ref.name);
    let remote: { name: string; applied: Applied } | undefined;
    if (nova.spec.remoteCompute) {
      const url = await remoteTransportURL(secrets, ref, nova.spec.remoteCompute.transportURLSecretRef);
      const applied: Applied = 'url' in url ? await apply(secrets, ref, remoteName, contract(url.url)) : { kind: 'waiting', message: url.missing, present: (await secrets.get(ref.namespace, remoteName)) !== undefined };
      if (applied.kind === 'published' || applied.present) values.remoteComputeConfigSecretRef = remoteName;
      remote = { name: remoteName, applied };
    } else {
      const existing = await secrets.get(ref.namespace, remoteName);
      // only what this Nova controls: a Secret of that name someone else put there is not ours to delete
      if (existing && existing.labels[OWNER_UID_LABEL] === ref.uid) await secrets.delete(ref.namespace, remoteName);
      values.remoteComputeConfigSecretRef = null;
    }
    return { conditions: [condition({ name: mainName, applied: main }, remote)], outcome: continueLane };
  },
};
