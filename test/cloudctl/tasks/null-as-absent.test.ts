// Orca and Jackson send an unset field of an operation description as null; clouddriver reads it as
// absent, and so must every operation POST /ops takes. For each operation, a valid description gets
// every optional field its payload schema declares (found by walking the schema, nested objects,
// array items and union options included, so a field added later is covered) set to null where it
// was left out, and each field it gave set to null in turn: each must parse exactly as the
// description without that field. A required field sent as null is still refused, naming it.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONVERTERS } from '../../../src/cloudctl/tasks/index.ts';
import { isRecord } from '../../../src/lib/is-record.ts';

type Path = ReadonlyArray<string | number>;

const NS = 'ns';
const artifact = { type: 'docker/image', name: 'registry.example/web', reference: 'registry.example/web:2' };
const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: NS, labels: { a: 'b' }, annotations: { c: 'd' } },
  data: { a: '1' },
};
const target = { account: 'acct', manifestName: 'deployment web', location: NS };
const selectors = { selectors: [{ kind: 'EQUALS', key: 'app', values: ['web'] }] };

/** A valid description of each operation, with a value in each nested object the schema describes. */
const DESCRIPTIONS: Record<string, Record<string, unknown>> = {
  deployManifest: {
    account: 'acct',
    manifests: [configMap],
    moniker: { app: 'web' },
    labelSelectors: selectors,
    trafficManagement: { enabled: true, options: { services: ['service web'] } },
    requiredArtifacts: [{ expectedArtifactId: 'image' }, artifact],
    optionalArtifacts: [artifact],
    resolvedExpectedArtifacts: [{ id: 'image', boundArtifact: artifact }],
    manifestArtifact: artifact,
  },
  deleteManifest: {
    ...target,
    kinds: ['deployment'],
    labelSelectors: selectors,
    options: { cascading: true },
  },
  scaleManifest: { ...target, replicas: 2 },
  resizeServerGroup: {
    account: 'acct',
    serverGroupName: 'replicaSet web-v001',
    region: NS,
    capacity: { min: 1, max: 3, desired: 2 },
  },
  patchManifest: {
    ...target,
    patchBody: { spec: { replicas: 2 } },
    options: { mergeStrategy: 'strategic', record: true },
    allArtifacts: [artifact],
  },
  undoRolloutManifest: { ...target, revision: 2 },
  pauseRolloutManifest: target,
  resumeRolloutManifest: target,
  rollingRestartManifest: target,
  runJob: {
    account: 'acct',
    namespace: NS,
    manifest: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'job' } },
  },
  cleanupArtifacts: { account: 'acct', manifests: [configMap] },
  enableManifest: { ...target, manifestName: 'replicaSet web-v001', loadBalancers: ['service web'] },
  disableManifest: { ...target, manifestName: 'replicaSet web-v001', loadBalancers: ['service web'] },
};

/** Whether an object may lack the field: zod's own test for an absent key. */
const optional = (field: z.core.$ZodType) => field._zod.optin !== undefined;

/**
 * The description with every optional field it leaves out set to null, as deep as the schema
 * describes what was sent; `nulled` and `given` collect the paths of the optional fields it set to
 * null and of those the description gave.
 */
function withNulls(
  schema: z.core.$ZodType,
  value: unknown,
  path: Path,
  found: { nulled: Path[]; given: Path[] },
): unknown {
  const def = schema._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return 'innerType' in def && isSchema(def.innerType)
        ? withNulls(def.innerType, value, path, found)
        : value;
    case 'pipe': {
      if (!('in' in def && 'out' in def && isSchema(def.in) && isSchema(def.out))) return value;
      // A preprocess reads what was sent before its schema does; the schema describes it.
      const reader = def.in._zod.def.type === 'transform' ? def.out : def.in;
      return withNulls(reader, value, path, found);
    }
    case 'union': {
      const options = 'options' in def && Array.isArray(def.options) ? def.options.filter(isSchema) : [];
      const chosen = options.find((option) => z.safeParse(option, value).success);
      return chosen === undefined ? value : withNulls(chosen, value, path, found);
    }
    case 'array':
      return Array.isArray(value) && 'element' in def && isSchema(def.element)
        ? value.map((item, i) => withNulls(def.element as z.core.$ZodType, item, [...path, i], found))
        : value;
    case 'object': {
      if (!isRecord(value) || !('shape' in def) || !isRecord(def.shape)) return value;
      const out: Record<string, unknown> = { ...value };
      for (const [key, field] of Object.entries(def.shape)) {
        if (!isSchema(field)) continue;
        if (key in value) {
          if (optional(field)) found.given.push([...path, key]);
          out[key] = withNulls(field, value[key], [...path, key], found);
        } else if (optional(field)) {
          out[key] = null;
          found.nulled.push([...path, key]);
        }
      }
      return out;
    }
    default:
      return value;
  }
}

