/**
 * Serialisation of `data` and `metadata`. Every adapter stores JSON text, so the memory adapter has the
 * same semantics as sqlite: what comes back is what JSON can carry (no undefined fields, no Dates, no
 * shared references), and a caller mutating a returned event cannot change the store.
 */
import { InvalidStoreRequest } from '../errors.js';

export const toJson = (value: unknown, what: string): string => {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InvalidStoreRequest(`${what} is not JSON-serialisable`, { cause: error });
  }
  // JSON.stringify returns undefined for undefined and functions: storing "undefined" would not parse back.
  if (text === undefined) throw new InvalidStoreRequest(`${what} is not JSON-serialisable`);
  return text;
};
