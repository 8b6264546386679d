/**
 * Reading deploy/: the plain manifests as YAML documents, and Helm templates turned into YAML by
 * replacing template actions with placeholders (helm is not available here, so the chart is checked
 * structurally, not rendered).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DEPLOY = join(ROOT, 'deploy');
export const MANIFESTS = join(DEPLOY, 'manifests');
export const CHART = join(DEPLOY, 'helm', 'regent');

export const read = (...parts: string[]): string => readFileSync(join(ROOT, ...parts), 'utf8');
export const yamlFiles = (dir: string): string[] => readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();

/** A Kubernetes object, loosely typed: tests navigate it with `at`. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

export interface Loaded {
  readonly file: string;
  readonly object: KubeObject;
}

/** Parses every document of a YAML text strictly (duplicate keys and syntax errors throw). */
export const parseDocuments = (text: string, file: string): unknown[] =>
  parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true }).flatMap((doc) => {
    const problems = [...doc.errors, ...doc.warnings];
    if (problems.length > 0) throw new Error(`${file}: ${problems.map((p) => p.message).join('; ')}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [value];
  });

const asObject = (value: unknown, file: string): KubeObject => {
  const o = value as Partial<KubeObject>;
  if (typeof o !== 'object' || o === null || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string') {
    throw new Error(`${file}: a document without apiVersion, kind and metadata.name`);
  }
  return o as KubeObject;
};

export const loadManifests = (): Loaded[] =>
  yamlFiles(MANIFESTS).flatMap((file) => parseDocuments(readFileSync(join(MANIFESTS, file), 'utf8'), file).map((value) => ({ file, object: asObject(value, file) })));

/** Exactly one object of a kind (and name, when given). */
export const only = (objects: readonly Loaded[], kind: string, name?: string): KubeObject => {
  const found = objects.filter((o) => o.object.kind === kind && (name === undefined || o.object.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0]!.object;
};

/** Walks a path of keys and indexes; undefined when any step is missing. */
export const at = (value: unknown, ...path: Array<string | number>): unknown => {
  let current = value;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[step];
  }
  return current;
};

// ---------------------------------------------------------------------------------------------
// Helm templates without helm

export const PLACEHOLDER = '__TPL__';
const ACTION = /\{\{-?([\s\S]*?)-?\}\}/g;
/** Actions that produce no text of their own (control flow, definitions, comments, fail). */
const CONTROL = /^\s*(?:if\b|else\b|end\b|with\b|range\b|define\b|block\b|fail\b|\/\*)/;

/** Every template action's text (between the delimiters, trimmed). */
export const actionsOf = (template: string): string[] => [...template.matchAll(ACTION)].map((m) => (m[1] ?? '').trim());

/**
 * A template as YAML: control actions are removed (both branches of an if/else stay, so templates
 * keep distinct keys in their branches), an action alone on a line (an `include … | nindent` block)
 * becomes a comment, and an inline action becomes the scalar __TPL__.
 */
export const templateAsYaml = (template: string): string =>
  template
    // multi-line actions (comments) first: the line-by-line pass below sees one line at a time
    .replace(ACTION, (whole, inner: string) => (whole.includes('\n') && CONTROL.test(inner) ? '' : whole))
    .split('\n')
    .flatMap((line) => {
      const withoutControl = line.replace(ACTION, (whole, inner: string) => (CONTROL.test(inner) ? '' : whole));
      if (withoutControl.trim() === '' && line.trim() !== '') return [];
      const alone = /^\s*\{\{-?[\s\S]*?-?\}\}\s*$/.exec(withoutControl);
      if (alone) return [`${withoutControl.slice(0, withoutControl.search(/\S/))}# ${PLACEHOLDER}`];
      return [withoutControl.replace(ACTION, PLACEHOLDER)];
    })
    .join('\n');

/** The defines of _helpers.tpl whose body is plain text (no actions), by name. */
export const literalDefines = (helpers: string): Map<string, string> =>
  new Map(
    [...helpers.matchAll(/\{\{-?\s*define\s+"([^"]+)"\s*-?\}\}([\s\S]*?)\{\{-?\s*end\s*-?\}\}/g)]
      .filter((m) => !(m[2] ?? '').includes('{{'))
      .map((m) => [m[1]!, (m[2] ?? '').trim()]),
  );

/** Replaces `{{ include "x" . }}` of a literal define with its text (what helm would render). */
export const expandLiteralIncludes = (template: string, defines: ReadonlyMap<string, string>): string =>
  template.replace(/\{\{-?\s*include\s+"([^"]+)"\s+\.\s*-?\}\}/g, (whole, name: string) => defines.get(name) ?? whole);

export const chartTemplates = (): Array<{ file: string; text: string }> =>
  readdirSync(join(CHART, 'templates'))
    .sort()
    .map((file) => ({ file, text: readFileSync(join(CHART, 'templates', file), 'utf8') }));

export const loadChartObjects = (): Loaded[] => {
  const templates = chartTemplates();
  const defines = literalDefines(templates.find((t) => t.file === '_helpers.tpl')?.text ?? '');
  return templates
    .filter((t) => /\.ya?ml$/.test(t.file))
    .flatMap(({ file, text }) => parseDocuments(templateAsYaml(expandLiteralIncludes(text, defines)), file).map((value) => ({ file, object: asObject(value, file) })));
};
