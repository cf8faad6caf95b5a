// GET /artifacts/credentials: the artifact accounts cloudctl serves (see artifact-accounts.ts).
// Every user may list them, as in the API we mirror: they name no secret and no cluster.
import { z } from 'zod';
import { defineRoute, type Route } from '../http/index.ts';
import { ARTIFACT_ACCOUNTS, artifactAccountSchema } from './artifact-accounts.ts';

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
  ];
}
