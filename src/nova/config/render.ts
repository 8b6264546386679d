/**
 * The Config step's renderer (nova-operator.md, "Config"; pure): nova.conf and the role overlays from the Nova's
 * spec and the port's settings, spec.extraConfig merged over them, api-paste.ini beside them, named by their
 * content: `{name}-config-<hash>`.
 *
 * Rules:
 * - Deterministic bytes: Regent's sections and keys in a fixed order, the user's additions after them sorted by
 *   name, so the same spec renders the same files (and name) whatever order its maps were written in.
 * - extraConfig wins: a key of Regent's the user sets takes the user's value, in nova.conf and in every overlay
 *   that sets it (an overlay is read after nova.conf, so leaving it there would undo the user's value). Each such
 *   key is reported (ExtraConfigHealthy, informational); so is a credential option (./env.ts), whose file value the
 *   environment overrides.
 * - A document that cannot be written as it is (./ini.ts: a control character in a section, key or value, an empty
 *   or ill-formed name) renders nothing: the caller keeps the config the roles already mount.
 * - No credential is an input, so none can reach a file, the hash or the name.
 *
 * logging.ini: the spec's Config row renders one "under json logging", but the Nova spec (src/resources/nova.ts) has
 * no logging field, so nothing asks for it and none is rendered; the roles log to stderr, oslo.log's default.
 */
import { createHash } from 'node:crypto';
import type { NovaSpec } from '../../resources/nova.js';
import { API_PASTE_INI } from './api-paste.js';
import { ENV_DELIVERED } from './env.js';
import { iniProblems, normalSection, sectionLabel, writeIni, type IniDocument } from './ini.js';
import { novaConfSections, overlayFile, overlaySections, OVERLAY_ROLES } from './sections.js';
import type { NovaConfigSettings } from './settings.js';

/** The rendered configuration the roles and the Jobs mount (RenderedNovaConfig of src/controllers/nova/pass.ts). */
export interface RenderedConfig {
  /** `{name}-config-<hash>`: the immutable ConfigMap (or directory) holding exactly these files. */
  name: string;
  hash: string;
  files: Readonly<Record<string, string>>;
}

/** One key of Regent's that spec.extraConfig sets. */
export interface OwnedKeyOverride {
  /** As the user wrote it. */
  section: string;
  key: string;
  /** A credential option: its value comes from the environment, so the file's has no effect. */
  envDelivered: boolean;
}

export type ConfigRender =
  | { ok: true; config: RenderedConfig; overridden: OwnedKeyOverride[] }
  /** `problems`: each place that cannot be written, in words (names and code points, never a value). */
  | { ok: false; problems: string[]; overridden: OwnedKeyOverride[] };

export const NOVA_CONF = 'nova.conf';
export const API_PASTE = 'api-paste.ini';
const HASH_LENGTH = 10;

export const configName = (nova: string, hash: string): string => `${nova}-config-${hash}`;
/** What a config name of this Nova looks like (a ConfigMap or directory another Nova's prefix never matches). */
export const configNamePattern = (nova: string): RegExp => new RegExp(`^${nova.replace(/[.]/g, '\\.')}-config-[0-9a-f]{${HASH_LENGTH}}$`);

/** The files' digest: every file name and content, in name order, length-prefixed so no two sets collide. */
export const configHash = (files: Readonly<Record<string, string>>): string => {
  const digest = createHash('sha256');
  for (const name of Object.keys(files).sort()) digest.update(`${name}\n${Buffer.byteLength(files[name]!)}\n`).update(files[name]!);
  return digest.digest('hex').slice(0, HASH_LENGTH);
};

type Extra = Readonly<Record<string, Readonly<Record<string, string>>>>;
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The user's keys per normalized section; sections met twice (`[Database]`, `[database]`) applied in name order. */
const userKeys = (extra: Extra): Map<string, Map<string, { section: string; value: string }>> => {
  const out = new Map<string, Map<string, { section: string; value: string }>>();
  for (const section of Object.keys(extra).sort(byName)) {
    const keys = out.get(normalSection(section)) ?? new Map<string, { section: string; value: string }>();
    for (const key of Object.keys(extra[section]!).sort(byName)) keys.set(key, { section, value: extra[section]![key]! });
    out.set(normalSection(section), keys);
  }
  return out;
};

