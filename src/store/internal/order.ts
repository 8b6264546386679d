/**
 * Stream-name ordering. SQLite's BINARY collation compares UTF-8 bytes, which is Unicode code-point
 * order; JavaScript's default string order compares UTF-16 code units and disagrees for characters
 * above U+FFFF versus U+E000–U+FFFF. The memory adapter uses this comparison so both list streams alike.
 */
export const compareCodePoints = (a: string, b: string): number => {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x - y;
    // A surrogate pair was compared as one code point: skip its low half.
    if (x > 0xffff) i += 1;
  }
  return a.length - b.length;
};
