// `analysis.*`: the metric providers deployment files' canary analysis may name, configured here as
// the original product configures them in its UI (a file names a provider, never its address or its
// credentials). `builtin` needs no entry; each entry here is a Prometheus-compatible query API.
import { z } from 'zod';
import { setting } from '../../../lib/setting-meta.ts';
import { uniqueEntries } from '../../../lib/unique-entries.ts';

/** The provider every cloudctl has: it needs no configuration, so no entry may take its name. */
export const BUILTIN_PROVIDER_NAME = 'builtin';

const prometheusProviderSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .refine((name) => name !== BUILTIN_PROVIDER_NAME, {
        message: `'${BUILTIN_PROVIDER_NAME}' is the built-in provider's name; choose another`,
      })
      .describe('what deployment files call it (`metricProviderName`, `defaultMetricProviderName`)'),
    type: z.literal('prometheus').describe('`prometheus`: a Prometheus-compatible HTTP query API'),
    baseUrl: setting(z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }), {
      type: 'URL',
      description:
        'where its HTTP API is, without `/api/v1` (`https://prometheus.example:9090`, or a path prefix it is served under)',
    }),
    bearerToken: setting(z.string().min(1).optional(), {
      description:
        'sent as `Authorization: Bearer <token>`; write it as a reference (`encrypted:env!n:PROM_TOKEN`, `encrypted:file!f:/var/run/secrets/prom-token`), it is never logged',
      secret: true,
    }),
    caFile: setting(z.string().min(1).optional(), {
      description:
        "PEM CA bundle that signs the server's certificate, for a private CA; certificates are always verified",
      file: true,
    }),
    timeoutSeconds: z
      .number()
      .int()
      .positive()
      .default(10)
      .describe('how long one query may take; a query that takes longer fails its judgment'),
  })
  .describe('a Prometheus query provider');

export type PrometheusProvider = z.infer<typeof prometheusProviderSchema>;

export const analysisSchema = z
  .strictObject({
    providers: z
      .array(prometheusProviderSchema)
      .default([])
      .superRefine(
        uniqueEntries(
          'name',
          'analysis.providers',
          (name, first) => `provider '${name}' is already ${first}`,
        ),
      )
      .describe('the metric providers besides `builtin` that analysis steps may name'),
  })
  .describe("canary analysis: the metric providers deployment files' analysis steps query");
