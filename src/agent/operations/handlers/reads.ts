// Read operations: `get` one object (as it is, or as the cache keeps it), `list` objects of a kind
// (one page, continue token returned), `describeAccount` (where manifests may go), `events` about one object, and `logs` of a pod's container
// (an instance's console output).
import type { AccountDescription } from '../../../contract/index.ts';
import { resourcePath } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { scrubObject } from '../../../lib/object-scrub.ts';
import { isPlatformManaged } from '../../accounts/index.ts';
import type { Handler } from '../operation-handler.ts';
import { getObject, objectPath } from './object-ref.ts';

export const getHandler: Handler<'get'> = {
  run: async ({ asCached, ...ref }, context) => {
    const object = await getObject(ref, context);
    if (!isRecord(object)) return { object: null };
    if (!asCached) return { object };
    if (context.cluster.account.onlyPlatformManaged && !isPlatformManaged(object)) return { object: null };
    return { object: scrubObject(object) };
  },
};

export const listHandler: Handler<'list'> = {
  run: async (payload, context) => {
    const resource = await context.cluster.resources.resolve(
      payload.apiVersion,
      payload.kind,
      context.signal,
    );
    const answer = await context.cluster.http.request({
      verb: 'list',
      method: 'GET',
      path: resourcePath(resource, payload.namespace),
      query: {
        labelSelector: payload.labelSelector,
        fieldSelector: payload.fieldSelector,
        limit: payload.limit,
        continue: payload.continue,
      },
      signal: context.signal,
    });
    const body = isRecord(answer.body) ? answer.body : {};
    const metadata = isRecord(body.metadata) ? body.metadata : {};
    const items = Array.isArray(body.items) ? body.items : [];
    return {
      // A list names no kind on its items; scrubbing needs it to find Secrets.
      items: payload.scrubbed
        ? items
            .filter(isRecord)
            .map((item) => scrubObject({ apiVersion: payload.apiVersion, kind: payload.kind, ...item }))
        : items.filter(isRecord),
      ...(typeof metadata.resourceVersion === 'string' ? { resourceVersion: metadata.resourceVersion } : {}),
      ...(typeof metadata.continue === 'string' && metadata.continue !== ''
        ? { continue: metadata.continue }
        : {}),
    };
  },
};

export const describeAccountHandler: Handler<'describeAccount'> = {
  run: async (_payload, { cluster }): Promise<AccountDescription> => ({
    defaultNamespace: cluster.defaultNamespace,
    namespaces: [...cluster.account.namespaces],
    omitNamespaces: [...cluster.account.omitNamespaces],
  }),
};

/** A field the API server gives as a string, or undefined (a null Event time). */
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export const eventsHandler: Handler<'events'> = {
  run: async (payload, context) => {
    const fieldSelector = [
      `involvedObject.kind=${payload.kind}`,
      `involvedObject.name=${payload.name}`,
      `involvedObject.namespace=${payload.namespace}`,
    ].join(',');
    const answer = await context.cluster.http.request({
      verb: 'list',
      method: 'GET',
      path: `/api/v1/namespaces/${encodeURIComponent(payload.namespace)}/events`,
      query: { fieldSelector },
      signal: context.signal,
    });
    const items =
      isRecord(answer.body) && Array.isArray(answer.body.items) ? answer.body.items.filter(isRecord) : [];
    return {
      events: items
        .map((e) => ({
          type: text(e.type),
          reason: text(e.reason),
          message: text(e.message),
          count: typeof e.count === 'number' ? e.count : undefined,
          firstTimestamp: text(e.firstTimestamp ?? e.eventTime),
          lastTimestamp: text(e.lastTimestamp ?? e.eventTime),
        }))
        .sort((a, b) => String(a.lastTimestamp).localeCompare(String(b.lastTimestamp))),
    };
  },
};

export const logsHandler: Handler<'logs'> = {
  run: async (payload, context) => {
    const answer = await context.cluster.http.request({
      verb: 'get',
      method: 'GET',
      path: await objectPath(
        { apiVersion: 'v1', kind: 'Pod', namespace: payload.namespace, name: payload.pod },
        context,
        'log',
      ),
      query: {
        container: payload.container,
        tailLines: payload.tailLines,
        limitBytes: payload.limitBytes,
        previous: payload.previous || undefined,
      },
      accept: 'text/plain, */*',
      signal: context.signal,
    });
    return { log: typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body) };
  },
};
