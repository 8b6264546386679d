/**
 * Client functions take the service session first (`getServer(http, id)`): plain functions are easy to test and
 * to read. `bindClient` turns a set of them into the per-service object of the session (`os.nova.getServer(id)`).
 */
import type { HttpSession } from './http.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ClientFn = (http: HttpSession, ...args: any[]) => unknown;
type Bound<F> = F extends (http: HttpSession, ...args: infer A) => infer R ? (...args: A) => R : never;
export type BoundClient<M extends Record<string, ClientFn>> = { readonly [K in keyof M]: Bound<M[K]> } & { readonly http: HttpSession };

export const bindClient = <M extends Record<string, ClientFn>>(http: HttpSession, fns: M): BoundClient<M> => {
  const out: Record<string, unknown> = { http };
  for (const [key, fn] of Object.entries(fns)) out[key] = (...args: unknown[]) => fn(http, ...args);
  return out as BoundClient<M>;
};
