import { notFound, ok } from '../http.js';
import type { Router } from '../router.js';
import { registerL3 } from './l3.js';
import { registerNetworks } from './networks.js';
import { registerPorts } from './ports.js';
import { registerQuotas } from './quotas.js';
import { registerSecurityGroups } from './security-groups.js';

const EXTENSIONS = [
  ['standard-attr-tag', 'Tag support for resources with standard attribute: subnet, trunk, network_segment_range, router, network, policy, subnetpool, port, security_group, floatingip'],
  ['standard-attr-description', 'Extension to add descriptions to standard attributes'],
  ['standard-attr-revisions', 'This extension will display the revision number of neutron resources.'],
  ['standard-attr-timestamp', 'Adds created_at and updated_at fields to all Neutron resources that have Neutron standard attributes.'],
  ['security-group', 'The security groups extension.'], ['router', 'Router abstraction'], ['external-net', 'Adds external network attribute to network resource.'],
  ['binding', 'Expose port bindings of a virtual port to external application'], ['port-security', 'Provides port security'],
  ['provider', 'Expose mapping of virtual networks to physical networks'], ['allowed-address-pairs', 'Provides allowed address pairs'],
  ['project-id', 'Extension that indicates that project_id is enabled.'], ['pagination', 'Extension that indicates that pagination is enabled.'],
  ['sorting', 'Extension that indicates that sorting is enabled.'], ['fip-port-details', 'Add port_details attribute to Floating IP resource'],
  ['filter-validation', 'Provides validation on filtering parameters.'], ['net-mtu', 'Provides MTU attribute for a network resource.'],
  ['quotas', 'Expose functions for quotas management per project'],
];

export function registerNeutron(router: Router): void {
  const r = router.scope('neutron', '/network/v2.0');
  registerNetworks(r);
  registerPorts(r);
  registerSecurityGroups(r);
  registerL3(r);
  registerQuotas(r);
  const ext = (alias: string, description: string) => ({ alias, name: alias, description, updated: '2023-01-01T10:00:00-00:00', links: [] });
  r.get('/extensions', () => ok({ extensions: EXTENSIONS.map(([a, d]) => ext(a as string, d as string)) }));
  r.get('/extensions/:alias', (ctx) => {
    const e = EXTENSIONS.find(([a]) => a === ctx.p('alias'));
    if (!e) throw notFound(`Extension with alias ${ctx.p('alias')} does not exist`, 'HTTPNotFound');
    return ok({ extension: ext(e[0] as string, e[1] as string) });
  });
}
