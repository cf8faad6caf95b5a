// `http.*`: the HTTP API people and tools use (REST, Swagger, health, metrics).
import { z } from 'zod';
import { setting } from '../../../lib/setting-meta.ts';

const httpTlsSchema = z
  .strictObject({
    certFile: setting(z.string().min(1), {
      description: 'PEM certificate chain of the HTTP API',
      file: true,
    }),
    keyFile: setting(z.string().min(1), {
      description: 'PEM private key of the certificate (unencrypted)',
      file: true,
    }),
  })
  .describe('TLS of the HTTP API; absent means plain HTTP. Paths are relative to the config file');

export const httpSchema = z
  .strictObject({
    host: z.string().min(1).default('0.0.0.0').describe('address the HTTP API listens on'),
    port: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(7002)
      .describe('port of the HTTP API (REST, Swagger, health, metrics); 0 picks a free one'),
    tls: httpTlsSchema.optional(),
    externalUrl: z
      .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
      .optional()
      .describe(
        'the URL people and webhook jobs reach cloudctl at (a load balancer, an ingress); webhook callback URIs start with it. Default: http(s)://<this host name>:<port>',
      ),
    shutdownTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe('how long a stopping cloudctl lets in-flight HTTP requests finish'),
  })
  .describe('the HTTP API');
