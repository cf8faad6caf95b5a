// Every error the deployments library raises on purpose, named and coded in one place so users can
// search for them (as src/cloudctl/errors.ts does for the rest of cloudctl).
export const DEPLOYMENT_ERRORS = {
  WEBHOOK_TEMPLATE_INVALID: 'a webhook template is malformed or names an unknown variable',
  WEBHOOK_VARIABLE_UNDEFINED: 'a vendor variable the template uses has no value at this step',
  WEBHOOK_CONTEXT_UNDECLARED: "a context variable the template uses is not declared in the step's context",
  WEBHOOK_URL_INVALID: 'the rendered uriTemplate is not an http:// or https:// URL',
  WEBHOOK_HEADER_INVALID: 'a rendered header value holds a line break',
} as const;

export type DeploymentErrorCode = keyof typeof DEPLOYMENT_ERRORS;

export class DeploymentError extends Error {
  readonly code: DeploymentErrorCode;

  constructor(code: DeploymentErrorCode, message: string) {
    super(`${code}: ${message}`);
    this.name = 'DeploymentError';
    this.code = code;
  }
}
