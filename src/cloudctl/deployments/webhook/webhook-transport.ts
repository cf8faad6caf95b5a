// How a rendered webhook request leaves cloudctl: straight from this process (`networkMode: direct`)
// or through an agent on the job's network (`remoteNetworkAgent`). A transport makes one attempt and
// reports the HTTP answer, whatever its status; deciding what an answer means and whether to try
// again is the sender's. It tells "no answer at all" apart by throwing WebhookConnectionError,
// because only that (and a few statuses) is worth another attempt.
import type { OperationPayload } from '../../../contract/index.ts';
import { CodedError } from '../../../lib/coded-error.ts';

export interface WebhookTransportRequest {
  /** The methods the agent's `httpRequest` takes, so a request can go either way. */
  method: OperationPayload<'httpRequest'>['method'];
  url: string;
  /** The values that go on the wire (secret references resolved, where the sender resolves them). */
  headers: Record<string, string>;
  /** Header name → `encrypted:` reference, for a transport that resolves secrets on its side. */
  secretHeaders: Record<string, string>;
  body?: string;
}

export interface WebhookTransportAnswer {
  status: number;
  /** The response body, cut at the transport's limit. */
  body: string;
}

export interface WebhookTransport {
  /**
   * True when the far side resolves secret headers (the remote network agent, with its own engines):
   * the sender then hands over the references and cloudctl never holds the values, which would
   * otherwise be stored with the agent operation.
   */
  readonly resolvesSecrets: boolean;
  send(request: WebhookTransportRequest): Promise<WebhookTransportAnswer>;
}

/**
 * The request got no HTTP answer: refused, reset, DNS failure, timeout, or the agent that was to
 * send it could not be reached. The message says which and never carries header values.
 */
export class WebhookConnectionError extends CodedError<'WEBHOOK_UNREACHABLE'> {
  constructor(message: string) {
    super('WEBHOOK_UNREACHABLE', message);
  }
}
