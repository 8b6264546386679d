/**
 * The transport URL's shape, checked before the TransportURLSecret step writes `{name}-transport-url`
 * (nova-operator.md, "Pipeline", TransportURLSecret: "A brownfield URL without an explicit port or with an IPv6
 * literal host sets SecretsReady False with the reason TransportURLRejected before the derived Secret is written, so
 * a restarting pod keeps the last accepted URL: nova expands the cell mapping's {hostname}:{port} template from it").
 *
 * Why those two: the cell mapping nova-manage stores is the template `rabbit://{username}:{password}@{hostname}:
 * {port}/…`, which every nova process expands from its own URL. A URL without a port expands `{port}` to nothing
 * (a host `broker:` no client can dial), and an IPv6 literal expands `{hostname}` without its brackets, so the colons
 * of the address run into the port. Either way every process that reads the cell mapping loses the bus, after a
 * restart picks the URL up — hence the check before the write, not after.
 *
 * The grammar is oslo.messaging's: `rabbit://[user:pass@]host:port[,[user:pass@]host:port…]/[vhost][?query]`.
 * The result names hosts and ports only: user info never leaves this module. A rejection quotes no part of the URL
 * but a bracketed IPv6 literal: a password holding a raw `@` or `:` moves part of itself into what parses as the host
 * or the port, so a message quoting either could carry it. It names the host by its place instead (host 2 of 3).
 */

export const TRANSPORT_SCHEME = 'rabbit';

export interface BrokerHost {
  host: string;
  port: number;
}

export type TransportURLCheck = { ok: true; hosts: BrokerHost[] } | { ok: false; problem: string };

/** Checks a transport URL; the problem names the host at fault by its place (1-based when there are several). */
export const checkTransportURL = (url: string): TransportURLCheck => {
  const reject = (problem: string): TransportURLCheck => ({ ok: false, problem });
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  if (!scheme) return reject('it is not a URL of the form rabbit://host:port/vhost');
  if (scheme[1]!.toLowerCase() !== TRANSPORT_SCHEME) return reject(`its scheme is ${scheme[1]}, not ${TRANSPORT_SCHEME} (nova's bus is RabbitMQ)`);
  const rest = url.slice(scheme[0].length);
  const end = rest.search(/[/?#]/);
  const netloc = end === -1 ? rest : rest.slice(0, end);
  const entries = netloc.split(',');
  const hosts: BrokerHost[] = [];
  for (const [index, entry] of entries.entries()) {
    const which = entries.length > 1 ? `host ${index + 1} of ${entries.length}` : 'the host';
    // user info ends at the last @: a password may carry an encoded @, never a raw one after the host
    const hostPort = entry.slice(entry.lastIndexOf('@') + 1);
    if (hostPort === '') return reject(`${which} is empty`);
    const why = "nova expands the cell mapping's {hostname} without brackets, so its colons would run into the port; name the broker by a host name";
    const literal = /^\[[0-9A-Fa-f:.]*\]/.exec(hostPort);
    if (literal) return reject(`${which} is an IPv6 literal (${literal[0]}): ${why}`);
    // not quoted: colons without brackets are an IPv6 address, or user info that lost its @ (then it holds the password)
    if ((hostPort.match(/:/g)?.length ?? 0) > 1) return reject(`${which} is an IPv6 literal without brackets: ${why}`);
    if (hostPort.startsWith('[')) return reject(`${which} opens a bracket it does not close`);
    const colon = hostPort.lastIndexOf(':');
    if (colon === -1) return reject(`${which} has no explicit port: nova expands the cell mapping's {port} from the URL, and an absent port expands to nothing`);
    const host = hostPort.slice(0, colon);
    const portText = hostPort.slice(colon + 1);
    if (host === '') return reject(`${which} names no host before its port`);
    if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      return reject(`${which} has ${portText === '' ? 'an empty port' : 'a port that is not a number from 1 to 65535'}: nova expands the cell mapping's {port} from the URL`);
    }
    hosts.push({ host, port: Number(portText) });
  }
  return { ok: true, hosts };
};
