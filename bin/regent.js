#!/usr/bin/env node
// The `regent` command. Runs the TypeScript sources through tsx, so `npx regent …` works right after
// `npm ci` with no build step.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register();
const main = fileURLToPath(new URL('../src/cli/entry.ts', import.meta.url));
await import(main);
