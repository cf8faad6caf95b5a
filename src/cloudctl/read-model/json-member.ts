// The text of one top-level member of a JSON object, found without parsing the rest: most cached
// objects are raw (ConfigMaps, Secrets, ...) and the read model needs only their metadata, which
// the API server writes before their (larger) data. Strings are skipped whole, escapes included,
// so a "metadata" inside a value or deeper in the object is never taken for the member.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** The index just past the string that starts (with its quote) at `start`. */
function pastString(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i + 1;
    else i++;
  }
  return json.length;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The JSON text of member `name` of the top-level object `json` when its value is an object;
 * undefined when there is none (or the text is not what this reads: callers then parse it whole).
 */
export function objectMemberText(json: string, name: string): string | undefined {
  const key = JSON.stringify(name);
  let depth = 0;
  let i = 0;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      const end = pastString(json, i);
      if (depth === 1 && end - i === key.length && json.startsWith(key, i)) {
        let j = end;
        while (isSpace(json.charCodeAt(j))) j++;
        if (json.charCodeAt(j) === COLON) {
          j++;
          while (isSpace(json.charCodeAt(j))) j++;
          if (json.charCodeAt(j) !== OPEN_BRACE) return undefined;
          return valueEnd(json, j);
        }
      }
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    i++;
  }
  return undefined;
}

/** The object that opens at `start`, as text; undefined when it never closes. */
function valueEnd(json: string, start: number): string | undefined {
  let depth = 0;
  let i = start;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      i = pastString(json, i);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return json.slice(start, i + 1);
    }
    i++;
  }
  return undefined;
}
