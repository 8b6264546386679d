/**
 * The benchmark's projects: `count` Keystone projects made by the simulator's admin, each granted the admin role to
 * the admin user, and one OpenStack session scoped to each — the clients a monitor lists each project with.
 */
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml, type CloudConfig } from '../../src/openstack/keystone/clouds-config.js';

export interface BenchProject {
  name: string;
  id: string;
  session: OpenStackSession;
}

const scopedTo = (cloud: CloudConfig, project: string): CloudConfig => ({ ...cloud, scope: { kind: 'project', project: { name: project, domain: { name: 'Default' } } } });

/** Makes projects `<prefix>1`…`<prefix>count` (or finds them) and connects to each as admin. */
export const makeProjects = async (cloudsYaml: string, prefix: string, count: number): Promise<BenchProject[]> => {
  const adminCloud = cloudFromYaml(cloudsYaml, 'sim-admin');
  const admin = await connect(adminCloud);
  const domain = await admin.identityAdmin.findDomainByName('Default');
  const role = await admin.identityAdmin.findRoleByName('admin');
  if (!domain || !role) throw new Error('the simulator has no Default domain or admin role');
  const userId = admin.initialToken.user.id;
  const projects: BenchProject[] = [];
  for (let i = 1; i <= count; i++) {
    const name = `${prefix}${i}`;
    const project = (await admin.identityAdmin.findProject({ domainId: domain.id, name })) ?? (await admin.identityAdmin.createProject({ domainId: domain.id, name }));
    await admin.identityAdmin.grantProjectRole({ projectId: project.id, userId, roleId: role.id });
    projects.push({ name, id: project.id, session: await connect(scopedTo(adminCloud, name)) });
  }
  return projects;
};
