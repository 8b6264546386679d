import type { AgreementCase } from './case.js';
export const novaCases: AgreementCase[] = [];
