// One event of a watch stream, as the API server wrote it: its type, and its object as the JSON
// bytes of the line, not built into an object. The agent forwards those bytes (scrubbed) instead of
// parsing and re-serializing every object; the few events it must read (bookmarks, errors) it parses.
import { isRecord } from '../lib/is-record.ts';
import { forEachMember, keyIs, pastValue, skipSpace, stringAt } from '../lib/json-scan.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  /** The object's JSON, a view into the stream's chunk: copy what is kept. */
  bytes: Buffer;
}

const WATCH_TYPES: ReadonlySet<unknown> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
const isWatchType = (value: unknown): value is WatchEventType => WATCH_TYPES.has(value);

/** The event's object, parsed: for bookmarks and errors, small and rare. */
export function watchObject(event: WatchEvent): Record<string, unknown> {
  const object: unknown = JSON.parse(event.bytes.toString('utf8'));
  return isRecord(object) ? object : {};
}

/**
 * The event of one line, or undefined for a line that is not one. The API server writes the object
 * as the last member (`{"type":…,"object":{…}}`), so the object is taken to run to the last brace
 * before the event's own, without a walk through it; the head scan that follows (object-head.ts)
 * checks it is exactly one object, so a layout where another object follows it fails there rather
 * than passing as the object. A line the scan cannot read at all is parsed whole.
 */
export function parseWatchLine(line: Buffer): WatchEvent | undefined {
  const start = skipSpace(line, 0);
  if (start === line.length) return undefined;
  let end = line.length - 1;
  while (end > 0 && line[end] !== 0x7d) end--;
  let type: unknown;
  let object: { start: number; end: number } | undefined;
  try {
    forEachMember(line, start, false, (keyStart, keyEnd, valueStart) => {
      if (keyIs(line, keyStart, keyEnd, 'object') && line[valueStart] === 0x7b) {
        // Up to the line's last brace but one (the event's own); trailing spaces are trimmed.
        let objectEnd = end;
        while (objectEnd > valueStart && line[objectEnd - 1] !== 0x7d) objectEnd--;
        object = { start: valueStart, end: objectEnd };
        return objectEnd;
      }
      const valueEnd = pastValue(line, valueStart, false, 1);
      if (keyIs(line, keyStart, keyEnd, 'type')) type = stringAt(line, valueStart, valueEnd);
      return valueEnd;
    });
  } catch {
    return parsedWhole(line);
  }
  if (!isWatchType(type) || object === undefined) return undefined;
  return { type, bytes: line.subarray(object.start, object.end) };
}

function parsedWhole(line: Buffer): WatchEvent | undefined {
  const event: unknown = JSON.parse(line.toString('utf8'));
  if (!isRecord(event) || !isWatchType(event.type) || !isRecord(event.object)) return undefined;
  return { type: event.type, bytes: Buffer.from(JSON.stringify(event.object)) };
}
