/**
 * Where `regent serve` listens (issue 18, "No open door: the audit pages and the API are served only on
 * loopback by default; when exposed they require authentication, while /metrics, /healthz and /readyz stay
 * on their own listener"). Pure: options in, a plan out.
 *
 * | --host (operations) | --audit-host | the audit pages                                    | authentication            |
 * |---------------------|--------------|----------------------------------------------------|---------------------------|
 * | loopback (default)  | —            | on the same listener (http://127.0.0.1:8080/)      | none (loopback only)      |
 * | not loopback        | —            | a listener of their own on 127.0.0.1:--audit-port  | none (loopback only)      |
 * | any                 | loopback     | their own listener on that address                 | with --audit-jwks         |
 * | any                 | not loopback | their own listener on that address                 | required: --audit-jwks    |
 *
 * So a container's `--host 0.0.0.0` (probes, scraping) never exposes the event histories: they stay on
 * the pod's loopback (kubectl port-forward reaches them) until `--audit-host` and a JWKS say otherwise.
 */
import { UsageError } from '../errors.js';

export interface ListenerOptions {
  host: string;
  port: number;
  auditHost?: string;
  auditPort: number;
  /** A JWKS file path or URL the audit listener verifies bearer tokens against. */
  auditJwks?: string;
}

export interface ListenerPlan {
  ops: { host: string; port: number };
  /** Absent: the audit pages share the operations listener. */
  audit?: { host: string; port: number; jwks?: string };
}

/** 127.0.0.0/8, ::1 and localhost. */
export const isLoopback = (host: string): boolean => {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
};

export const planListeners = (o: ListenerOptions): ListenerPlan => {
  const ops = { host: o.host, port: o.port };
  const jwks = o.auditJwks !== undefined && o.auditJwks !== '' ? { jwks: o.auditJwks } : {};
  if (o.auditHost === undefined) {
    if (isLoopback(o.host)) {
      if (jwks.jwks !== undefined) return { ops, audit: { host: o.host, port: o.auditPort, ...jwks } };
      return { ops };
    }
    // the operations listener is exposed (a container): the audit pages stay on loopback
    return { ops, audit: { host: '127.0.0.1', port: o.auditPort, ...jwks } };
  }
  if (!isLoopback(o.auditHost) && jwks.jwks === undefined) {
    throw new UsageError(`--audit-host ${o.auditHost} exposes every event history of the region: it needs --audit-jwks <file|url> (bearer tokens granting read on region:audit)`);
  }
  if (o.auditHost === o.host && o.auditPort === o.port && o.port !== 0) throw new UsageError(`--audit-port ${o.auditPort}: the audit pages need a port of their own when --audit-host is given (not --port's)`);
  return { ops, audit: { host: o.auditHost, port: o.auditPort, ...jwks } };
};
