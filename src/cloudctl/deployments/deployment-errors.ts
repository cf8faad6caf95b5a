// Every error the deployments library raises on purpose, named and coded in one place so users can
// search for them (as src/cloudctl/errors.ts does for the rest of cloudctl).
import { CodedError } from '../../lib/coded-error.ts';
export const DEPLOYMENT_ERRORS = {
  WEBHOOK_TEMPLATE_INVALID: 'a webhook template is malformed or names an unknown variable',
  WEBHOOK_VARIABLE_UNDEFINED: 'a vendor variable the template uses has no value at this step',
  WEBHOOK_CONTEXT_UNDECLARED: "a context variable the template uses is not declared in the step's context",
  WEBHOOK_URL_INVALID: 'the rendered uriTemplate is not an http:// or https:// URL',
  WEBHOOK_HEADER_INVALID: 'a rendered header value holds a line break',
  WEBHOOK_SECRET_UNRESOLVED: 'a secret reference in a webhook header could not be resolved; nothing was sent',
  WEBHOOK_UNREACHABLE:
    'the webhook gave no usable answer (no connection, a timeout, 5xx or 429) to its first attempt and every retry',
  WEBHOOK_REJECTED: 'the webhook answered a status that retrying cannot change (3xx, or 4xx other than 429)',
  WEBHOOK_SEND_FAILED:
    'the request was refused before it left (the agent refused the operation, an invalid request); not retried',
} as const;

export type DeploymentErrorCode = keyof typeof DEPLOYMENT_ERRORS;

export class DeploymentError extends CodedError<DeploymentErrorCode> {
  constructor(code: DeploymentErrorCode, message: string) {
    super(code, `${code}: ${message}`);
  }
}
