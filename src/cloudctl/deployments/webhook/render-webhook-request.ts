// Turns a webhook definition into the request to send, for one run of one `runWebhook` step: the
// `{{vendor.*}}` values of the run and the step's `{{context.*}}` values are put in place, as plain
// text (no escaping: the template decides the quoting, as in the original product), in a single
// pass (a value that itself contains `{{…}}` is sent as written). Nothing is sent here: a template
// that cannot be rendered throws before anything leaves. Secret header values stay references for
// the sender to resolve.
import { DeploymentError, type DeploymentErrorCode } from '../deployment-errors.ts';
import { isHttpUrl } from '../deployment-file/http-url.ts';
import type { VendorValues } from '../deployment-file/vendor-variables.ts';
import { type HTTP_METHODS, isSecretValue, type Webhook } from '../deployment-file/webhook.ts';
import { parseTemplate } from '../deployment-file/webhook-template.ts';
import { webhookTemplates } from '../deployment-file/webhook-templates.ts';

export type RenderedHeader = { key: string; value: string } | { key: string; secretReference: string };

export interface RenderedWebhookRequest {
  webhook: string;
  method: (typeof HTTP_METHODS)[number];
  url: string;
  headers: RenderedHeader[];
  body: string | undefined;
}

interface Problem {
  code: DeploymentErrorCode;
  message: string;
}

export function renderWebhookRequest(
  webhook: Webhook,
  /** The step's `context`, as declared. */
  context: Readonly<Record<string, string>>,
  vendor: VendorValues,
): RenderedWebhookRequest {
  const problems: Problem[] = [];
  const rendered = new Map<string, string>();
  for (const { field, template } of webhookTemplates(webhook)) {
    const parsed = parseTemplate(template);
    if (!parsed.ok) {
      problems.push({ code: 'WEBHOOK_TEMPLATE_INVALID', message: `${field}: ${parsed.message}` });
      continue;
    }
    let out = '';
    for (const part of parsed.parts) {
      if (typeof part === 'string') out += part;
      else if (part.namespace === 'vendor') {
        const value = vendor[part.name];
        if (value === undefined)
          problems.push({
            code: 'WEBHOOK_VARIABLE_UNDEFINED',
            message: `${field}: ${part.text} has no value at this step`,
          });
        else out += value;
      } else if (Object.hasOwn(context, part.name)) out += context[part.name];
      else {
        const declared = Object.keys(context);
        problems.push({
          code: 'WEBHOOK_CONTEXT_UNDECLARED',
          message: `${field}: ${part.text} is not declared in the step's context (${
            declared.length === 0 ? 'it declares none' : `declared: ${declared.join(', ')}`
          })`,
        });
      }
    }
    rendered.set(field, out);
  }

  const url = rendered.get('uriTemplate') ?? '';
  if (problems.length === 0 && !isHttpUrl(url))
    problems.push({ code: 'WEBHOOK_URL_INVALID', message: `uriTemplate: rendered to '${url}'` });
  const headers = webhook.headers.map((header, index): RenderedHeader => {
    if (isSecretValue(header.value)) return { key: header.key, secretReference: header.value };
    const value = rendered.get(`headers[${index}].value`) ?? '';
    if (/[\r\n]/.test(value))
      problems.push({
        code: 'WEBHOOK_HEADER_INVALID',
        message: `headers[${index}].value (${header.key}): the rendered value holds a line break`,
      });
    return { key: header.key, value };
  });

  const [first] = problems;
  if (first !== undefined)
    throw new DeploymentError(
      first.code,
      `webhook '${webhook.name}' cannot be sent: ${problems.map((p) => p.message).join('; ')}`,
    );
  return {
    webhook: webhook.name,
    method: webhook.method,
    url,
    headers,
    body: rendered.get('bodyTemplate.inline'),
  };
}
