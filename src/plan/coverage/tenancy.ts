/**
 * The plan of the tenancy kinds: Region (machines/region-connection.ts), Identity (machines/identity-lifecycle.ts, machines/scope-reachability.ts), Network (machines/network-lifecycle.ts, machines/vlan-allocation.ts), SecurityGroup (machines/security-group-lifecycle.ts), SSHCertificateAuthority.
 * Not built yet: no kind listed, so the plan says "plan is not built for <Kind> yet" and claims nothing.
 */
import type { PlanCoverage } from './coverage.js';

export const TENANCY: PlanCoverage = {
  kinds: [],
  rules: {},
  waits: {},
};
