// Agents proven by credentials made at runtime (POST /clients, type remoteNetworkAgent), beside those
// of cloudctl's config file: a port the OAuth feature fills, so an agent made today connects without a
// config change or a restart. It is asked by the token's hash only; the token itself never leaves the
// authenticator.

/** A usable credential bound to an agent. */
export interface RuntimeAgentCredential {
  credentialId: string;
  agentId: string;
}

/** A credential of another kind: it is known, but proves no agent (the refusal says so). */
export interface NotAnAgentCredential {
  credentialId: string;
  notForAgents: string;
}

export interface AgentCredentialSource {
  /** The credential a bearer token's hash proves, one that is not for agents, or undefined. */
  identify(tokenHash: string): Promise<RuntimeAgentCredential | NotAnAgentCredential | undefined>;
}
