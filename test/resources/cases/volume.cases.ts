import type { AgreementCase } from './case.js';
export const volumeCases: AgreementCase[] = [];