function isSchema(value: unknown): value is z.core.$ZodType {
  return isRecord(value) && '_zod' in value;
}

/** A copy of the description with the field at `path` set to null, or removed. */
function changed(description: unknown, path: Path, to: 'null' | 'absent'): unknown {
  const copy: unknown = structuredClone(description);
  let at: unknown = copy;
  for (const step of path.slice(0, -1))
    at = isRecord(at) || Array.isArray(at) ? Reflect.get(at, step) : undefined;
  const last = path.at(-1);
  if (last === undefined || !isRecord(at)) throw new Error(`no field at ${path.join('.')}`);
  if (to === 'null') at[String(last)] = null;
  else delete at[String(last)];
  return copy;
}

/** A parse's outcome, comparable: the data, or where and why it failed. */
function outcome(schema: z.ZodType, description: unknown) {
  const parsed = schema.safeParse(description);
  return parsed.success
    ? { data: parsed.data }
    : { issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })) };
}

function converter(name: string) {
  const found = CONVERTERS.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no converter ${name}`);
  return found;
}

describe('null in an operation description', () => {
  it('has a description for every operation POST /ops takes', () => {
    expect(Object.keys(DESCRIPTIONS).sort()).toEqual(CONVERTERS.map((c) => c.name).sort());
  });

  it.each(CONVERTERS.map((c) => [c.name]))(
    '%s: every optional field left out, sent as null, reads as absent',
    (name) => {
      const { payload } = converter(name);
      const description = DESCRIPTIONS[name];
      const base = payload.safeParse(description);
      expect(base.error?.issues ?? []).toEqual([]);
      const found = { nulled: [] as Path[], given: [] as Path[] };
      const nulled = withNulls(payload, description, [], found);
      expect(found.nulled.length).toBeGreaterThan(0);
      const parsed = payload.safeParse(nulled);
      expect(parsed.error?.issues ?? [], JSON.stringify(found.nulled)).toEqual([]);
      expect(parsed.data).toEqual(base.data);
    },
  );

  it.each(CONVERTERS.map((c) => [c.name]))(
    '%s: each optional field given, sent as null, reads as absent',
    (name) => {
      const { payload } = converter(name);
      const description = DESCRIPTIONS[name];
      const found = { nulled: [] as Path[], given: [] as Path[] };
      withNulls(payload, description, [], found);
      for (const path of found.given) {
        const asNull = outcome(payload, changed(description, path, 'null'));
        expect(asNull, path.join('.')).toEqual(outcome(payload, changed(description, path, 'absent')));
      }
    },
  );

  it('covers the fields Orca sends as null, nested ones included', () => {
    const paths = (name: string) => {
      const found = { nulled: [] as Path[], given: [] as Path[] };
      withNulls(converter(name).payload, DESCRIPTIONS[name], [], found);
      return [...found.nulled, ...found.given].map((p) => p.join('.'));
    };
    expect(paths('patchManifest')).toEqual(
      expect.arrayContaining([
        'skipExpressionEvaluation',
        'requiredArtifacts',
        'options.record',
        'allArtifacts.0.version',
      ]),
    );
    expect(paths('deployManifest')).toEqual(
      expect.arrayContaining([
        'namespaceOverride',
        'moniker.cluster',
        'trafficManagement.options.enableTraffic',
        'manifests.0.metadata.generateName',
        'requiredArtifacts.0.artifact',
        'resolvedExpectedArtifacts.0.matchArtifact',
      ]),
    );
    expect(paths('deleteManifest')).toEqual(
      expect.arrayContaining(['options.gracePeriodSeconds', 'manifestName']),
    );
  });

  it('refuses a required field sent as null, naming it', () => {
    const refused = (name: string, path: Path) => {
      const parsed = converter(name).payload.safeParse(changed(DESCRIPTIONS[name], path, 'null'));
      return parsed.error?.issues.map((i) => i.path.join('.'));
    };
    expect(refused('patchManifest', ['options', 'mergeStrategy'])).toEqual(['options.mergeStrategy']);
    expect(refused('patchManifest', ['account'])).toEqual(['account']);
    // A count sent as null is missing, not zero.
    expect(refused('scaleManifest', ['replicas'])).toEqual(['replicas']);
    expect(refused('resizeServerGroup', ['capacity', 'desired'])).toEqual(['capacity.desired']);
  });

  it('leaves null inside what the schema does not model: a merge patch deletes a field with it', () => {
    const description = { ...DESCRIPTIONS.patchManifest, patchBody: { spec: { paused: null } } };
    const parsed = converter('patchManifest').payload.parse(description);
    expect(isRecord(parsed) && parsed.patchBody).toEqual({ spec: { paused: null } });
  });
});
