// What the watch path needs to know of a Kubernetes object, read from its JSON bytes without
// building the object: its type, name, namespace and resource version, and where its managedFields
// are (the part scrubbing cuts out). The rest of the bytes go on as the API server wrote them.
import {
  forEachMember,
  JsonScanError,
  keyIs,
  pastValue,
  skipSpace,
  skipValue,
  stringAt,
} from './json-scan.ts';

export interface ObjectHead {
  apiVersion: string | undefined;
  kind: string | undefined;
  name: string;
  namespace: string;
  resourceVersion: string;
  /**
   * The bytes to cut to drop `metadata.managedFields`: the member and the comma that joins it to a
   * neighbour, so what remains is still JSON. Undefined when there is none.
   */
  managedFields: { start: number; end: number; valueStart: number; valueEnd: number } | undefined;
  /**
   * The bytes of the `metadata.annotations` value, `b.subarray(annotationsStart, annotationsEnd)`;
   * -1 when there is none. Numbers, not a range object: the watch reads 50k heads a sync.
   */
  annotationsStart: number;
  annotationsEnd: number;
}

/** Skips a value by `skim` (see `scanObjectHead`) or by walking it. */
const past = (b: Buffer, start: number, skim: boolean) =>
  skim ? skipValue(b, start) : pastValue(b, start, false, 1);

/** Reads the metadata object at `start` into `head`; returns the index just past it. */
function scanMetadata(b: Buffer, start: number, head: ObjectHead, skim: boolean): number {
  let previousEnd = -1;
  let cutFrom = -1;
  // Where the managedFields value lies, once seen.
  let fieldsStart = -1;
  let fieldsEnd = -1;
  const end = forEachMember(b, start, false, (keyStart, keyEnd, valueStart) => {
    const valueEnd = past(b, valueStart, skim);
    // The member after managedFields: cut up to it, taking the comma after managedFields.
    if (cutFrom >= 0) {
      head.managedFields = { start: cutFrom, end: keyStart, valueStart: fieldsStart, valueEnd: fieldsEnd };
      cutFrom = -1;
    }
    if (keyIs(b, keyStart, keyEnd, 'name')) head.name = stringAt(b, valueStart, valueEnd) ?? '';
    else if (keyIs(b, keyStart, keyEnd, 'namespace'))
      head.namespace = stringAt(b, valueStart, valueEnd) ?? '';
    else if (keyIs(b, keyStart, keyEnd, 'resourceVersion'))
      head.resourceVersion = stringAt(b, valueStart, valueEnd) ?? '';
    else if (keyIs(b, keyStart, keyEnd, 'annotations')) {
      head.annotationsStart = valueStart;
      head.annotationsEnd = valueEnd;
    } else if (keyIs(b, keyStart, keyEnd, 'managedFields')) {
      fieldsStart = valueStart;
      fieldsEnd = valueEnd;
      // Not the first member: cut from the end of the one before, taking the comma before it.
      if (previousEnd >= 0) head.managedFields = { start: previousEnd, end: valueEnd, valueStart, valueEnd };
      else cutFrom = keyStart;
    }
    previousEnd = valueEnd;
    return valueEnd;
  });
  // managedFields was the only member.
  if (cutFrom >= 0)
    head.managedFields = { start: cutFrom, end: previousEnd, valueStart: fieldsStart, valueEnd: fieldsEnd };
  return end;
}

/**
 * Reads the head of the JSON object in `b`, trusting its strings (the API server wrote them; see
 * `pastValue`); throws when `b` is not one object.
 *
 * With `skim`, every value the head does not enter (`managedFields`, `data`, `spec`, `status`: most
 * of the bytes) is skipped by matching its brackets (`skipValue`) instead of walked member by
 * member: the object's own members, and that it ends where `b` ends, are still checked, so a watch
 * line whose `object` is not its last member still fails here (watch-event.ts cuts the object at
 * the line's last brace but one), while the structure inside a value is left to cloudctl, which
 * checks every object strictly before storing it (caching/cache-items.ts). For the API server's
 * own output; on a sync's objects it reads the head in about two thirds of the time.
 */
export function scanObjectHead(b: Buffer, skim = false): ObjectHead {
  const head: ObjectHead = {
    apiVersion: undefined,
    kind: undefined,
    name: '',
    namespace: '',
    resourceVersion: '',
    managedFields: undefined,
    annotationsStart: -1,
    annotationsEnd: -1,
  };
  const start = skipSpace(b, 0);
  const end = forEachMember(b, start, false, (keyStart, keyEnd, valueStart) => {
    if (keyIs(b, keyStart, keyEnd, 'metadata') && b[valueStart] === 0x7b)
      return scanMetadata(b, valueStart, head, skim);
    const valueEnd = past(b, valueStart, skim);
    if (keyIs(b, keyStart, keyEnd, 'apiVersion')) head.apiVersion = stringAt(b, valueStart, valueEnd);
    else if (keyIs(b, keyStart, keyEnd, 'kind')) head.kind = stringAt(b, valueStart, valueEnd);
    return valueEnd;
  });
  if (skipSpace(b, end) !== b.length) throw new JsonScanError('unexpected data after the object', end);
  return head;
}
