import type { AgreementCase } from './case.js';
export const loadBalancerCases: AgreementCase[] = [];
