// Makes an object fit to leave the cluster, whether the agent's watch sends it or cloudctl stores a
// copy read on demand: Secret values are blanked (keys are kept, so a user sees what a Secret holds
// without its contents), including the copy kubectl keeps in the last-applied annotation, and
// managedFields are dropped (bookkeeping, often a third of an object's size).
import { isRecord } from './is-record.ts';
import { skipSpace } from './json-scan.ts';
import type { ObjectHead } from './object-head.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export function scrubObject(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = isRecord(object.metadata) ? { ...object.metadata } : {};
  delete metadata.managedFields;
  const out: Record<string, unknown> = { ...object, metadata };
  if (object.kind === 'Secret' && (object.apiVersion === 'v1' || object.apiVersion === undefined)) {
    for (const field of ['data', 'stringData'] as const) {
      const values = object[field];
      if (isRecord(values)) out[field] = Object.fromEntries(Object.keys(values).map((k) => [k, '']));
    }
    if (isRecord(metadata.annotations) && LAST_APPLIED in metadata.annotations) {
      metadata.annotations = { ...metadata.annotations, [LAST_APPLIED]: '' };
    }
  }
  return out;
}

/**
 * `scrubObject` on JSON bytes, for the watch path: managedFields are cut out of the bytes and the
 * rest goes on as the API server wrote it; a Secret (few, and its values must go) is scrubbed whole.
 * An object without apiVersion or kind (a list's items) gets `type`'s.
 *
 * The result is the UTF-8 bytes held in a one-byte string (Node's 'latin1': byte for character),
 * not a Buffer: strings live in V8's heap, which gives its pages back once a sync's objects are
 * gone, where tens of thousands of small Buffers (malloc'd, pooled by eight kilobytes) left the
 * agent ~30 MiB more resident after a 50k sync. Reading it back is `Buffer.from(s, 'latin1')`.
 */
export function scrubObjectBytes(
  bytes: Buffer,
  head: ObjectHead,
  type: { apiVersion: string; kind: string },
): string {
  const apiVersion = head.apiVersion ?? type.apiVersion;
  const kind = head.kind ?? type.kind;
  if (kind === 'Secret' && apiVersion === 'v1') {
    const object: unknown = JSON.parse(bytes.toString('utf8'));
    const whole = isRecord(object) ? { ...object, apiVersion, kind } : {};
    return jsonBytes(scrubObject(whole));
  }
  const open = bytes.indexOf(0x7b) + 1;
  const parts: Buffer[] = [bytes.subarray(0, open)];
  if (head.apiVersion === undefined || head.kind === undefined) {
    const missing = `${head.apiVersion === undefined ? `"apiVersion":${JSON.stringify(apiVersion)},` : ''}${
      head.kind === undefined ? `"kind":${JSON.stringify(kind)},` : ''
    }`;
    // An empty object takes the members without the trailing comma.
    const empty = bytes[skipSpace(bytes, open)] === 0x7d;
    parts.push(Buffer.from(empty ? missing.slice(0, -1) : missing));
  }
  const cut = head.managedFields;
  if (cut === undefined) parts.push(bytes.subarray(open));
  else parts.push(bytes.subarray(open, cut.start), bytes.subarray(cut.end));
  // Joined as bytes, then one flat string: pieces joined as strings would be held twice (the pieces
  // and, once sent, their flattened copy), which raised the sync's peak RSS by ~40 MiB at 50k.
  return Buffer.concat(parts).toString('latin1');
}

/** A value's JSON as UTF-8 bytes in a one-byte string, the form `scrubObjectBytes` gives. */
export function jsonBytes(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('latin1');
}
