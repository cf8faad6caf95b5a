// Where a manifest read takes the object from (the cache first, else the cluster through the agent)
// and what it answers when the agent cannot help: 404 for an object the cluster lacks, a warning
// instead of the events when they cannot be read. The cache and the dispatcher are stand-ins of our
// own interfaces here; manifests.cluster.test.ts runs the same reads against a real agent and cluster.
import { describe, expect, it } from 'vitest';
import type { CachedResource } from '../../../src/cloudctl/caching/index.ts';
import { CloudctlError } from '../../../src/cloudctl/errors.ts';
import { HttpError } from '../../../src/cloudctl/http/index.ts';
import { type ManifestReaderDeps, readManifest } from '../../../src/cloudctl/manifests/manifest-reader.ts';
import type { OperationOutcome, OperationRequest } from '../../../src/cloudctl/operations/index.ts';
import { checkResult, type OperationFailure, type OperationType } from '../../../src/contract/index.ts';

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'settings',
    namespace: 'shop',
    uid: 'cm-uid',
    annotations: { 'moniker.spinnaker.io/application': 'shop' },
  },
  data: { a: '1' },
};

/** What the stand-in agent answers: a result (checked against its type's schema), a failure, or a throw. */
type Answer = { result: unknown } | { error: OperationFailure } | Error;

function deps(options: {
  cached?: unknown;
  /** No agent serves the account (the dispatcher's `serves` says false). */
  away?: boolean;
  /** The store watches ConfigMaps for the account (default true). */
  watched?: boolean;
  answer: (request: OperationRequest) => Answer;
}): ManifestReaderDeps & { sent: OperationRequest[] } {
  const sent: OperationRequest[] = [];
  return {
    sent,
    kinds: {
      resolve: async (_account, kind) =>
        kind === 'configMap' ? { apiVersion: 'v1', kind: 'ConfigMap' } : undefined,
    },
    cache: {
      object: async (): Promise<CachedResource | undefined> =>
        options.cached === undefined
          ? undefined
          : {
              group: '',
              version: 'v1',
              kind: 'ConfigMap',
              namespace: 'shop',
              name: 'settings',
              resourceVersion: '7',
              body: options.cached,
              updatedAt: new Date('2026-11-28T17:00:00Z'),
              drift: null,
            },
      kinds: async () =>
        options.watched === false
          ? []
          : [{ account: 'prod', group: '', kind: 'ConfigMap', version: 'v1', namespaced: true, count: 1 }],
    },
    operations: {
      serves: async () => options.away !== true,
      execute: async <T extends OperationType>(
        request: OperationRequest<T>,
      ): Promise<OperationOutcome<T>> => {
        sent.push(request);
        const answer = options.answer(request);
        if (answer instanceof Error) throw answer;
        if ('error' in answer) return { id: 'op', outcome: 'failed', error: answer.error };
        // As the dispatcher reads a result: a stand-in answering off the contract fails the test.
        const checked = checkResult(request.type, answer.result);
        if (!checked.ok)
          throw new Error(
            `the stand-in's ${request.type} result is off the contract at ${checked.path}: ${checked.message}`,
          );
        return { id: 'op', outcome: 'succeeded', result: checked.value };
      },
    },
  };
}

const succeeded = (result: unknown): Answer => ({ result });
const query = { account: 'prod', location: 'shop', name: 'configMap settings', includeEvents: true };

