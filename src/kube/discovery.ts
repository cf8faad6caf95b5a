// Which resources a cluster serves: kind, plural resource name, scope and verbs per group/version.
// Aggregated discovery (one request for /api and one for /apis, Kubernetes 1.30+) is asked for first;
// older servers answer the plain lists, and each group version is then read on its own.
import { isRecord } from '../lib/is-record.ts';
import type { KubeHttp } from './kube-http.ts';

export interface ApiResource {
  group: string;
  version: string;
  /** Plural resource name, as in the URL path. */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  subresources: string[];
  /** Whether this group version is the group's preferred one. */
  preferred: boolean;
}

const AGGREGATED =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;q=0.9';

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function fromAggregated(list: Record<string, unknown>): ApiResource[] {
  const out: ApiResource[] = [];
  for (const group of Array.isArray(list.items) ? list.items.filter(isRecord) : []) {
    const groupName = isRecord(group.metadata) ? str(group.metadata.name) : '';
    const versions = Array.isArray(group.versions) ? group.versions.filter(isRecord) : [];
    versions.forEach((version, index) => {
      for (const r of Array.isArray(version.resources) ? version.resources.filter(isRecord) : []) {
        const kind = isRecord(r.responseKind) ? str(r.responseKind.kind) : '';
        if (kind === '') continue;
        out.push({
          group: groupName,
          version: str(version.version),
          resource: str(r.resource),
          kind,
          namespaced: r.scope === 'Namespaced',
          verbs: strings(r.verbs),
          subresources: Array.isArray(r.subresources)
            ? r.subresources.filter(isRecord).map((s) => str(s.subresource))
            : [],
          // Versions are listed in preference order.
          preferred: index === 0,
        });
      }
    });
  }
  return out;
}

function fromResourceList(list: unknown, group: string, version: string, preferred: boolean): ApiResource[] {
  const resources = isRecord(list) && Array.isArray(list.resources) ? list.resources.filter(isRecord) : [];
  const main = resources.filter((r) => !str(r.name).includes('/'));
  return main.map((r) => ({
    group,
    version,
    resource: str(r.name),
    kind: str(r.kind),
    namespaced: r.namespaced === true,
    verbs: strings(r.verbs),
    subresources: resources
      .map((s) => str(s.name))
      .filter((n) => n.startsWith(`${str(r.name)}/`))
      .map((n) => n.split('/')[1] ?? ''),
    preferred,
  }));
}

async function legacy(http: KubeHttp, signal?: AbortSignal): Promise<ApiResource[]> {
  const core = await http.request({ verb: 'discovery', method: 'GET', path: '/api/v1', signal });
  const out = fromResourceList(core.body, '', 'v1', true);
  const groups = await http.request({ verb: 'discovery', method: 'GET', path: '/apis', signal });
  const list =
    isRecord(groups.body) && Array.isArray(groups.body.groups) ? groups.body.groups.filter(isRecord) : [];
  const lists = await Promise.all(
    list.flatMap((g) => {
      const preferred = isRecord(g.preferredVersion) ? str(g.preferredVersion.groupVersion) : '';
      return (Array.isArray(g.versions) ? g.versions.filter(isRecord) : []).map(async (v) => {
        const gv = str(v.groupVersion);
        const answer = await http.request({ verb: 'discovery', method: 'GET', path: `/apis/${gv}`, signal });
        return fromResourceList(answer.body, str(g.name), str(v.version), gv === preferred);
      });
    }),
  );
  return out.concat(...lists);
}

export async function discoverResources(http: KubeHttp, signal?: AbortSignal): Promise<ApiResource[]> {
  const [core, groups] = await Promise.all(
    ['/api', '/apis'].map((path) =>
      http.request({ verb: 'discovery', method: 'GET', path, accept: AGGREGATED, signal }),
    ),
  );
  const aggregated = [core, groups].every(
    (r) => isRecord(r?.body) && r.body.kind === 'APIGroupDiscoveryList',
  );
  if (!aggregated) return legacy(http, signal);
  return [core, groups].flatMap((r) => (isRecord(r?.body) ? fromAggregated(r.body) : []));
}

/** Finds the resource for a manifest's apiVersion and kind. */
export function resourceFor(
  resources: ReadonlyArray<ApiResource>,
  apiVersion: string,
  kind: string,
): ApiResource | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  return resources.find((r) => r.group === group && r.version === version && r.kind === kind);
}

/** The URL path of a resource collection, or of one object when `name` is given. */
export function resourcePath(resource: ApiResource, namespace?: string, name?: string): string {
  const base =
    resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const ns =
    resource.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${resource.resource}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
}
