// Nova's server metadata schema (nova/api/validation/parameter_types.py, `metadata`): every key matches
// ^[a-zA-Z0-9-_:. ]{1,255}$. A refusal is a 400 worded as Nova's JSON-schema error, with the value printed the
// way Python prints a dict. Real Nova refuses `{"regent.dev/uid": …}` this way; a simulator that accepted it
// hid a provider defect (docs/simulator-differences.md #5).
import { SimError } from '../http.js';

export const METADATA_KEY_PATTERN = '^[a-zA-Z0-9-_:. ]{1,255}$';
const METADATA_KEY = new RegExp(METADATA_KEY_PATTERN);

/** Python's repr of a str. */
const pyStr = (s: string): string => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);

/** Python's repr of a dict of strings. */
export const pyDict = (m: Readonly<Record<string, unknown>>): string =>
  `{${Object.entries(m).map(([k, v]) => `${pyStr(k)}: ${typeof v === 'string' ? pyStr(v) : JSON.stringify(v)}`).join(', ')}}`;

/** Nova's schema: every value a string of at most 255 characters (`'type': 'string', 'maxLength': 255`). */
export const METADATA_VALUE_MAX_LENGTH = 255;

/**
 * Throws Nova's 400 when a key does not match the metadata key pattern, or a value is longer than Nova keeps.
 * A too-long value is worded as Nova's validator words it: the path it pops is the key, the value is printed
 * as is, then jsonschema's "'…' is too long". Without the value check the simulator accepted what real Nova
 * refuses, which would hide metadata Regent builds too long (the linkage keys, issue 24).
 */
export function checkMetadataKeys(field: string, m: Readonly<Record<string, unknown>>): void {
  for (const key of Object.keys(m)) {
    if (!METADATA_KEY.test(key)) {
      throw new SimError(400, `Invalid input for field/attribute ${field}. Value: ${pyDict(m)}. ${pyStr(key)} does not match any of the regexes: '${METADATA_KEY_PATTERN}'`);
    }
  }
  for (const [key, value] of Object.entries(m)) {
    if (typeof value === 'string' && value.length > METADATA_VALUE_MAX_LENGTH) {
      throw new SimError(400, `Invalid input for field/attribute ${key}. Value: ${value}. ${pyStr(value)} is too long`);
    }
  }
}