/** nova.conf: Regent's keys (the user's value where set), then the user's new keys and sections, sorted. */
export const mergeNovaConf = (base: IniDocument, extra: Extra): IniDocument => {
  const user = userKeys(extra);
  const merged = base.map(([section, entries]) => {
    const theirs = user.get(normalSection(section)) ?? new Map();
    const ours = new Set(entries.map(([key]) => key));
    const added = [...theirs.keys()].filter((key) => !ours.has(key)).sort(byName);
    return [section, [...entries.map(([key, value]) => [key, theirs.get(key)?.value ?? value] as const), ...added.map((key) => [key, theirs.get(key)!.value] as const)]] as const;
  });
  const baseSections = new Set(base.map(([section]) => normalSection(section)));
  const extraSections = [...user.keys()].filter((section) => !baseSections.has(section)).sort(byName);
  return [...merged, ...extraSections.map((section) => [[...user.get(section)!.values()][0]!.section, [...user.get(section)!.entries()].map(([key, v]) => [key, v.value] as const)] as const)];
};

/** An overlay keeps its keys; a key the user sets takes the user's value. */
const mergeOverlay = (base: IniDocument, extra: Extra): IniDocument => {
  const user = userKeys(extra);
  return base.map(([section, entries]) => [section, entries.map(([key, value]) => [key, user.get(normalSection(section))?.get(key)?.value ?? value] as const)] as const);
};

/** Every key of Regent's: nova.conf's, the overlays', the credentials delivered as env. */
const ownedKeys = (documents: readonly IniDocument[]): Map<string, boolean> => {
  const owned = new Map<string, boolean>();
  for (const document of documents) for (const [section, entries] of document) for (const [key] of entries) owned.set(`${normalSection(section)}\n${key}`, false);
  for (const option of ENV_DELIVERED) owned.set(`${normalSection(option.section)}\n${option.key}`, true);
  return owned;
};

/** The keys of Regent's the user's extraConfig sets, in section then key order. */
export const ownedKeysOverridden = (spec: NovaSpec, settings: NovaConfigSettings): OwnedKeyOverride[] => {
  const owned = ownedKeys([novaConfSections(spec, settings), ...OVERLAY_ROLES.map((role) => overlaySections(role, settings))]);
  const extra: Extra = spec.extraConfig ?? {};
  return Object.keys(extra)
    .sort(byName)
    .flatMap((section) =>
      Object.keys(extra[section]!)
        .sort(byName)
        .flatMap((key) => {
          const envDelivered = owned.get(`${normalSection(section)}\n${key}`);
          return envDelivered === undefined ? [] : [{ section, key, envDelivered }];
        }),
    );
};

/** The override list in words: `[placement] auth_url, [DEFAULT] transport_url (from the environment: the file's value has no effect)`. */
export const describeOverrides = (overridden: readonly OwnedKeyOverride[]): string =>
  overridden.map((o) => `${sectionLabel(o.section, o.key)}${o.envDelivered ? ' (a credential Regent delivers as env: the file value has no effect)' : ''}`).join(', ');

export interface NovaConfigInput {
  /** The Nova's name (the config's name prefix). */
  name: string;
  spec: NovaSpec;
  settings: NovaConfigSettings;
}

export const renderNovaConfig = (input: NovaConfigInput): ConfigRender => {
  const extra: Extra = input.spec.extraConfig ?? {};
  const documents: Array<[string, IniDocument]> = [
    [NOVA_CONF, mergeNovaConf(novaConfSections(input.spec, input.settings), extra)],
    ...OVERLAY_ROLES.map((role) => [overlayFile(role), mergeOverlay(overlaySections(role, input.settings), extra)] as [string, IniDocument]),
  ];
  const overridden = ownedKeysOverridden(input.spec, input.settings);
  // the same user value lands in nova.conf and an overlay: named once
  const problems = [...new Set(documents.flatMap(([, document]) => iniProblems(document).map((p) => p.message)))];
  if (problems.length > 0) return { ok: false, problems, overridden };
  const files: Record<string, string> = Object.fromEntries([...documents.map(([file, document]) => [file, writeIni(document)] as const), [API_PASTE, API_PASTE_INI] as const].sort(([a], [b]) => byName(a, b)));
  const hash = configHash(files);
  return { ok: true, config: { name: configName(input.name, hash), hash, files }, overridden };
};
