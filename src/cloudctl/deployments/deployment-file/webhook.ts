// `webhooks[]`: the HTTP request a `runWebhook` step sends to an external job, with every field of
// the spec's webhook definition, plus `timeout` (how long the step waits for the job's callback).
// Header values may be secret references (`encrypted:<engine>!…`): they stay references here and
// are resolved by whoever sends the request, so no secret value is ever part of a deployment file's
// parsed form.
import { z } from 'zod';
import { parseSecretReference } from '../../../secrets/index.ts';
import { durationSchema } from './duration.ts';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export const NETWORK_MODES = ['direct', 'remoteNetworkAgent'] as const;
export const DEFAULT_WEBHOOK_TIMEOUT = { duration: 24, unit: 'hours' } as const;

/** An HTTP field name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function isSecretValue(value: string): boolean {
  return value.startsWith('encrypted:') || value.startsWith('encryptedFile:');
}

const headerValueSchema = z.string().superRefine((value, ctx) => {
  if (!isSecretValue(value)) return;
  if (value.startsWith('encryptedFile:')) {
    ctx.addIssue({
      code: 'custom',
      message: 'a header value is a secret value (encrypted:…), not a file (encryptedFile:…)',
    });
    return;
  }
  const reference = parseSecretReference(value);
  if (typeof reference === 'string') ctx.addIssue({ code: 'custom', message: reference });
});

export const webhookHeaderSchema = z.strictObject({
  key: z.string().regex(HEADER_NAME, 'expected an HTTP header name'),
  value: headerValueSchema,
});

export const webhookSchema = z
  .strictObject({
    name: z.string().min(1),
    method: z
      .string()
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(HTTP_METHODS)),
    uriTemplate: z.string().min(1),
    networkMode: z.enum(NETWORK_MODES),
    agentIdentifier: z.string().min(1).optional(),
    headers: z.array(webhookHeaderSchema).default([]),
    bodyTemplate: z.strictObject({ inline: z.string() }).optional(),
    retryCount: z.int().min(0).max(100).default(0),
    timeout: durationSchema.default(DEFAULT_WEBHOOK_TIMEOUT),
    disableCallback: z.boolean().default(false),
  })
  .superRefine((webhook, ctx) => {
    if (webhook.agentIdentifier !== undefined && webhook.networkMode !== 'remoteNetworkAgent')
      ctx.addIssue({
        code: 'custom',
        path: ['agentIdentifier'],
        message: 'agentIdentifier is used only with networkMode: remoteNetworkAgent',
      });
    const seen = new Map<string, number>();
    webhook.headers.forEach((header, index) => {
      const first = seen.get(header.key.toLowerCase());
      if (first === undefined) seen.set(header.key.toLowerCase(), index);
      else
        ctx.addIssue({
          code: 'custom',
          path: ['headers', index, 'key'],
          message: `header '${header.key}' is already set by headers[${first}]`,
        });
    });
  });

export type Webhook = z.output<typeof webhookSchema>;
export type WebhookHeader = z.output<typeof webhookHeaderSchema>;
