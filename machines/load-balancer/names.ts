/**
 * The load balancer's vocabulary (machines/load-balancer.ts): the deterministic names (LB2), Octavia's
 * provisioning statuses as the machine classifies them (LB1), what counts as an IP address and a VIP port id
 * (LB15), how a value Octavia sent is named in a message, and the protocol constants the topology derives
 * (LB10). Pure functions of strings; no io-ts, no state.
 */

// ─── names (LB2) ────────────────────────────────────────────────────────────────────────────────────

/** `lb-{lb}`: the Octavia name of the load balancer of LoadBalancer `{lb}`. */
export const loadBalancerName = (lb: string): string => `lb-${lb}`;
export type ChildKind = 'listener' | 'pool' | 'monitor';
/** `{lbName}-{listener}-{kind}`, from the load balancer's Octavia name. */
export const childName = (lbName: string, listener: string, kind: ChildKind): string => `${lbName}-${listener}-${kind}`;
/** `lb-{lb}-{listener}-listener`. */
export const listenerName = (lb: string, listener: string): string => childName(loadBalancerName(lb), listener, 'listener');
/** `lb-{lb}-{listener}-pool`. */
export const poolName = (lb: string, listener: string): string => childName(loadBalancerName(lb), listener, 'pool');
/** `lb-{lb}-{listener}-monitor`. */
export const monitorName = (lb: string, listener: string): string => childName(loadBalancerName(lb), listener, 'monitor');
/**
 * What a floating-IP effect and its result are about: Neutron floating IPs have no name (they are found
 * by the VIP port). A colon never appears in an Octavia name Regent makes (listener names are DNS labels).
 */
export const floatingIPSubject = (lbName: string): string => `${lbName}:floating-ip`;

// ─── provisioning status (LB1) ──────────────────────────────────────────────────────────────────────

export const ACTIVE = 'ACTIVE';
export const PENDING_STATUSES: readonly string[] = ['PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE'];
export type StatusClass = 'active' | 'pending' | 'unusable';
/** LB1: ACTIVE continues, PENDING_* yields, anything else (ERROR, DELETED, a string Octavia adds later) is unusable. */
export const classifyStatus = (status: string): StatusClass => (status === ACTIVE ? 'active' : PENDING_STATUSES.includes(status) ? 'pending' : 'unusable');

// ─── the endpoint (LB15) ────────────────────────────────────────────────────────────────────────────

const IPV4_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${IPV4_OCTET}(?:\\.${IPV4_OCTET}){3}$`);
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
/** A dotted quad without leading zeros, as node:net's isIPv4 takes it (machines may not import node:net). */
export const isIPv4Address = (s: string): boolean => IPV4.test(s);
/**
 * RFC 4291's text forms (one `::`, an IPv4 tail), as node:net's isIPv6 takes them, but no zone (`%eth0`):
 * neither a VIP nor a floating IP carries one, and a zone in one would make the endpoint unusable anyway.
 */
export const isIPv6Address = (s: string): boolean => {
  let head = s;
  let width = 8;
  const lastColon = s.lastIndexOf(':');
  if (lastColon >= 0 && s.includes('.', lastColon)) {
    // an IPv4 tail takes the last two groups
    if (!isIPv4Address(s.slice(lastColon + 1))) return false;
    head = s.slice(0, lastColon + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1);
    width = 6;
  }
  const halves = head.split('::');
  if (halves.length > 2) return false;
  const groups = halves.map((h) => (h === '' ? [] : h.split(':')));
  if (groups.some((g) => g.some((x) => !HEX_GROUP.test(x)))) return false;
  const count = groups.reduce((n, g) => n + g.length, 0);
  return halves.length === 2 ? count < width : count === width;
};
/** LB15: an address a client can be sent to (IPv4 or IPv6). */
export const isIpAddress = (s: string): boolean => isIPv4Address(s) || isIPv6Address(s);
/**
 * LB15: the VIP port id the floating-IP lookup may be made with, or null. An empty (or blank) id is none:
 * a lookup with `port_id=` asks about no port, so whatever Neutron answers it (nothing, or every floating
 * IP should it drop the filter) says nothing about this load balancer's floating IP, and "none found"
 * would have let the pass create one.
 */
export const usableVipPortId = (vipPortId: string | null): string | null => (vipPortId !== null && vipPortId.trim() !== '' ? vipPortId : null);

const QUOTE_MAX = 64;
/**
 * A value Octavia or Neutron sent, named in a user-facing message (LB15 names exactly what was seen):
 * single-quoted, control characters, quotes and backslashes escaped, cut at 64 characters (no address or
 * id is longer, so a longer value is named by its start).
 */
export const quoted = (s: string): string => {
  const cut = s.length > QUOTE_MAX ? s.slice(0, QUOTE_MAX) : s;
  let out = '';
  for (const ch of cut) {
    const code = ch.charCodeAt(0);
    out += code < 0x20 || code === 0x7f || ch === "'" || ch === '\\' ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
  }
  return `'${out}${cut.length < s.length ? '…' : ''}'`;
};

// ─── Octavia constants the topology derives ─────────────────────────────────────────────────────────

/** LB10: a UDP pool is UDP; a TCP pool is PROXYV2 only with proxyProtocolV2 (microversion 2.22), else TCP. */
export const poolProtocolFor = (listener: { protocol: 'TCP' | 'UDP'; proxyProtocolV2: boolean }): 'UDP' | 'PROXYV2' | 'TCP' =>
  listener.protocol === 'UDP' ? 'UDP' : listener.proxyProtocolV2 ? 'PROXYV2' : 'TCP';
/** LB10: UDP health checks are Octavia's UDP-CONNECT; TCP ones TCP. */
export const monitorTypeFor = (listener: { protocol: 'TCP' | 'UDP' }): 'UDP-CONNECT' | 'TCP' => (listener.protocol === 'UDP' ? 'UDP-CONNECT' : 'TCP');
/** Octavia's API default for max_retries_down when the spec leaves it out. */
export const DEFAULT_MAX_RETRIES_DOWN = 3;
export const LB_ALGORITHM = 'ROUND_ROBIN';
