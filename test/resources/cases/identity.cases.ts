import type { AgreementCase } from './case.js';
export const identityCases: AgreementCase[] = [];
