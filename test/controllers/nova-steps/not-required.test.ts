/**
 * The part-3 steps Regent does not build (src/controllers/nova/steps/not-required.ts): each reports its NotRequired
 * True reason while its spec block is unset (or switched off), so a Nova without it can be Ready, and an honest
 * False/NotImplemented while the block is set, so Ready is never True over a block Regent ignores. Both branches
 * continue the lane (a False that is not a wait).
 */
import { expect } from 'chai';
import { consoleHTTPRouteStep, hpaStep, httpRouteStep, metadataHTTPRouteStep, networkPolicyStep, notRequiredSteps, vpaStep } from '../../../src/controllers/nova/steps/not-required.js';
import type { NovaStep } from '../../../src/controllers/nova/lane.js';
import type { NovaLanePass } from '../../../src/controllers/nova/pass.js';
import type { NovaSpec } from '../../../src/resources/nova.js';
import { baseSpec, makePass } from './pass-rig.js';

const GATEWAY = { parentRef: { name: 'public' }, hostname: 'nova.example.com' };

const table: Array<[string, NovaStep<NovaLanePass>, string, string | null, (s: NovaSpec) => NovaSpec]> = [
  ['spec.autoscaling unset → HPAReady True/HPANotRequired', hpaStep, 'HPAReady', 'HPANotRequired', (s) => s],
  ['spec.autoscaling set → HPAReady False/NotImplemented', hpaStep, 'HPAReady', null, (s) => ({ ...s, autoscaling: { minReplicas: 2, maxReplicas: 4 } })],
  ['spec.vpa unset → VPAReady True/VPANotRequired', vpaStep, 'VPAReady', 'VPANotRequired', (s) => s],
  ['spec.vpa disabled → VPAReady True/VPANotRequired', vpaStep, 'VPAReady', 'VPANotRequired', (s) => ({ ...s, vpa: { enabled: false } })],
  ['spec.vpa enabled → VPAReady False/NotImplemented', vpaStep, 'VPAReady', null, (s) => ({ ...s, vpa: { enabled: true } })],
  ['spec.networkPolicy unset → NetworkPolicyReady True/NetworkPolicyNotRequired', networkPolicyStep, 'NetworkPolicyReady', 'NetworkPolicyNotRequired', (s) => s],
  ['spec.networkPolicy disabled → NetworkPolicyReady True/NetworkPolicyNotRequired', networkPolicyStep, 'NetworkPolicyReady', 'NetworkPolicyNotRequired', (s) => ({ ...s, networkPolicy: { enabled: false } })],
  ['spec.networkPolicy enabled → NetworkPolicyReady False/NotImplemented', networkPolicyStep, 'NetworkPolicyReady', null, (s) => ({ ...s, networkPolicy: { enabled: true, ingressNamespaces: ['gw'] } })],
  ['spec.gateway unset → HTTPRouteReady True/HTTPRouteNotRequired', httpRouteStep, 'HTTPRouteReady', 'HTTPRouteNotRequired', (s) => s],
  ['spec.gateway set → HTTPRouteReady False/NotImplemented', httpRouteStep, 'HTTPRouteReady', null, (s) => ({ ...s, gateway: GATEWAY })],
  ['spec.metadata.gateway unset → MetadataHTTPRouteReady True/HTTPRouteNotRequired', metadataHTTPRouteStep, 'MetadataHTTPRouteReady', 'HTTPRouteNotRequired', (s) => s],
  ['spec.metadata unset → MetadataHTTPRouteReady True/HTTPRouteNotRequired', metadataHTTPRouteStep, 'MetadataHTTPRouteReady', 'HTTPRouteNotRequired', (s) => ({ ...s, metadata: undefined })],
  ['spec.metadata.gateway set → MetadataHTTPRouteReady False/NotImplemented', metadataHTTPRouteStep, 'MetadataHTTPRouteReady', null, (s) => ({ ...s, metadata: { sharedSecretRef: { name: 'm' }, gateway: GATEWAY } })],
  ['spec.consoleProxy unset → ConsoleHTTPRouteReady True/HTTPRouteNotRequired', consoleHTTPRouteStep, 'ConsoleHTTPRouteReady', 'HTTPRouteNotRequired', (s) => s],
  ['an enabled console proxy without a gateway → ConsoleHTTPRouteReady True/HTTPRouteNotRequired', consoleHTTPRouteStep, 'ConsoleHTTPRouteReady', 'HTTPRouteNotRequired', (s) => ({ ...s, consoleProxy: { enabled: true } })],
  ['a disabled console proxy is an absent block, its gateway set or not → HTTPRouteNotRequired', consoleHTTPRouteStep, 'ConsoleHTTPRouteReady', 'HTTPRouteNotRequired', (s) => ({ ...s, consoleProxy: { enabled: false, gateway: GATEWAY } })],
  ['an enabled console proxy with a gateway → ConsoleHTTPRouteReady False/NotImplemented', consoleHTTPRouteStep, 'ConsoleHTTPRouteReady', null, (s) => ({ ...s, consoleProxy: { enabled: true, gateway: GATEWAY } })],
];

describe('nova lane: the part-3 steps Regent does not build (NotRequired / NotImplemented)', () => {
  for (const [title, step, type, notRequired, spec] of table) {
    it(title, async () => {
      const report = await step.run(makePass({ spec: spec(baseSpec()) }));
      expect(report.outcome).to.deep.equal({ kind: 'continue' });
      expect(report.conditions).to.have.length(1);
      const condition = report.conditions[0]!;
      expect(condition.type).to.equal(type);
      if (notRequired) expect(condition).to.include({ status: 'True', reason: notRequired });
      else {
        expect(condition).to.include({ status: 'False', reason: 'NotImplemented' });
        expect(condition.message).to.include('Regent does not build');
      }
      expect(step.conditions).to.deep.equal([type]);
    });
  }

  it('the six steps own the six part-3 conditions, one each', () => {
    expect(notRequiredSteps.map((s) => s.conditions[0]).sort()).to.deep.equal(['ConsoleHTTPRouteReady', 'HPAReady', 'HTTPRouteReady', 'MetadataHTTPRouteReady', 'NetworkPolicyReady', 'VPAReady']);
  });
});