describe('reading one manifest', () => {
  it('takes a cached object from the cache and lists its events by uid, oldest first, with their kind', async () => {
    const d = deps({
      cached: configMap,
      answer: () =>
        succeeded({
          items: [
            { reason: 'Later', lastTimestamp: '2026-11-26T10:05:00Z' },
            { reason: 'Undated' },
            { reason: 'Earlier', lastTimestamp: '2026-11-26T10:00:00Z' },
          ],
        }),
    });
    const record = await readManifest(d, query);
    expect(record).toMatchObject({
      name: 'configMap settings',
      location: 'shop',
      manifest: configMap,
      warnings: [],
    });
    expect(record.events.map((e) => [e.kind, e.reason])).toEqual([
      ['Event', 'Earlier'],
      ['Event', 'Later'],
      ['Event', 'Undated'],
    ]);
    expect(d.sent).toEqual([
      {
        account: 'prod',
        type: 'list',
        payload: {
          apiVersion: 'v1',
          kind: 'Event',
          namespace: 'shop',
          fieldSelector: 'involvedObject.uid=cm-uid',
        },
      },
    ]);
  });

  it('reads an object the cache lacks from the cluster, as the watch would cache it', async () => {
    const d = deps({ answer: (r) => succeeded(r.type === 'get' ? { object: configMap } : { items: [] }) });
    const record = await readManifest(d, { ...query, includeEvents: false });
    expect(record.manifest).toEqual(configMap);
    expect(d.sent).toEqual([
      {
        account: 'prod',
        type: 'get',
        payload: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings', asCached: true },
      },
    ]);
  });

  it.each<OperationFailure>([
    { code: 'NOT_FOUND', message: 'configmaps "settings" not found' },
    { code: 'UNKNOWN_KIND', message: 'the cluster serves no v1 ConfigMap' },
  ])('answers 404 when the agent answers $code, and for a kind nobody knows', async (error) => {
    const d = deps({ answer: () => ({ error }) });
    const failure = await readManifest(d, query).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HttpError);
    expect(failure).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Manifest (account: prod, location: shop, name: configMap settings) not found',
    });
    await expect(readManifest(d, { ...query, name: 'gizmo x' })).rejects.toThrow("unknown kind 'gizmo'");
  });

  it("fails with 502 and the agent's code when the cluster refuses the read", async () => {
    const d = deps({
      answer: () => ({ error: { code: 'FORBIDDEN', message: 'configmaps "settings" is forbidden' } }),
    });
    const failure = await readManifest(d, query).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HttpError);
    expect(failure).toMatchObject({
      code: 'AGENT_FAILED',
      message: 'the agent could not read ConfigMap settings: FORBIDDEN: configmaps "settings" is forbidden',
    });
  });

  it('still answers the cached object when the agent cannot list the events, with a warning saying why', async () => {
    const d = deps({
      cached: configMap,
      answer: () => new CloudctlError('AGENT_NOT_CONNECTED', 'no connected agent serves account prod'),
    });
    const record = await readManifest(d, query);
    expect(record.events).toEqual([]);
    expect(record.warnings).toEqual([
      {
        type: 'events',
        message: 'events not read: AGENT_NOT_CONNECTED: no connected agent serves account prod',
      },
    ]);
  });

  it("answers the stored copy while the account's agent is away, without asking it, saying so and since when", async () => {
    for (const includeEvents of [true, false]) {
      const d = deps({ cached: configMap, away: true, answer: () => new Error('the agent was asked') });
      const record = await readManifest(d, { ...query, includeEvents });
      expect(record).toMatchObject({ manifest: configMap, events: [], status: { stable: { state: true } } });
      expect(record.warnings).toEqual([
        {
          type: 'storedCopy',
          message:
            "the account's agent is not connected: this is cloudctl's stored copy from 2026-11-28T17:00:00.000Z; events are not shown",
        },
      ]);
      expect(d.sent).toEqual([]);
    }
  });

  it('answers 404 while the agent is away for an object of a watched kind the store does not hold', async () => {
    const d = deps({ away: true, answer: () => new Error('the agent was asked') });
    const failure = await readManifest(d, query).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'NOT_FOUND' });
    expect(d.sent).toEqual([]);
  });

  it('fails with 503 when the object must come from the cluster and no agent serves the account', async () => {
    const d = deps({
      away: true,
      watched: false,
      answer: () => new CloudctlError('AGENT_NOT_CONNECTED', 'no agent'),
    });
    const failure = await readManifest(d, query).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HttpError);
    expect(failure).toMatchObject({ code: 'AGENT_UNAVAILABLE' });
  });
});
