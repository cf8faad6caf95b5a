// Reads a config schema (zod) as data: which keys exist, their types, defaults, descriptions and
// secrecy. Both programs' unknown-key checks, the redaction of `config print` and the generated
// configuration references come from here, so the schemas stay the single source of truth.
import { z } from 'zod';
import type { SettingMeta } from './setting-meta.ts';

export interface SettingInfo {
  /** Key path with `[]` for list items and `*` for free map keys, e.g. `orchestrator.accounts[].name`. */
  path: string;
  type: string;
  default: unknown;
  hasDefault: boolean;
  required: boolean;
  description: string;
  since: string | undefined;
  secret: boolean;
}

export interface SchemaIndex {
  settings: SettingInfo[];
  /** Groups of settings (maps such as `grpc.tls`), with their own description and default. */
  groups: SettingInfo[];
  /** Keys each object accepts, by object path pattern ('' is the top level). */
  children: Map<string, Set<string>>;
  /** Object paths that reject unknown keys themselves (strict objects, free maps). */
  selfChecked: Set<string>;
  secretPaths: Set<string>;
  /** Settings whose value is a path the agent reads at start. */
  filePaths: Set<string>;
}

type AnySchema = z.core.$ZodType;

function readMeta(schema: AnySchema): Partial<SettingMeta> {
  const meta = z.globalRegistry.get(schema);
  return {
    description: typeof meta?.description === 'string' ? meta.description : undefined,
    since: typeof meta?.since === 'string' ? meta.since : undefined,
    secret: meta?.secret === true,
    file: meta?.file === true,
    type: typeof meta?.type === 'string' ? meta.type : undefined,
  };
}

function definedOnly(meta: Partial<SettingMeta>): Partial<SettingMeta> {
  return Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined && v !== false));
}

interface Unwrapped {
  core: AnySchema;
  meta: Partial<SettingMeta>;
  hasDefault: boolean;
  defaultValue: unknown;
  optional: boolean;
}

/** Peels optional/default/pipe wrappers, collecting metadata and the default on the way. */
function unwrap(schema: AnySchema): Unwrapped {
  let current: AnySchema = schema;
  let meta: Partial<SettingMeta> = {};
  let hasDefault = false;
  let defaultValue: unknown;
  let optional = false;
  for (;;) {
    meta = { ...definedOnly(readMeta(current)), ...meta };
    if (current instanceof z.ZodDefault) {
      if (!hasDefault) defaultValue = current.def.defaultValue;
      hasDefault = true;
      current = current.def.innerType;
    } else if (current instanceof z.ZodPrefault) {
      hasDefault = true;
      current = current.def.innerType;
    } else if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) {
      optional = true;
      current = current.def.innerType;
    } else if (current instanceof z.ZodPipe) {
      // preprocess: (transform → schema) — the shape is the output; transform: (schema → transform) — the input.
      current = current.def.in instanceof z.ZodTransform ? current.def.out : current.def.in;
    } else {
      return { core: current, meta, hasDefault, defaultValue, optional };
    }
  }
}

function describeType(schema: AnySchema): string {
  const { core } = unwrap(schema);
  if (core instanceof z.ZodString) return 'string';
  if (core instanceof z.ZodNumber) return core.format === 'safeint' ? 'integer' : 'number';
  if (core instanceof z.ZodBoolean) return 'boolean';
  if (core instanceof z.ZodEnum) return core.options.map((o) => (o === '' ? '""' : String(o))).join(' \\| ');
  if (core instanceof z.ZodLiteral) return [...core.values].map(String).join(' \\| ');
  if (core instanceof z.ZodArray) return `list of ${describeType(core.element)}`;
  if (core instanceof z.ZodRecord) return 'map';
  if (core instanceof z.ZodObject) return 'object';
  return 'value';
}

function join(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

export function indexSchema(schema: AnySchema): SchemaIndex {
  const index: SchemaIndex = {
    settings: [],
    groups: [],
    children: new Map(),
    selfChecked: new Set(),
    secretPaths: new Set(),
    filePaths: new Set(),
  };
  const visit = (node: AnySchema, path: string) => {
    const info = unwrap(node);
    const { core } = info;
    if (core instanceof z.ZodObject) {
      const keys = new Set(Object.keys(core.shape));
      index.children.set(path, keys);
      if (path !== '') index.groups.push(settingInfo(path, node, info));
      if (core.def.catchall instanceof z.ZodNever) index.selfChecked.add(path);
      for (const key of keys) visit(core.shape[key], join(path, key));
      return;
    }
    if (core instanceof z.ZodArray) {
      const element = unwrap(core.element).core;
      if (element instanceof z.ZodObject) {
        // Record the list itself (its description and default), then its item shape.
        pushSetting(index, path, node, info);
        visit(core.element, `${path}[]`);
        return;
      }
    }
    if (core instanceof z.ZodRecord) index.selfChecked.add(path);
    pushSetting(index, path, node, info);
  };
  visit(schema, '');
  return index;
}

function settingInfo(path: string, node: AnySchema, info: Unwrapped): SettingInfo {
  return {
    path,
    type: info.meta.type ?? describeType(node),
    default: info.defaultValue,
    hasDefault: info.hasDefault,
    required: !info.hasDefault && !info.optional,
    description: info.meta.description ?? '',
    since: info.meta.since,
    secret: info.meta.secret === true,
  };
}

function pushSetting(index: SchemaIndex, path: string, node: AnySchema, info: Unwrapped) {
  const setting = settingInfo(path, node, info);
  if (setting.secret) index.secretPaths.add(path);
  if (info.meta.file === true) index.filePaths.add(path);
  index.settings.push(setting);
}

/** Turns a concrete key path (with indexes) into the pattern used by SchemaIndex. */
export function patternOf(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of path) out = typeof part === 'number' ? `${out}[]` : join(out, part);
  return out;
}
