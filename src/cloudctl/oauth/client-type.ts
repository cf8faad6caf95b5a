// What a client credential is for, as the spec's console offers it (Authentication 4): a remote
// network agent, which connects over gRPC as the one agent it is bound to and never calls the HTTP
// API, or Deployments Full Access, which trades its secret for access tokens at POST /oauth/token and
// calls the HTTP API with its roles (a webhook job, a workflow tool). Keeping the two apart means a
// leaked agent secret cannot start a deployment, and a leaked webhook secret cannot pose as an agent.
import { z } from 'zod';

export const CLIENT_TYPES = ['deployments', 'remoteNetworkAgent'] as const;

export const clientTypeSchema = z
  .enum(CLIENT_TYPES)
  .describe(
    'deployments: Deployments Full Access (access tokens from POST /oauth/token for the HTTP API, with the roles); remoteNetworkAgent: an agent connects with the secret (or a token issued for it) as agentId, and may not call the HTTP API',
  );

export type ClientType = z.infer<typeof clientTypeSchema>;
