// The previews over HTTP. `/previews/{token}/{path}` is public: the token is the capability, so it is
// not logged (the request line logs the route, not the URL) and cloudctl's own credentials that came
// with the request are never passed on. Listing a deployment's previews needs READ on their accounts;
// revoking one needs WRITE on its account, and answers it as REVOKED from then on (410 at its URL).
import { z } from 'zod';
import type { AccountGuard } from '../accounts/index.ts';
import { AGENT_ANSWERS, defineRoute, errorAnswers, HttpError, Reply, type Route } from '../http/index.ts';
import type { AgentOperations } from '../operations/index.ts';
import {
  forwardPreviewRequest,
  PREVIEW_METHODS,
  type PreviewMethod,
  usablePreview,
} from './preview-forwarding.ts';
import { previewPath, previewRecord, previewRecordSchema } from './preview-record.ts';
import type { PreviewStore } from './preview-store.ts';

const TAG = 'previews';

export interface PreviewRoutesDeps {
  store: PreviewStore;
  agents: AgentOperations;
  guard: AccountGuard;
  externalUrl: () => string;
  now: () => Date;
}

const token = z.string().min(1).max(200).describe('the secret part of the preview URL');
const forwardParams = z.object({
  token,
  '*': z.string().describe("the path below the Service's root, with its query"),
});
const deploymentParams = z.object({ id: z.string().min(1).max(100) });
const previewParams = deploymentParams.extend({ previewId: z.string().min(1).max(100) });

/** Any answer of the Service: its status, its headers, its body as it sent it. */
const serviceAnswer = z.unknown().describe("the Service's answer, status, headers and body as it gave them");

function forwardRoute(deps: PreviewRoutesDeps, method: PreviewMethod): Route {
  return defineRoute({
    method,
    url: '/previews/:token/*',
    summary: `Sends a ${method} request to the Service a preview URL reaches, through the agent serving its account, and answers the Service's answer (bodies up to 1 MiB each way)`,
    tag: TAG,
    access: 'public',
    rawBody: true,
    consumes: ['*/*'],
    produces: ['*/*'],
    schema: {
      params: forwardParams,
      response: {
        200: serviceAnswer,
        ...errorAnswers('NOT_FOUND', 'GONE', 'RESPONSE_TOO_LARGE'),
        ...AGENT_ANSWERS,
      },
    },
    handler: async ({ params, path, search, headers, rawBody }) =>
      forwardPreviewRequest(
        { store: deps.store, agents: deps.agents, now: deps.now },
        {
          token: params.token,
          method,
          path: path.slice(previewPath(params.token).length) || '/',
          query: search,
          headers,
          body: rawBody,
        },
      ),
  });
}

/** A preview URL without its final `/`: the Service's root, where relative links work. */
function rootRedirect(deps: PreviewRoutesDeps): Route {
  return defineRoute({
    method: 'GET',
    url: '/previews/:token',
    summary: "Redirects to the preview URL's root (with its final /)",
    tag: TAG,
    access: 'public',
    schema: {
      params: z.object({ token }),
      response: { 308: z.void().describe('to /previews/{token}/'), ...errorAnswers('NOT_FOUND', 'GONE') },
    },
    handler: async ({ params, search }) => {
      await usablePreview(deps.store, params.token, deps.now());
      const location = `${previewPath(params.token)}/${search === '' ? '' : `?${search}`}`;
      return new Reply(308, '', 'text/plain', { location, 'referrer-policy': 'no-referrer' });
    },
  });
}

function listRoute(deps: PreviewRoutesDeps): Route {
  return defineRoute({
    method: 'GET',
    url: '/deployments/:id/previews',
    summary: "Lists a deployment's preview URLs (its exposeServices steps'), with their state",
    tag: TAG,
    access: 'user',
    schema: { params: deploymentParams, response: { 200: z.array(previewRecordSchema) } },
    handler: async ({ params, user }) => {
      const previews = await deps.store.ofDeployment(params.id);
      for (const account of new Set(previews.map((p) => p.account)))
        await deps.guard.require(user, account, 'READ');
      return previews.map((p) => previewRecord(p, deps.externalUrl(), deps.now()));
    },
  });
}

function revokeRoute(deps: PreviewRoutesDeps): Route {
  return defineRoute({
    method: 'DELETE',
    url: '/deployments/:id/previews/:previewId',
    summary: 'Revokes a preview URL: from now on it answers 410',
    tag: TAG,
    access: 'user',
    schema: { params: previewParams, response: { 200: previewRecordSchema, ...errorAnswers('NOT_FOUND') } },
    handler: async ({ params, user }) => {
      const preview = await deps.store.byId(params.previewId);
      if (preview === undefined || preview.deploymentId !== params.id)
        throw new HttpError('NOT_FOUND', `deployment ${params.id} has no preview ${params.previewId}`);
      await deps.guard.require(user, preview.account, 'WRITE');
      const revoked = await deps.store.revoke(preview.id, user.name, deps.now());
      if (revoked === undefined) throw new HttpError('NOT_FOUND', `no preview ${params.previewId}`);
      return previewRecord(revoked, deps.externalUrl(), deps.now());
    },
  });
}

export function previewRoutes(deps: PreviewRoutesDeps): Route[] {
  return [
    ...PREVIEW_METHODS.map((method) => forwardRoute(deps, method)),
    rootRedirect(deps),
    listRoute(deps),
    revokeRoute(deps),
  ];
}
