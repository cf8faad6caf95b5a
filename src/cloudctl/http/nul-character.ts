// Where a request carries U+0000. PostgreSQL stores no NUL in text or jsonb (22P05, "\u0000 cannot be
// converted to text"), so a string with one would fail at the database as a 500, after part of the
// work is done; the server refuses it up front, as a bad request naming where it is.

/** The path to the first string or object key holding U+0000, or undefined when there is none. */
export function findNul(
  value: unknown,
  path: readonly (string | number)[] = [],
): (string | number)[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? [...path] : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNul(item, [...path, index]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return [...path, key];
      const found = findNul(item, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
