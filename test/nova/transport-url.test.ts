/**
 * The transport URL's check (src/nova/transport-url.ts; nova-operator.md, TransportURLSecret): an explicit port on
 * every host, no IPv6 literal, the rabbit scheme; the hosts and ports of an accepted URL; a rejection never quotes
 * user info.
 */
import { expect } from 'chai';
import { checkTransportURL } from '../../src/nova/transport-url.js';

const PASSWORD = 'pa:ss@w0rd';
const ENCODED = encodeURIComponent(PASSWORD);

describe('nova transport URL check', () => {
  const accepted: Array<[string, string, Array<{ host: string; port: number }>]> = [
    ['a host name with an explicit port is accepted', `rabbit://nova:${ENCODED}@rabbit.openstack.svc:5672/nova`, [{ host: 'rabbit.openstack.svc', port: 5672 }]],
    ['an IPv4 address with an explicit port is accepted', 'rabbit://nova:x@10.0.0.5:5671/', [{ host: '10.0.0.5', port: 5671 }]],
    ['several hosts, each with its port, are accepted in order', 'rabbit://a:x@r1:5672,b:y@r2:5673/vh?ssl=1', [{ host: 'r1', port: 5672 }, { host: 'r2', port: 5673 }]],
    ['a URL without user info or vhost is accepted', 'rabbit://r1:5672', [{ host: 'r1', port: 5672 }]],
  ];
  for (const [title, url, hosts] of accepted) {
    it(title, () => expect(checkTransportURL(url)).to.deep.equal({ ok: true, hosts }));
  }

  const rejected: Array<[string, string, string]> = [
    ['a host without an explicit port is rejected', `rabbit://nova:${ENCODED}@rabbit.openstack.svc/nova`, 'has no explicit port'],
    ['one host of several without a port is rejected, naming which', 'rabbit://a:x@r1:5672,b:y@r2/vh', 'host 2 of 2 has no explicit port'],
    ['an empty port is rejected', 'rabbit://a:x@r1:/vh', 'an empty port'],
    ['a port that is not a number is rejected', 'rabbit://a:x@r1:amqp/vh', 'not a number from 1 to 65535'],
    ['a port out of range is rejected', 'rabbit://a:x@r1:70000/vh', 'not a number from 1 to 65535'],
    ['a bracketed IPv6 literal host is rejected', 'rabbit://a:x@[fd00::5]:5672/vh', 'IPv6 literal ([fd00::5])'],
    ['an unbracketed IPv6 literal host is rejected', 'rabbit://a:x@fd00::5:5672/vh', 'IPv6 literal without brackets'],
    ['another scheme is rejected', 'amqp://a:x@r1:5672/', 'not rabbit'],
    ['a text that is not a URL is rejected', 'rabbit.openstack.svc:5672', 'not a URL'],
  ];
  for (const [title, url, says] of rejected) {
    it(title, () => {
      const check = checkTransportURL(url);
      expect(check.ok).to.equal(false);
      expect(!check.ok && check.problem).to.include(says);
    });
  }

  it('a rejection never quotes the password or a part of it, also when a raw @ or : moved part of it into the host or port', () => {
    for (const url of [`rabbit://nova:${PASSWORD}/vh`, `rabbit://nova:${ENCODED}@[::1]:5672/`, `rabbit://nova:${ENCODED}@r1/`, 'rabbit://nova:hunter2/', 'rabbit://nova:hun:ter2/']) {
      const check = checkTransportURL(url);
      expect(check.ok, url).to.equal(false);
      const problem = check.ok ? '' : check.problem;
      for (const secret of [PASSWORD, ENCODED, 'hunter2', 'ter2', 'w0rd', 'hun']) expect(problem, url).to.not.include(secret);
    }
  });
});
