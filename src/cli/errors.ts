/**
 * How the command fails: one clear line on stderr and a non-zero exit, never a stack trace (unless
 * REGENT_LOG_LEVEL=debug asks for it). Exit 2 for a bad invocation, 1 for everything else.
 */
import { StoreUnavailable, InvalidStoreRequest, InvalidStoreUrl } from '../store/errors.js';
import { UnknownMachine } from '../../machines/registry.js';
import { QuarantinedEvent } from '../engine/errors.js';
import { InvalidSourceSpec, KubeConfigError, ResourceError } from '../kube/errors.js';
import { ListenError } from '../app/http-server.js';
import { SimulatorOwnerUnreachable, SimulatorPortTaken } from '../app/openstack-target.js';
import { InvalidEvidence } from '../audit/evidence/open.js';
import { UsageError } from '../errors/usage.js';

// UsageError lives below the CLI (src/errors/usage.ts) so that the audit code raises it without importing the CLI.
export { UsageError };

/** Failures the user fixes by changing the invocation or its environment (a URL, a path, a kubeconfig): exit 2. */
const USAGE = [UsageError, InvalidStoreUrl, InvalidSourceSpec, KubeConfigError];

/** Regent's own errors: their message is written for the user, and their class name adds nothing to it. */
const KNOWN = [...USAGE, StoreUnavailable, InvalidStoreRequest, UnknownMachine, QuarantinedEvent, ResourceError, ListenError, SimulatorOwnerUnreachable, SimulatorPortTaken, InvalidEvidence];

export const exitCodeFor = (error: unknown): number => (USAGE.some((type) => error instanceof type) ? 2 : 1);

export const describeFailure = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  // A plain Error's name is just "Error": `regent: Error: …` said nothing the message did not.
  if (KNOWN.some((type) => error instanceof type) || error.name === 'Error') return error.message;
  // Anything else (TypeError, a library's own class) is unexpected, and its class says what kind of fault.
  return `${error.name}: ${error.message}`;
};
