// How a Job publishes result properties: lines in its log, the convention of the system we mirror
// (its Run Job stage's "capture output from logs"), read by the same rules so existing jobs publish
// exactly what they published there:
//   - each line is trimmed, and blank lines are skipped;
//   - a line containing SPINNAKER_PROPERTY_ is split at every "=", the parts trimmed and empty parts
//     dropped; exactly two parts publish one property, named by the first part without its first
//     SPINNAKER_PROPERTY_, lower-cased (`SPINNAKER_PROPERTY_ROWS = 10` gives rows "10"); any other
//     count publishes nothing (`SPINNAKER_PROPERTY_URL=https://x/?a=b` has three parts);
//   - a line starting with SPINNAKER_CONFIG_JSON= merges in the JSON object after it, keys as
//     written; a line whose rest is not a JSON object voids every property of the log, as the
//     original answers an empty object when it cannot parse one (its pipeline stage then fails on
//     the missing properties rather than running on with half of them).
// Later lines win over earlier ones. Anything else in the log is ignored.
import { isRecord } from '../../lib/is-record.ts';

const PROPERTY_MARK = 'SPINNAKER_PROPERTY_';
const JSON_MARK = 'SPINNAKER_CONFIG_JSON=';

/** The object after the JSON mark, or undefined when the rest of the line is no JSON object. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function jobProperties(log: string): Record<string, unknown> {
  // A Map, not an object, so a key such as "__proto__" from the job's JSON is just a key.
  const properties = new Map<string, unknown>();
  for (const line of log.split('\n').map((l) => l.trim())) {
    if (line === '') continue;
    if (line.includes(PROPERTY_MARK)) {
      const parts = line
        .split('=')
        .map((p) => p.trim())
        .filter((p) => p !== '');
      if (parts.length === 2)
        properties.set((parts[0] ?? '').replace(PROPERTY_MARK, '').toLowerCase(), parts[1]);
    }
    if (line.startsWith(JSON_MARK)) {
      const object = jsonObject(line.slice(JSON_MARK.length));
      if (object === undefined) return {};
      for (const [key, value] of Object.entries(object)) properties.set(key, value);
    }
  }
  return Object.fromEntries(properties);
}
