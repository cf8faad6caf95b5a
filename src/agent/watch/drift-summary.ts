// Drift, as the watch sees it: for an object cloudctl deployed (it carries the content-hash
// annotation), which other field managers changed its content after the agent last wrote it, and
// which paths they own, read from the managedFields the watch strips before sending (so the summary
// goes instead). A manager counts when it owns a field outside `metadata` and `status` (what the
// content hash covers: spec, data, rules, ...) and
//   - wrote after the agent's latest entry (Kubernetes keeps one entry per manager, operation and
//     subresource, with the time of its last write), or
//   - wrote in the same second (times are kept to the second), or without a time (Kubernetes keeps
//     none for writes through the scale subresource), and owns a path the agent does not: only a
//     write after the agent's takes a field from it, or
//   - the agent has no entry at all (its entries were cleared: every such manager is a stranger).
// The check runs only for objects whose annotations hold the content-hash key, found in their bytes:
// the watch's other objects (nearly all, at 50k objects a sync) pay one byte search of their
// annotations, no parse.
import {
  AGENT_FIELD_MANAGERS,
  CONTENT_HASH_ANNOTATION,
  type Drift,
  type DriftingManager,
  MAX_DRIFT_PATHS,
} from '../../contract/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { ObjectHead } from '../../lib/object-head.ts';

/** The annotation as a key (the API server writes `"key":value`): a value naming it does not match. */
const HASH_KEY = Buffer.from(`${JSON.stringify(CONTENT_HASH_ANNOTATION)}:`);
const AGENT = new Set(AGENT_FIELD_MANAGERS);
/** Top-level fields that are not the object's content: the hash leaves them out, so does drift. */
const NOT_CONTENT = new Set(['f:metadata', 'f:status', 'f:apiVersion', 'f:kind']);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A field name as a path segment: `.name`, or `["app.kubernetes.io/name"]` when not an identifier. */
function field(prefix: string, name: string): string {
  if (!IDENTIFIER.test(name)) return `${prefix}[${JSON.stringify(name)}]`;
  return prefix === '' ? name : `${prefix}.${name}`;
}

/** A list item's merge keys as `[name=web]`, `[containerPort=80,protocol=TCP]`. */
function keyed(prefix: string, keyJson: string): string {
  let keys: unknown;
  try {
    keys = JSON.parse(keyJson);
  } catch {
    return `${prefix}[${keyJson}]`;
  }
  if (!isRecord(keys)) return `${prefix}[${keyJson}]`;
  const parts = Object.entries(keys).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return `${prefix}[${parts.join(',')}]`;
}

/** The segment of one fieldsV1 key: `f:` a field, `k:` a keyed item, `v:` a set value, `i:` an index. */
function segment(prefix: string, key: string): string {
  const rest = key.slice(2);
  if (key.startsWith('f:')) return field(prefix, rest);
  if (key.startsWith('k:')) return keyed(prefix, rest);
  return `${prefix}[${rest}]`;
}

/**
 * The leaf paths of a fieldsV1 tree: a node with children other than `.` (the node itself) is
 * described by them, a node with none is a leaf.
 */
function leafPaths(node: Record<string, unknown>, prefix: string, out: string[]): void {
  for (const [key, child] of Object.entries(node)) {
    if (key === '.') continue;
    const path = segment(prefix, key);
    if (isRecord(child) && Object.keys(child).some((k) => k !== '.')) leafPaths(child, path, out);
    else out.push(path);
  }
}

/** The content paths of one managedFields entry, in its fieldsV1 order. */
function contentPaths(entry: Record<string, unknown>): string[] {
  const fields = entry.fieldsV1;
  const out: string[] = [];
  if (!isRecord(fields)) return out;
  for (const [key, child] of Object.entries(fields)) {
    if (NOT_CONTENT.has(key) || !key.startsWith('f:')) continue;
    const path = segment('', key);
    if (isRecord(child) && Object.keys(child).some((k) => k !== '.')) leafPaths(child, path, out);
    else out.push(path);
  }
  return out;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The drift in the object's managedFields entries; undefined when no other manager drifted it. */
export function driftOf(entries: readonly unknown[]): Drift | undefined {
  let agentTime: string | undefined;
  let agentSeen = false;
  const agentPaths = new Set<string>();
  const others: Array<{ entry: Record<string, unknown>; paths: string[] }> = [];
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    const paths = contentPaths(entry);
    if (AGENT.has(text(entry.manager))) {
      agentSeen = true;
      const time = text(entry.time);
      if (agentTime === undefined || time > agentTime) agentTime = time;
      for (const path of paths) agentPaths.add(path);
    } else if (paths.length > 0) others.push({ entry, paths });
  }
  const managers: DriftingManager[] = [];
  for (const { entry, paths } of others) {
    const time = text(entry.time);
    const later =
      !agentSeen ||
      (time !== '' && agentTime !== undefined && time > agentTime) ||
      ((time === '' || time === agentTime) && paths.some((p) => !agentPaths.has(p)));
    if (!later) continue;
    const subresource = text(entry.subresource);
    managers.push({
      manager: text(entry.manager),
      operation: text(entry.operation),
      ...(subresource === '' ? {} : { subresource }),
      time: time === '' ? null : time,
      paths: paths.slice(0, MAX_DRIFT_PATHS),
      morePaths: Math.max(0, paths.length - MAX_DRIFT_PATHS),
    });
  }
  return managers.length === 0 ? undefined : { managers };
}

/**
 * The drift of an object whose head `scanObjectHead` read: undefined, without parsing anything, for
 * an object that does not carry the content-hash annotation or has no managedFields.
 */
export function driftInBytes(bytes: Buffer, head: ObjectHead): Drift | undefined {
  const { annotationsStart, annotationsEnd, managedFields } = head;
  if (annotationsStart < 0 || managedFields === undefined) return undefined;
  if (bytes.subarray(annotationsStart, annotationsEnd).indexOf(HASH_KEY) < 0) return undefined;
  let entries: unknown;
  try {
    entries = JSON.parse(bytes.subarray(managedFields.valueStart, managedFields.valueEnd).toString('utf8'));
  } catch {
    return undefined;
  }
  return Array.isArray(entries) ? driftOf(entries) : undefined;
}
