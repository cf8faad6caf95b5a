// Where an operation goes when no session of this process serves its account: another cloudctl
// replica on the same database may hold the agent's stream. The replicas feature implements it; a
// single cloudctl has none.
export interface RemoteSession {
  replicaId: string;
  sessionId: string;
  agentId: string;
  resultRetryWindowMs: number;
}

export interface OperationRouter {
  /** The session on another live replica that should get the account's work, if any. */
  holderOf(account: string): Promise<RemoteSession | undefined>;
  /** Asks the holding replica to send the stored operation on its session. */
  route(holder: RemoteSession, operationId: string): Promise<void>;
  /** Tells the other replicas that the operation's result is stored, for whoever waits for it. */
  resultStored(operationId: string): Promise<void>;
}
