/** Where the real cloud's transcripts are kept for the offline differential check (`npm test`). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Transcript } from './transcript.js';

export const RECORDING = join(dirname(fileURLToPath(import.meta.url)), 'recorded', 'real-openstack.json');

export interface Recording {
  recordedAt: string;
  /** Which cloud (tenant and admin cloud names, fault control). */
  cloud: string;
  transcripts: Transcript[];
}

export const readRecording = (path: string = RECORDING): Recording | undefined =>
  existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Recording) : undefined;
