// GET /artifacts/credentials: the artifact accounts cloudctl serves (see artifact-accounts.ts); and
// PUT /artifacts/fetch: an artifact's content, which Orca asks for before it deploys a manifest
// artifact (`source: artifact`) and sends the manifests it read. Only artifacts that carry their
// content can be fetched; any other is refused, naming its type. Every user may call both, as in
// the API we mirror: an embedded artifact's content is in the request already.
import { z } from 'zod';
import { defineRoute, HttpError, Reply, type Route } from '../http/index.ts';
import { artifactSchema } from './artifact.ts';
import { ARTIFACT_ACCOUNTS, artifactAccountSchema } from './artifact-accounts.ts';
import { ArtifactError, embeddedContent } from './embedded-content.ts';

function fetchRoute(url: string): Route {
  return defineRoute({
    method: 'PUT',
    url,
    summary: "An artifact's content: embedded/base64 and remote/base64 artifacts only",
    tag: 'artifacts',
    access: 'user',
    // The content, or the JSON error body of a refusal: Swagger 2.0 lists media types per operation.
    produces: ['application/octet-stream', 'application/json'],
    schema: { body: artifactSchema, response: { 200: z.string().describe('the content') } },
    handler: async ({ body }) => {
      try {
        return new Reply(200, embeddedContent(body), 'application/octet-stream');
      } catch (error) {
        if (error instanceof ArtifactError) {
          throw new HttpError('REQUEST_INVALID', `body.${error.field}: ${error.message}`);
        }
        throw error;
      }
    },
  });
}

export function artifactRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/artifacts/credentials',
      summary: 'Artifact accounts: the embedded account (base64 content) and the orchestrator account',
      tag: 'artifacts',
      access: 'user',
      schema: { response: { 200: z.array(artifactAccountSchema) } },
      handler: async () => ARTIFACT_ACCOUNTS,
    }),
    fetchRoute('/artifacts/fetch'),
    // Orca's client asks with a trailing slash.
    fetchRoute('/artifacts/fetch/'),
  ];
}
