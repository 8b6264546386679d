import type { AgreementCase } from './case.js';
export const networkCases: AgreementCase[] = [];
