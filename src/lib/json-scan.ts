// Reads JSON bytes without building them into objects: where a value starts and ends, and the
// members of an object, checked as strictly as JSON.parse checks them but allocating nothing. The
// watch path uses it to forward the API server's bytes as they came (finding only the few fields it
// needs), and cloudctl to check those bytes are one JSON object before it stores them as text.
import { CodedError } from './coded-error.ts';

export class JsonScanError extends CodedError<'INVALID_JSON'> {
  constructor(message: string, at: number) {
    super('INVALID_JSON', `${message} at byte ${at}`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** Nesting deeper than this is refused rather than risk the stack (the API server allows ~10k bytes of it). */
const MAX_DEPTH = 512;

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The first index at or after `i` that is not JSON whitespace. */
export function skipSpace(b: Uint8Array, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/** What may follow a backslash in a JSON string (`u` is checked for its four hex digits). */
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const isHex = (c: number | undefined) =>
  c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));

/**
 * How values are checked: `false`, their structure alone (strings skipped by a native search for
 * their end); `true`, every byte as JSON.parse would; `'control-free'`, as strictly, for bytes known
 * to hold no control character (U+0000–U+001F, raw whitespace included), whose strings can then be
 * crossed by native searches for their quotes and backslashes.
 */
export type Strictness = boolean | 'control-free';

/** The index just past the escape whose backslash is at `i`, checked. */
function pastEscape(b: Buffer, i: number): number {
  const next = b[i + 1];
  if (next === 0x75) {
    if (!(isHex(b[i + 2]) && isHex(b[i + 3]) && isHex(b[i + 4]) && isHex(b[i + 5])))
      throw new JsonScanError('bad \\u escape', i);
    return i + 6;
  }
  if (next !== undefined && ESCAPES.has(next)) return i + 2;
  throw new JsonScanError('bad escape', i);
}

/** The index just past the string whose opening quote is at `start`. */
export function pastString(b: Buffer, start: number): number {
  for (let i = start + 1; i < b.length; i++) {
    const c = b[i] as number;
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) i = pastEscape(b, i) - 1;
    else if (c < 0x20) throw new JsonScanError('control character in a string', i);
  }
  throw new JsonScanError('unterminated string', start);
}

/**
 * The index just past the string whose opening quote is at `start`, its end found by native search.
 * Most strings are short (keys, names): a loop finds their end soonest. A long one (a ConfigMap's
 * value) goes to the native search, whose call costs about what 30 bytes of the loop do. `checked`:
 * each escape is checked, for bytes known to hold no control character (as strict as `pastString`);
 * else the content is trusted (the API server's own output): only quotes and backslashes are looked at.
 */
function searchedStringEnd(b: Buffer, start: number, checked: boolean): number {
  const short = Math.min(b.length, start + 33);
  let i = start + 1;
  for (; i < short; i++) {
    const c = b[i];
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) i = checked ? pastEscape(b, i) - 1 : i + 1;
  }
  for (;;) {
    const quote = b.indexOf(QUOTE, i);
    if (quote < 0) throw new JsonScanError('unterminated string', start);
    if (checked) {
      // The search for backslashes stops at the quote: past it they belong to other strings.
      const upToQuote = b.subarray(0, quote);
      for (let slash = upToQuote.indexOf(BACKSLASH, i); slash >= 0; slash = upToQuote.indexOf(BACKSLASH, i))
        i = pastEscape(b, slash);
      // An escape may have taken the quote itself (`\"`): then the string goes on past it.
      if (i <= quote) return quote + 1;
    } else {
      // A quote after an odd number of backslashes is part of the string.
      let slashes = 0;
      while (b[quote - 1 - slashes] === BACKSLASH && quote - 1 - slashes > start) slashes++;
      if (slashes % 2 === 0) return quote + 1;
      i = quote + 1;
    }
  }
}

/** The index just past the string whose opening quote is at `start`, checked as `strict` says. */
function stringEnd(b: Buffer, start: number, strict: Strictness): number {
  if (strict === 'control-free') return searchedStringEnd(b, start, true);
  return strict ? pastString(b, start) : searchedStringEnd(b, start, false);
}

