// `cloudctl.*` and `timeoutSeconds`: how the agent reaches the control plane (spec: "Settings: control
// plane connection"). Backoff durations are in nanoseconds, as the spec gives them.
import { z } from 'zod';
import { nonEmptyString, nonNegativeInt } from '../../../lib/schema-primitives.ts';
import { setting } from '../../../lib/setting-meta.ts';
import type { PerVariant, Variant } from './variant.ts';

const tokenCommand = z
  .object({
    command: setting(nonEmptyString(), {
      description: 'command run to obtain the bearer token',
      since: '0.3.0',
    }),
    args: setting(z.array(z.string()).default([]), {
      description: 'arguments of the command',
      since: '0.3.0',
    }),
    format: setting(z.enum(['', 'raw', 'json']).default(''), {
      description: '`raw`: the output is the token; `json` or empty: an object with attribute `token`',
      since: '0.3.0',
    }),
    refreshIntervalSeconds: setting(nonNegativeInt().default(0), {
      description: 'how often the command runs again; 0 runs it once',
      since: '0.3.0',
    }),
  })
  .meta({ description: 'command producing the bearer token' });

const auth = z
  .object({
    token: setting(nonEmptyString().optional(), {
      description: 'bearer token sent with every call to the control plane',
      since: '0.3.0',
      secret: true,
    }),
    tokenCommand: tokenCommand.optional(),
  })
  .refine((a) => !(a.token !== undefined && a.tokenCommand !== undefined), {
    error: 'set either auth.token or auth.tokenCommand, not both: it would be unclear which one is sent',
    path: ['tokenCommand'],
  });

const NANOS_PER_SECOND = 1_000_000_000;

const backoff = z
  .object({
    baseDelay: setting(z.int().min(1).default(NANOS_PER_SECOND), {
      description: 'delay after the first connection failure, in nanoseconds',
      since: '1.0.54',
    }),
    multiplier: setting(
      z
        .number()
        .min(1, { error: 'must be at least 1: a smaller multiplier would shrink the delay' })
        .default(1.6),
      { description: 'factor applied to the delay after each failed retry', since: '1.0.54' },
    ),
    jitter: setting(z.number().min(0).max(1).default(0.2), {
      description: 'randomization factor of the delay (0 to 1)',
      since: '1.0.54',
    }),
    maxDelay: setting(
      z
        .int()
        .min(1)
        .default(120 * NANOS_PER_SECOND),
      {
        description: 'upper bound of the delay, in nanoseconds',
        since: '1.0.54',
      },
    ),
  })
  .refine((b) => b.maxDelay >= b.baseDelay, {
    error: 'must be at least cloudctl.backoff.baseDelay',
    path: ['maxDelay'],
  });

export type CloudctlBackoff = z.infer<typeof backoff>;
/** grpc's reconnect backoff, which `cloudctl.backoff` defaults to; A and C watches use it too. */
export const CLOUDCTL_BACKOFF_DEFAULTS: CloudctlBackoff = backoff.parse({});

const tls = z.object({
  serverName: setting(nonEmptyString().optional(), {
    description: 'name expected on the control plane certificate (overrides the host name)',
  }),
  insecureSkipVerify: setting(z.boolean().default(false), {
    description: 'do not verify the control plane certificate',
  }),
  clientCertFile: setting(nonEmptyString().optional(), {
    description: 'client certificate (PEM) for mTLS; may also hold the key',
    file: true,
  }),
  clientKeyFile: setting(nonEmptyString().optional(), {
    description: 'client key (PEM) when it is not in the certificate file',
    file: true,
  }),
  clientKeyFilePassword: setting(nonEmptyString().optional(), {
    description: 'password of an encrypted client key',
    secret: true,
  }),
  cacertFile: setting(nonEmptyString().optional(), {
    description: 'CA bundle (PEM) used to verify the control plane; the system store otherwise',
    file: true,
  }),
});

const HEARTBEAT_DEFAULT: PerVariant<number> = { A: 60, B: 20, C: 60 };
const INSECURE_DEFAULT: PerVariant<boolean> = { A: false, B: true, C: true };
const RESPONSE_MAX_RETRIES: PerVariant<number> = { A: 1200, B: 3, C: 3 };

/** Settings every variant has; only their defaults differ. */
export function cloudctlShape(variant: Variant) {
  return {
    auth: auth.prefault({}),
    grpc: setting(nonEmptyString().default('localhost:9091'), {
      description: 'host:port of the control plane or of a gRPC proxy in front of it',
    }),
    keepAliveHeartbeatSeconds: setting(nonNegativeInt().default(HEARTBEAT_DEFAULT[variant]), {
      description: 'application heartbeat period in seconds; 0 turns keep-alive off',
      since: '0.6.9',
    }),
    keepAliveTimeOutSeconds: setting(z.int().min(1).optional(), {
      description: 'seconds without an answer to a keep-alive before the connection is closed',
    }),
    insecure: setting(z.boolean().default(INSECURE_DEFAULT[variant]), {
      description: 'true: plaintext connection; false: TLS',
    }),
    noProxy: setting(z.boolean().default(false), {
      description: 'ignore HTTP_PROXY, HTTPS_PROXY and NO_PROXY when connecting to the control plane',
      since: '0.3.1',
    }),
    responseRetries: z
      .object({
        enabled: setting(z.boolean().default(true), {
          description: 'retry delivering operation results to the control plane',
          since: '0.6.7',
        }),
        maxRetries: setting(nonNegativeInt().default(RESPONSE_MAX_RETRIES[variant]), {
          description: 'number of delivery retries',
          since: '0.6.7',
        }),
        backOffMs: setting(nonNegativeInt().default(3000), {
          description: 'wait between delivery retries in milliseconds',
          since: '0.6.7',
        }),
      })
      .prefault({}),
    tls: tls
      .refine((t) => t.clientKeyFile === undefined || t.clientCertFile !== undefined, {
        error: 'a client key needs cloudctl.tls.clientCertFile as well',
        path: ['clientKeyFile'],
      })
      .prefault({}),
  };
}

/** Settings only variant B has. */
export function cloudctlShapeB() {
  return {
    backoff: backoff.prefault({}),
    keepAliveOperationSeconds: setting(nonNegativeInt().default(0), {
      description: 'restart the session after this many seconds without operations; 0 never',
      since: '1.0.58',
    }),
  };
}

export const timeoutSecondsSchema = () =>
  setting(nonNegativeInt().default(0), {
    description: 'maximum wait on a control plane request in seconds, hello included; 0 means no timeout',
    since: '0.5.12',
  });
