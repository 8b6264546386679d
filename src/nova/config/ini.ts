/**
 * The INI documents Regent renders for Nova (nova.conf, the role overlays, the compute contract's fragment): an
 * ordered list of sections, each an ordered list of key/value pairs, written as oslo.config reads them. Pure.
 *
 * Why a checker and not an escaper: oslo.config's parser has no quoting, so a newline in a value (or a key, or a
 * section name) would start a line of its own — `debug = false\n[database]\nconnection = …` in one extraConfig
 * value rewrites another section. Nothing can be escaped, so a document carrying such a character is refused as a
 * whole and the caller keeps what it had (nova-operator.md, "Config": "a section carrying a control character is not
 * re-rendered").
 */

export type IniSection = readonly [name: string, entries: ReadonlyArray<readonly [key: string, value: string]>];
export type IniDocument = readonly IniSection[];

/**
 * What cannot be written: Unicode control characters (C0, DEL, C1 — NEL among them) and the line and paragraph
 * separators (Python's str.splitlines breaks lines on every one of them).
 */
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}]/u;

/** What makes a document unwritable, naming the place and the code point, never the value. */
export interface IniProblem {
  section: string;
  key?: string;
  message: string;
}

const codePoint = (text: string): string => {
  const found = CONTROL.exec(text)?.[0] ?? '';
  return `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
};

/** A name as it may appear in a message: JSON-quoted, so a control character in it is shown escaped. */
const shown = (name: string): string => (CONTROL.test(name) ? JSON.stringify(name) : name);

export const sectionLabel = (section: string, key?: string): string => `[${shown(section)}]${key === undefined ? '' : ` ${shown(key)}`}`;

/**
 * Every reason the document cannot be written as it is: a control character in a section name, a key or a value;
 * an empty name; a key holding `=` or `:` (oslo.config would split the line there, so the option set would not be
 * the one named); a section name holding `[` or `]`.
 */
export const iniProblems = (document: IniDocument): IniProblem[] => {
  const problems: IniProblem[] = [];
  for (const [section, entries] of document) {
    if (section === '') problems.push({ section, message: 'a section has an empty name' });
    else if (CONTROL.test(section)) problems.push({ section, message: `section ${sectionLabel(section)}: its name carries a control character (${codePoint(section)})` });
    else if (/[[\]]/.test(section)) problems.push({ section, message: `section ${sectionLabel(section)}: its name carries a bracket` });
    for (const [key, value] of entries) {
      const where = sectionLabel(section, key);
      if (key === '') problems.push({ section, key, message: `section ${sectionLabel(section)} has a key with an empty name` });
      else if (CONTROL.test(key)) problems.push({ section, key, message: `${where}: the key carries a control character (${codePoint(key)})` });
      else if (/[=:]/.test(key)) problems.push({ section, key, message: `${where}: the key carries "=" or ":"` });
      if (CONTROL.test(value)) problems.push({ section, key, message: `${where}: the value carries a control character (${codePoint(value)})` });
    }
  }
  return problems;
};

export const hasControlCharacter = (text: string): boolean => CONTROL.test(text);

/** The document's bytes: `[section]` then `key = value` lines, a blank line between sections. Empty sections are left out. */
export const writeIni = (document: IniDocument): string =>
  document
    .filter(([, entries]) => entries.length > 0)
    .map(([section, entries]) => `[${section}]\n${entries.map(([key, value]) => `${key} = ${value}\n`).join('')}`)
    .join('\n');

/**
 * How oslo.config 9 (Zed) matches a section (checked against it): a group name case-insensitively (`[Database]` is
 * [database]), DEFAULT only as written (`[default]` is a group of its own), and keys exactly (`auth-url` is not
 * auth_url). A user's section meets one of Regent's in this form.
 */
export const normalSection = (section: string): string => (section === 'DEFAULT' ? section : section.toLowerCase());
