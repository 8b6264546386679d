/**
 * Every group of the plan's coverage, together: the planned kinds, the rule tables and the waits. A group adds its
 * file here; a kind in no group is "plan is not built for <Kind> yet".
 */
import type { KindName } from '../../resources/index.js';
import type { PlanCoverage } from './coverage.js';
import type { RuleRow } from './rule-row.js';
import { SERVER } from './server.js';
import { VOLUME } from './volume.js';
import { LOAD_BALANCER } from './load-balancer.js';
import { TENANCY } from './tenancy.js';
import { WORKLOAD } from './workload.js';
import { NOVA } from './nova.js';

export const COVERAGE: readonly PlanCoverage[] = [SERVER, VOLUME, LOAD_BALANCER, TENANCY, WORKLOAD, NOVA];

const merged = <T>(pick: (c: PlanCoverage) => Readonly<Record<string, T>>): Record<string, T> => {
  const all: Record<string, T> = {};
  for (const group of COVERAGE) {
    for (const [machine, value] of Object.entries(pick(group))) {
      if (machine in all) throw new Error(`plan coverage: ${machine} is covered by two groups`);
      all[machine] = value;
    }
  }
  return all;
};

export const COVERED_KINDS: readonly KindName[] = COVERAGE.flatMap((c) => c.kinds);
export const COVERED_RULES: Readonly<Record<string, readonly RuleRow[]>> = merged((c) => c.rules);
export const COVERED_WAITS: Readonly<Record<string, Readonly<Record<string, string>>>> = merged((c) => c.waits);
export const COVERED_UNLABELLED: Readonly<Record<string, Readonly<Record<string, string>>>> = merged((c) => c.unlabelled ?? {});