/** A literal or number; with `strict`, checked as JSON.parse would. */
function pastScalar(b: Buffer, start: number, strict: Strictness): number {
  let i = start;
  for (;;) {
    const c = b[i];
    if (c === undefined || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
    i++;
  }
  if (i === start) throw new JsonScanError('expected a value', start);
  if (!strict) return i;
  const text = b.toString('latin1', start, i);
  if (
    text !== 'true' &&
    text !== 'false' &&
    text !== 'null' &&
    !/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(text)
  )
    throw new JsonScanError(`unexpected ${JSON.stringify(text.slice(0, 20))}`, start);
  return i;
}

/**
 * The index just past the value that starts at `start` (no leading whitespace). `strict` checks
 * every byte as JSON.parse would; without it strings are skipped by a native search for their end
 * (for the API server's own output, about twice as fast), and structure alone is checked.
 */
export function pastValue(b: Buffer, start: number, strict: Strictness, depth = 0): number {
  const c = b[start];
  if (c === QUOTE) return stringEnd(b, start, strict);
  if (c === OPEN_BRACE) return forEachMember(b, start, strict, undefined, depth + 1);
  if (c === OPEN_BRACKET) {
    if (depth >= MAX_DEPTH) throw new JsonScanError('nested too deeply', start);
    let i = skipSpace(b, start + 1);
    if (b[i] === CLOSE_BRACKET) return i + 1;
    for (;;) {
      i = skipSpace(b, pastValue(b, i, strict, depth + 1));
      if (b[i] === CLOSE_BRACKET) return i + 1;
      if (b[i] !== COMMA) throw new JsonScanError('expected , or ]', i);
      i = skipSpace(b, i + 1);
    }
  }
  return pastScalar(b, start, strict);
}

/**
 * The index just past the value that starts at `start`, found by matching brackets alone, strings
 * skipped as `pastValue` skips them: nothing between is checked. For bytes whose shape is vouched
 * for otherwise (object-head.ts, `framed`), it is about twice as fast as `pastValue` on nested
 * objects of short members (managedFields).
 */
export function skipValue(b: Buffer, start: number): number {
  const first = b[start];
  if (first === QUOTE) return searchedStringEnd(b, start, false);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return pastScalar(b, start, false);
  let depth = 0;
  for (let i = start; i < b.length; i++) {
    const c = b[i];
    if (c === QUOTE) i = searchedStringEnd(b, i, false) - 1;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
  }
  throw new JsonScanError('unterminated value', start);
}

/**
 * Called for each member (the key's quotes are at `keyStart` and `keyEnd - 1`): returns the index
 * just past the value, having read it (with `pastValue`, or entering it to read its own members).
 */
export type MemberVisitor = (keyStart: number, keyEnd: number, valueStart: number) => number;

/**
 * Walks the object whose `{` is at `start`, calling `visit` for each member (by default values are
 * checked, not entered), and returns the index just past its `}`.
 */
export function forEachMember(
  b: Buffer,
  start: number,
  strict: Strictness,
  visit?: MemberVisitor,
  depth = 0,
): number {
  if (b[start] !== OPEN_BRACE) throw new JsonScanError('expected an object', start);
  if (depth >= MAX_DEPTH) throw new JsonScanError('nested too deeply', start);
  let i = skipSpace(b, start + 1);
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) throw new JsonScanError('expected a member name', i);
    const keyEnd = stringEnd(b, i, strict);
    const colon = skipSpace(b, keyEnd);
    if (b[colon] !== COLON) throw new JsonScanError('expected :', colon);
    const valueStart = skipSpace(b, colon + 1);
    const valueEnd =
      visit === undefined ? pastValue(b, valueStart, strict, depth) : visit(i, keyEnd, valueStart);
    i = skipSpace(b, valueEnd);
    if (b[i] === CLOSE_BRACE) return i + 1;
    if (b[i] !== COMMA) throw new JsonScanError('expected , or }', i);
    i = skipSpace(b, i + 1);
  }
}

/** Whether the key between `keyStart` and `keyEnd` (quotes included) is `name` (ASCII, unescaped). */
export function keyIs(b: Buffer, keyStart: number, keyEnd: number, name: string): boolean {
  if (keyEnd - keyStart !== name.length + 2) return false;
  for (let j = 0; j < name.length; j++) if (b[keyStart + 1 + j] !== name.charCodeAt(j)) return false;
  return true;
}

/** The string value between `start` and `end` (quotes included); undefined when it is not a string. */
export function stringAt(b: Buffer, start: number, end: number): string | undefined {
  if (b[start] !== QUOTE) return undefined;
  // Only the string's own bytes are searched, by a loop: these are short (names, versions), and a
  // `subarray` to search natively cost an allocation per string, three per object of a sync.
  for (let i = start + 1; i < end - 1; i++)
    if (b[i] === BACKSLASH) return JSON.parse(b.toString('utf8', start, end)) as string;
  return b.toString('utf8', start + 1, end - 1);
}

/** Any control character, raw whitespace included: compact JSON (the API server's) has none. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is what it is for.
const CONTROL = /[\x00-\x1f]/;

/**
 * Checks that the bytes are exactly one JSON object (whitespace around it allowed). `text` is the
 * same bytes decoded, when the caller has them so (a native search of it tells whether strings can
 * be crossed natively: about twice as fast as byte by byte for a ConfigMap).
 */
export function assertJsonObject(b: Buffer, text = b.toString('latin1')): void {
  const start = skipSpace(b, 0);
  const strict: Strictness = CONTROL.test(text) ? true : 'control-free';
  const end = skipSpace(b, forEachMember(b, start, strict));
  if (end !== b.length) throw new JsonScanError('unexpected data after the object', end);
}
