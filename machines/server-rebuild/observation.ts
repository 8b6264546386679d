/**
 * What a Nova GET says about a server, reduced to the facts rebuild decisions depend on, each one
 * tagged so that "unreadable" or "hidden" can never be mistaken for a value (openstack-provider.md:
 * "an unexposed field decodes indistinguishably from 'at rest'" — here it cannot).
 *
 * Pure: these predicates are the vocabulary of the machine's guards.
 */
import * as t from 'io-ts';

/** `OS-EXT-STS:task_state`: empty at rest, a name while a task runs, or not known. */
export const TaskState = t.union([
  t.type({ kind: t.literal('idle') }),
  t.type({ kind: t.literal('active'), name: t.string }),
  /** hidden: the field is absent (policy-restricted); unreadable: present but not a string/null. */
  t.type({ kind: t.literal('unknown'), why: t.keyof({ hidden: null, unreadable: null }) }),
]);
export type TaskState = t.TypeOf<typeof TaskState>;

/** The server's `image`: an image id, or not readable (missing, boot-from-volume "", malformed). */
export const ImageRef = t.union([
  t.type({ kind: t.literal('image'), id: t.string }),
  t.type({ kind: t.literal('unreadable'), why: t.keyof({ missing: null, bootFromVolume: null, malformed: null }) }),
]);
export type ImageRef = t.TypeOf<typeof ImageRef>;

/** `OS-SRV-USG:launched_at`: set once the server has booted; null before first boot (and during a rebuild). */
export const LaunchedAt = t.union([
  t.type({ kind: t.literal('launched'), at: t.string }),
  t.type({ kind: t.literal('never') }),
  t.type({ kind: t.literal('unreadable') }),
]);
export type LaunchedAt = t.TypeOf<typeof LaunchedAt>;

export const ServerFacts = t.intersection([
  t.type({
    id: t.string,
    /** Nova `status` (ACTIVE, BUILD, REBUILD, SHUTOFF, ERROR, …); null when unreadable. */
    status: t.union([t.string, t.null]),
    taskState: TaskState,
    imageRef: ImageRef,
    launchedAt: LaunchedAt,
    /** First port MAC from `addresses`, when readable. */
    macAddress: t.union([t.string, t.null]),
  }),
  t.partial({
    /**
     * A BUILD server on a baremetal flavor: what Ironic's provision state says (src/provider/inventory/
     * baremetal-progress.ts). Absent for a virtual flavor, for any other status, and when Ironic could not
     * be asked (the fallback: Building).
     */
    baremetal: t.keyof({ Queued: null, Building: null }),
    /** The server's addresses from Nova's `addresses` (fixed and floating, in Nova's order), when readable. */
    ipAddresses: t.array(t.string),
  }),
]);
export type ServerFacts = t.TypeOf<typeof ServerFacts>;

/** Statuses a server rests in. SHUTOFF counts: settlement is state-based, not health-based. */
const STABLE_STATUSES = new Set(['ACTIVE', 'SHUTOFF', 'PAUSED', 'SUSPENDED', 'SHELVED', 'SHELVED_OFFLOADED']);

export const isError = (s: ServerFacts): boolean => s.status === 'ERROR';
export const refReadable = (s: ServerFacts): s is ServerFacts & { imageRef: { kind: 'image'; id: string } } => s.imageRef.kind === 'image';
export const refIs = (s: ServerFacts, imageId: string): boolean => s.imageRef.kind === 'image' && s.imageRef.id === imageId;
export const refOff = (s: ServerFacts, imageId: string): boolean => s.imageRef.kind === 'image' && s.imageRef.id !== imageId;

/** "Task active" = non-empty task_state, or status REBUILD (folded in defensively). */
export const taskActive = (s: ServerFacts): boolean => s.taskState.kind === 'active' || s.status === 'REBUILD';

/** Task positively known to be empty (a hidden task_state is never "idle"). */
export const taskIdle = (s: ServerFacts): boolean => s.taskState.kind === 'idle' && s.status !== 'REBUILD';

/** Quiescent enough to submit: no task known to be running. Nova's own 409 guards the unknown case. */
export const quiescentForSubmit = (s: ServerFacts): boolean => !taskActive(s);

export const stableNonError = (s: ServerFacts): boolean => s.status !== null && STABLE_STATUSES.has(s.status);

/** Convergence = ref == target ∧ stable non-ERROR status ∧ task_state empty. */
export const convergedOn = (s: ServerFacts, target: string): boolean => refIs(s, target) && stableNonError(s) && taskIdle(s);

/** Booted at least once, from launched_at read fresh on this GET. */
export const hasBooted = (s: ServerFacts): boolean => s.launchedAt.kind === 'launched';
