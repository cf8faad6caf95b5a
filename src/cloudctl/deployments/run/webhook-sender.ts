// What the runner needs to send a webhook's request: directly from cloudctl, or from an agent's
// network (`networkMode: remoteNetworkAgent`), through the agent `agentIdentifier` names or else the
// one serving the target's account.
import type { Logger } from 'pino';
import { DeploymentError } from '../deployment-errors.ts';
import {
  type ExecuteOnAgent,
  remoteAgentWebhookTransport,
} from '../webhook/remote-agent-webhook-transport.ts';
import type { RenderedWebhookRequest } from '../webhook/render-webhook-request.ts';
import { sendWebhookRequest } from '../webhook/send-webhook-request.ts';
import type { WebhookTransport } from '../webhook/webhook-transport.ts';

export type WebhookRoute =
  | { mode: 'direct' }
  /** Through the agent named `agentIdentifier`, or else the one serving `account`. */
  | { mode: 'agent'; account: string; agentIdentifier: string | undefined };

export interface WebhookSender {
  /** Resolves on a 2xx answer; throws a DeploymentError when the job cannot be reached or refuses. */
  send(
    request: RenderedWebhookRequest,
    options: { retryCount: number; via: WebhookRoute },
  ): Promise<{ status: number }>;
}

export interface WebhookSenderDeps {
  /** Sends from cloudctl's own network. */
  direct: WebhookTransport;
  /** Runs the agent's `httpRequest` operation on the agent serving `account`. */
  onAgent(account: string): ExecuteOnAgent;
  /** An account the agent with this identifier serves now, to reach that agent. */
  accountOfAgent(agentIdentifier: string): string | undefined;
  secrets: (reference: string) => Promise<string>;
  logger: Logger;
}

/** The sender over sendWebhookRequest: direct, or through the agent the step names. */
export function webhookSender(deps: WebhookSenderDeps): WebhookSender {
  return {
    async send(request, { retryCount, via }) {
      let transport = deps.direct;
      if (via.mode === 'agent') {
        const account =
          via.agentIdentifier === undefined ? via.account : deps.accountOfAgent(via.agentIdentifier);
        if (account === undefined)
          throw new DeploymentError(
            'WEBHOOK_UNREACHABLE',
            `${request.webhook}: agent ${via.agentIdentifier} (agentIdentifier) is not connected`,
          );
        transport = remoteAgentWebhookTransport(deps.onAgent(account));
      }
      const { status } = await sendWebhookRequest(request, { retryCount }, { ...deps, transport });
      return { status };
    },
  };
}
