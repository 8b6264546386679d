/**
 * The thin I/O half of clouds.yaml loading: find the first clouds.yaml that exists (OS_CLIENT_CONFIG_FILE, else
 * ./clouds.yaml, ~/.config/openstack/clouds.yaml, /etc/openstack/clouds.yaml), read it, and hand both to the pure
 * resolveCloudConfig. Tests pass their own `readFile`.
 */
import { readFile as fsReadFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { CloudConfig, Env } from './clouds-config.js';
import { cloudsYamlCandidates, resolveCloudConfig } from './clouds-config.js';

export interface LoadOptions {
  env?: Env;
  /** Overrides OS_CLOUD. */
  cloudName?: string;
  cwd?: string;
  home?: string;
  /** Resolves to undefined when the file does not exist. */
  readFile?: (path: string) => Promise<string | undefined>;
}

const readIfExists = async (path: string): Promise<string | undefined> => {
  try {
    return await fsReadFile(path, 'utf8');
  } catch (error: unknown) {
    if (typeof error === 'object' && error !== null && ['ENOENT', 'ENOTDIR'].includes(String((error as { code?: unknown }).code))) return undefined;
    throw error;
  }
};

/** Load the CloudConfig selected by the environment (or `cloudName`). */
export const loadCloudConfig = async (options: LoadOptions = {}): Promise<CloudConfig> => {
  const env = options.env ?? process.env;
  const read = options.readFile ?? readIfExists;
  const wantsFile = (options.cloudName ?? env.OS_CLOUD ?? '') !== '';
  let found: { path: string; contents: string } | undefined;
  if (wantsFile) {
    for (const path of cloudsYamlCandidates(env, options.cwd ?? process.cwd(), options.home ?? homedir())) {
      const contents = await read(path);
      if (contents !== undefined) {
        found = { path, contents };
        break;
      }
    }
  }
  return resolveCloudConfig({ env, ...(found ? { cloudsYaml: found } : {}), ...(options.cloudName !== undefined ? { cloudName: options.cloudName } : {}) });
};
