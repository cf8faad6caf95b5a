// Strategic-merge patch metadata of built-in kinds, read from the API server's OpenAPI v3 document of
// the group version: for each list field, its patch strategy and merge key (`containers` merge by
// `name`, `finalizers` merge as a set, …). Custom resources have none and use JSON merge patch.
import { isRecord } from '../lib/is-record.ts';
import type { KubeHttp } from './kube-http.ts';

/** A node of the schema tree, navigable by field name; lists expose their item schema. */
export interface PatchSchema {
  field(name: string): PatchSchema | undefined;
  items(): PatchSchema | undefined;
  strategy: string;
  mergeKey: string | undefined;
}

type Json = Record<string, unknown>;

function node(doc: Json, schema: Json, strategy = '', mergeKey?: string): PatchSchema {
  const resolve = (s: unknown): Json => {
    if (!isRecord(s)) return {};
    // OpenAPI v3 wraps references as `allOf: [{$ref}]` when the property carries extensions.
    const allOf = Array.isArray(s.allOf) ? s.allOf.find(isRecord) : undefined;
    const target =
      typeof s.$ref === 'string' ? s.$ref : typeof allOf?.$ref === 'string' ? allOf.$ref : undefined;
    if (target === undefined) return s;
    const name = target.replace('#/components/schemas/', '');
    const schemas =
      isRecord(doc.components) && isRecord(doc.components.schemas) ? doc.components.schemas : {};
    const found = schemas[name];
    return isRecord(found) ? found : {};
  };
  const self = resolve(schema);
  return {
    strategy,
    mergeKey,
    field(name) {
      const props = isRecord(self.properties) ? self.properties : {};
      const prop = props[name];
      if (!isRecord(prop)) return undefined;
      const s =
        typeof prop['x-kubernetes-patch-strategy'] === 'string' ? prop['x-kubernetes-patch-strategy'] : '';
      const k =
        typeof prop['x-kubernetes-patch-merge-key'] === 'string'
          ? prop['x-kubernetes-patch-merge-key']
          : undefined;
      return node(doc, prop, s, k);
    },
    items() {
      return isRecord(self.items) ? node(doc, self.items) : undefined;
    },
  };
}

export async function loadPatchSchema(
  http: KubeHttp,
  group: string,
  version: string,
  kind: string,
  signal?: AbortSignal,
): Promise<PatchSchema | undefined> {
  const index = await http.request({ verb: 'discovery', method: 'GET', path: '/openapi/v3', signal });
  const key = group === '' ? `api/${version}` : `apis/${group}/${version}`;
  const paths = isRecord(index.body) && isRecord(index.body.paths) ? index.body.paths : {};
  const entry = paths[key];
  const url =
    isRecord(entry) && typeof entry.serverRelativeURL === 'string' ? entry.serverRelativeURL : undefined;
  if (url === undefined) return undefined;
  const [path, query] = url.split('?');
  const doc = await http.request({
    verb: 'discovery',
    method: 'GET',
    path: path ?? url,
    query: Object.fromEntries(new URLSearchParams(query ?? '')),
    signal,
  });
  if (!isRecord(doc.body)) return undefined;
  const schemas =
    isRecord(doc.body.components) && isRecord(doc.body.components.schemas) ? doc.body.components.schemas : {};
  for (const schema of Object.values(schemas)) {
    if (!isRecord(schema) || !Array.isArray(schema['x-kubernetes-group-version-kind'])) continue;
    const matches = schema['x-kubernetes-group-version-kind'].some(
      (gvk) => isRecord(gvk) && gvk.group === group && gvk.version === version && gvk.kind === kind,
    );
    if (matches) return node(doc.body, schema);
  }
  return undefined;
}
