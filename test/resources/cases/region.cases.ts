import type { AgreementCase } from './case.js';
export const regionCases: AgreementCase[] = [];
