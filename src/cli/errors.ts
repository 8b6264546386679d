/**
 * How the command fails: one clear line on stderr and a non-zero exit, never a stack trace (unless
 * REGENT_LOG_LEVEL=debug asks for it). Exit 2 for a bad invocation, 1 for everything else.
 */
import { StoreUnavailable, InvalidStoreRequest } from '../store/errors.js';
import { UnknownMachine } from '../../machines/registry.js';
import { QuarantinedEvent } from '../engine/errors.js';
import { ResourceError } from '../kube/errors.js';
import { ListenError } from '../app/http-server.js';

/** The user asked for something that cannot be done as asked (bad argument, missing store). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const KNOWN = [UsageError, StoreUnavailable, InvalidStoreRequest, UnknownMachine, QuarantinedEvent, ResourceError, ListenError];

export const exitCodeFor = (error: unknown): number => (error instanceof UsageError ? 2 : 1);

export const describeFailure = (error: unknown): string => {
  if (KNOWN.some((type) => error instanceof type)) return (error as Error).message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
};
