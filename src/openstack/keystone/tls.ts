/**
 * TLS for OpenStack endpoints: a private CA bundle (clouds.yaml `cacert`, OS_CACERT) becomes an https.Agent that
 * trusts exactly that CA; `verify: false` an agent that skips verification (for labs only; logged at warn).
 */
import https from 'node:https';
import { readFile } from 'node:fs/promises';
import type { Logger } from '../../log/logger.js';
import { InvalidConfig } from '../errors.js';
import type { CloudConfig } from './clouds-config.js';

/** An agent from a CA bundle's PEM text and the verify flag (pure apart from constructing the agent). */
export const agentFor = (options: { caPem?: string; verify: boolean }): https.Agent | undefined => {
  if (!options.verify) return new https.Agent({ rejectUnauthorized: false, keepAlive: true });
  if (options.caPem !== undefined) return new https.Agent({ ca: options.caPem, keepAlive: true });
  return undefined;
};

/** Read the cloud's CA bundle (if any) and build its agent; undefined means Node's defaults. */
export const httpsAgentForCloud = async (cloud: CloudConfig, logger?: Logger, read: (path: string) => Promise<string> = (p) => readFile(p, 'utf8')): Promise<https.Agent | undefined> => {
  if (!cloud.verify) logger?.warn('TLS verification is disabled for this cloud (verify: false)', { cloud: cloud.cloudName });
  let caPem: string | undefined;
  if (cloud.cacertPath !== undefined && cloud.verify) {
    try {
      caPem = await read(cloud.cacertPath);
    } catch {
      throw new InvalidConfig(`cacert '${cloud.cacertPath}' cannot be read`);
    }
    if (!caPem.includes('-----BEGIN CERTIFICATE-----')) throw new InvalidConfig(`cacert '${cloud.cacertPath}' holds no PEM certificate`);
  }
  return agentFor({ ...(caPem !== undefined ? { caPem } : {}), verify: cloud.verify });
};
