// How a Job publishes result properties: lines in its log, the convention of the system we mirror
// (its Run Job stage's "capture output from logs"), so existing jobs keep working:
//   SPINNAKER_PROPERTY_<NAME>=<value>   one property, the name lower-cased as Spinnaker does
//   SPINNAKER_CONFIG_JSON=<json object> several at once, merged in
// Later lines win over earlier ones. Anything else in the log is ignored.
import { isRecord } from '../../lib/is-record.ts';

const PROPERTY = /^SPINNAKER_PROPERTY_([A-Za-z0-9_]+)=(.*)$/;
const CONFIG_JSON = /^SPINNAKER_CONFIG_JSON=(.*)$/;

export function jobProperties(log: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const raw of log.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const property = PROPERTY.exec(line);
    if (property !== null) {
      properties[(property[1] ?? '').toLowerCase()] = property[2] ?? '';
      continue;
    }
    const config = CONFIG_JSON.exec(line);
    if (config === null) continue;
    try {
      const parsed: unknown = JSON.parse(config[1] ?? '');
      if (isRecord(parsed)) Object.assign(properties, parsed);
    } catch {
      // A line that is not JSON publishes nothing; the job's log is not ours to refuse.
    }
  }
  return properties;
}
