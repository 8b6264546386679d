// Address arithmetic for subnets (IPv4 and IPv6 alike, via BigInt), and the allocator: a cursor scan over
// the allocation pools that skips used addresses, so allocation is amortised O(1) until a subnet fills.
import { SimError } from '../http.js';

export interface Cidr { version: 4 | 6; base: bigint; prefix: number; bits: number }

export function parseIp(s: string): { version: 4 | 6; value: bigint } | null {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) {
    const parts = s.split('.').map(Number);
    if (parts.some((p) => p > 255)) return null;
    return { version: 4, value: parts.reduce((a, p) => (a << 8n) | BigInt(p), 0n) };
  }
  if (s.includes(':')) {
    const [head = '', tail, extra] = s.split('::');
    if (extra !== undefined) return null;
    const h = head ? head.split(':') : [];
    const t = tail !== undefined && tail ? tail.split(':') : [];
    const missing = 8 - h.length - t.length;
    if (tail === undefined ? h.length !== 8 : missing < 1) return null;
    const groups = [...h, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...t];
    if (groups.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
    return { version: 6, value: groups.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n) };
  }
  return null;
}

export function formatIp(version: 4 | 6, v: bigint): string {
  if (version === 4) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 255n)).join('.');
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((v >> BigInt(i * 16)) & 0xffffn).toString(16));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  if (bestStart < 0) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLen).join(':')}`;
}

export function parseCidr(s: string): Cidr {
  const [addr = '', pfx] = s.split('/');
  const ip = parseIp(addr);
  const bits = ip?.version === 6 ? 128 : 32;
  const prefix = pfx === undefined ? bits : Number(pfx);
  if (!ip || !Number.isInteger(prefix) || prefix < 0 || prefix > bits) {
    throw new SimError(400, `Invalid input for cidr. Reason: '${s}' is not a valid IP subnet.`, 'HTTPBadRequest');
  }
  const mask = ((1n << BigInt(bits)) - 1n) ^ ((1n << BigInt(bits - prefix)) - 1n);
  return { version: ip.version, base: ip.value & mask, prefix, bits };
}

export const cidrString = (c: Cidr): string => `${formatIp(c.version, c.base)}/${c.prefix}`;
export const size = (c: Cidr): bigint => 1n << BigInt(c.bits - c.prefix);
export const contains = (c: Cidr, ip: bigint): boolean => ip >= c.base && ip < c.base + size(c);

/** Neutron defaults: gateway = first host; pool = the rest, minus the IPv4 broadcast address. */
export function defaultPool(c: Cidr, gateway: bigint | null): Array<{ start: string; end: string }> {
  const first = c.base + 1n;
  const last = c.base + size(c) - (c.version === 4 ? 2n : 1n);
  if (last < first) return [];
  if (gateway === null || gateway < first || gateway > last) return [{ start: formatIp(c.version, first), end: formatIp(c.version, last) }];
  const out: Array<{ start: string; end: string }> = [];
  if (gateway > first) out.push({ start: formatIp(c.version, first), end: formatIp(c.version, gateway - 1n) });
  if (gateway < last) out.push({ start: formatIp(c.version, gateway + 1n), end: formatIp(c.version, last) });
  return out;
}

/** Next free address in the pools, starting at the cursor; null when the subnet is full. */
export function allocate(version: 4 | 6, pools: Array<{ start: string; end: string }>, used: Set<string>, cursor: number): { ip: string; cursor: number } | null {
  const ranges = pools.map((p) => ({ s: (parseIp(p.start)?.value ?? 0n), e: (parseIp(p.end)?.value ?? -1n) }));
  const total = ranges.reduce((a, r) => a + (r.e - r.s + 1n), 0n);
  if (total <= 0n) return null;
  // Scan at most the whole pool once (bounded for IPv6 by the number of used addresses + 1).
  const limit = total < BigInt(used.size + 1) ? total : BigInt(used.size + 1);
  let off = BigInt(cursor) % total;
  for (let n = 0n; n < limit; n++) {
    let rem = off;
    for (const r of ranges) {
      const len = r.e - r.s + 1n;
      if (rem < len) {
        const ip = formatIp(version, r.s + rem);
        if (!used.has(ip)) return { ip, cursor: Number((off + 1n) % total) };
        break;
      }
      rem -= len;
    }
    off = (off + 1n) % total;
  }
  return null;
}
