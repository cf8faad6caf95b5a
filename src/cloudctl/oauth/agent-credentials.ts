// Remote network agent credentials as the agents' authenticator asks for them: the secret itself (an
// agent's `cloudctl.auth.token`), or an access token POST /oauth/token issued for it (an agent's
// `tokenCommand`), proves the agent the credential is bound to. A Deployments Full Access credential
// proves no agent: its refusal says which type an agent needs.
import type { AgentCredentialSource } from '../auth/index.ts';
import type { OAuthStore } from './oauth-store.ts';

export function agentCredentials(store: OAuthStore, now: () => Date): AgentCredentialSource {
  return {
    identify: async (tokenHash) => {
      const found = await store.agentClient(tokenHash, now());
      if (found === undefined) return undefined;
      if ('type' in found)
        return {
          credentialId: found.clientId,
          notForAgents: `client credential ${found.clientId} is of type deployments; an agent connects with a remoteNetworkAgent credential`,
        };
      return { credentialId: found.clientId, agentId: found.agentId };
    },
  };
}
