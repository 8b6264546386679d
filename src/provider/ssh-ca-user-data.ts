/**
 * Managed cloud-init augmentation for `sshInjection: ca` (server-api.md: "With an SSH certificate
 * authority … the payload must additionally support managed cloud-init augmentation (which excludes
 * gzip)"). The user's payload is never edited: it travels unmodified (base64-encoded; a payload that
 * is MIME multipart already, nested as it is) as the first part of a MIME multipart archive, the format cloud-init reads many parts from, and Regent's part follows:
 * a #cloud-config that writes the CA's public key and points sshd's TrustedUserCAKeys at it, so users log
 * in with certificates the CA signs. Regent's part merges into the user's cloud-config (lists appended,
 * the user's keys kept), so a user's own write_files or runcmd survive.
 *
 * Pure: the same inputs give the same bytes (the boundary is derived from them). The API refuses a gzip
 * payload for a `ca` server before it is stored (src/api/user-data.ts); here one is refused again.
 */
import { createHash } from 'node:crypto';
import YAML from 'yaml';

export const CA_KEY_PATH = '/etc/ssh/regent_user_ca.pub';
export const SSHD_DROP_IN_PATH = '/etc/ssh/sshd_config.d/50-regent-user-ca.conf';

export class UnaugmentableUserData extends Error {}

/** cloud-init's content type for a part, from its first line (as cloud-init's own detection reads it). */
const contentTypeOf = (text: string): string => {
  const first = (text.split(/\r?\n/, 1)[0] ?? '').trimEnd();
  if (first.startsWith('#cloud-config')) return 'text/cloud-config';
  if (first.startsWith('#!')) return 'text/x-shellscript';
  if (first === '#include-once') return 'text/x-include-once-url';
  if (first.startsWith('#include')) return 'text/x-include-url';
  if (first.startsWith('#cloud-boothook')) return 'text/cloud-boothook';
  if (first.startsWith('#part-handler')) return 'text/part-handler';
  if (/^## template:\s*jinja/i.test(first)) return 'text/jinja2';
  return 'text/plain';
};

/** Regent's own part: the CA key, the sshd drop-in, and a reload (sshd without an Include line gets the directive appended). */
export const caCloudConfig = (publicKey: string): string =>
  `#cloud-config\n${YAML.stringify({
    merge_how: [
      { name: 'list', settings: ['append'] },
      { name: 'dict', settings: ['no_replace', 'recurse_list'] },
    ],
    write_files: [
      { path: CA_KEY_PATH, permissions: '0644', owner: 'root:root', content: `${publicKey.trim()}\n` },
      { path: SSHD_DROP_IN_PATH, permissions: '0644', owner: 'root:root', content: `TrustedUserCAKeys ${CA_KEY_PATH}\n` },
    ],
    runcmd: [
      [
        'sh',
        '-c',
        `grep -qs '^Include /etc/ssh/sshd_config.d' /etc/ssh/sshd_config || grep -qs '^TrustedUserCAKeys' /etc/ssh/sshd_config || echo 'TrustedUserCAKeys ${CA_KEY_PATH}' >> /etc/ssh/sshd_config; systemctl reload ssh 2>/dev/null || systemctl reload sshd 2>/dev/null || service ssh reload 2>/dev/null || true`,
      ],
    ],
  }, { lineWidth: 0 })}`;

const wrap76 = (base64: string): string => base64.replace(/.{1,76}/g, '$&\r\n');

/**
 * The user data Nova receives for a `ca` server: a MIME multipart of the user's payload (when there is
 * one) and Regent's CA part. `userData` is the decoded payload text; gzip is refused.
 */
export const augmentUserDataWithCa = (userData: Buffer | undefined, publicKey: string): string => {
  if (userData && userData[0] === 0x1f && userData[1] === 0x8b) throw new UnaugmentableUserData('a gzip payload cannot carry the SSH certificate authority');
  const ours = caCloudConfig(publicKey);
  const boundary = `==REGENT-${createHash('sha256').update(userData ?? Buffer.alloc(0)).update(ours).digest('hex').slice(0, 32)}==`;
  const parts: string[] = [];
  const text = userData?.toString('utf8') ?? '';
  if (/^(content-type:\s*multipart\/|mime-version:)/i.test(text)) {
    // already MIME: nested as it is (its headers become the part's), cloud-init walks nested multiparts
    parts.push(text);
  } else if (userData && userData.length > 0) {
    parts.push(
      [
        `Content-Type: ${contentTypeOf(text)}; charset="utf-8"`,
        'MIME-Version: 1.0',
        'Content-Transfer-Encoding: base64',
        'Content-Disposition: attachment; filename="user-data"',
        '',
        wrap76(userData.toString('base64')),
      ].join('\r\n'),
    );
  }
  parts.push(['Content-Type: text/cloud-config; charset="utf-8"', 'MIME-Version: 1.0', 'Content-Transfer-Encoding: base64', 'Content-Disposition: attachment; filename="regent-ssh-ca.cfg"', '', wrap76(Buffer.from(ours, 'utf8').toString('base64'))].join('\r\n'));
  return [`Content-Type: multipart/mixed; boundary="${boundary}"`, 'MIME-Version: 1.0', '', ...parts.map((p) => `--${boundary}\r\n${p}`), `--${boundary}--`, ''].join('\r\n');
};
