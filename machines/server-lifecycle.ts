/**
 * A Server's create/delete lifecycle (machines/lifecycle.ts) under its deterministic Nova name. The
 * image of a running server is the server-rebuild machine's business (stream server-rebuild-<nova id>).
 */
import { lifecycleDefinition } from './lifecycle.js';

export const serverLifecycleDefinition = lifecycleDefinition({
  id: 'serverLifecycle',
  streamPrefix: 'server-lifecycle-',
  createEffect: 'nova.createServer',
  deleteEffect: 'nova.deleteServer',
  description: 'Nova server create (adopting an existing exact-name match) and finalizer-gated delete.',
  boots: true,
});

export const serverLifecycleStream = (resourceUid: string): string => `server-lifecycle-${resourceUid}`;
