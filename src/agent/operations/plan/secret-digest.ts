// A Secret's values in a plan. The plan shows objects as the watch does (managedFields dropped), but
// instead of blanking a Secret's values it replaces each with an HMAC-SHA256 digest under a random
// key made for this one answer (`hmac:` + base64url): within the answer, equal values have equal
// digests, so a reader tells a changed value from an unchanged one; across answers the key differs,
// so nobody can recover a value or test guesses against digests collected from many plans. `data`
// values are digested decoded, so a manifest's `stringData` and the live object's `data` compare.
// Messages about a Secret (an admission policy may quote a field) have its values cut out.
import { createHmac, randomBytes } from 'node:crypto';
import { isRecord } from '../../../lib/is-record.ts';
import { scrubObject } from '../../../lib/object-scrub.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Shorter values are left in messages: cutting every "a" out of a sentence protects nothing. */
const REDACT_MIN_LENGTH = 4;

export interface PlanView {
  /** The object as a plan shows it: managedFields dropped, a Secret's values digested. */
  show(object: Record<string, unknown>): Record<string, unknown>;
  /** The text with every value of the given objects' Secrets cut out. */
  redact(text: string, objects: ReadonlyArray<Record<string, unknown> | null | undefined>): string;
}

const isSecret = (object: Record<string, unknown>) =>
  object.kind === 'Secret' && (object.apiVersion === 'v1' || object.apiVersion === undefined);

/** A Secret's values as bytes: `data` decoded, `stringData` as UTF-8. */
function secretBytes(object: Record<string, unknown>, field: 'data' | 'stringData'): Array<[string, Buffer]> {
  const values = object[field];
  if (!isRecord(values)) return [];
  return Object.entries(values).map(([key, value]) => [
    key,
    Buffer.from(typeof value === 'string' ? value : '', field === 'data' ? 'base64' : 'utf8'),
  ]);
}

function lastApplied(object: Record<string, unknown>): string | undefined {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const text = isRecord(metadata.annotations) ? metadata.annotations[LAST_APPLIED] : undefined;
  return typeof text === 'string' ? text : undefined;
}

/** A view with a key of its own: make one per plan answer, never keep it. */
export function createPlanView(): PlanView {
  const key = randomBytes(32);
  const digest = (bytes: Buffer) => `hmac:${createHmac('sha256', key).update(bytes).digest('base64url')}`;
  return {
    show(object) {
      const out = scrubObject(object);
      if (!isSecret(object)) return out;
      for (const field of ['data', 'stringData'] as const) {
        if (isRecord(object[field])) {
          out[field] = Object.fromEntries(secretBytes(object, field).map(([k, bytes]) => [k, digest(bytes)]));
        }
      }
      const applied = lastApplied(object);
      const metadata = isRecord(out.metadata) ? out.metadata : {};
      if (applied !== undefined && isRecord(metadata.annotations)) {
        out.metadata = {
          ...metadata,
          annotations: { ...metadata.annotations, [LAST_APPLIED]: digest(Buffer.from(applied)) },
        };
      }
      return out;
    },
    redact(text, objects) {
      const values = new Set<string>();
      for (const object of objects) {
        if (!isRecord(object) || !isSecret(object)) continue;
        for (const [, bytes] of secretBytes(object, 'data')) values.add(bytes.toString('utf8'));
        for (const field of ['data', 'stringData'] as const) {
          const raw = object[field];
          if (isRecord(raw)) for (const v of Object.values(raw)) if (typeof v === 'string') values.add(v);
        }
      }
      const longestFirst = [...values]
        .filter((v) => v.length >= REDACT_MIN_LENGTH)
        .sort((a, b) => b.length - a.length);
      return longestFirst.reduce((out, value) => out.replaceAll(value, '[secret value]'), text);
    },
  };
}
