// `secrets.store.*`: settings of the engines that resolve `encrypted:` and `encryptedFile:` references.
// The spec only says "secrets store configuration"; docs/decisions.md records the shape we chose.
import { z } from 'zod';
import { caseInsensitiveEnum, nonEmptyString } from '../lib/schema-primitives.ts';
import { setting } from '../lib/setting-meta.ts';

/**
 * Loose maps for the agent, whose loader warns about unknown keys itself (entries copied from other
 * products carry extra keys); strict ones for cloudctl, where every unknown key is an error.
 */
type MapKind = 'loose' | 'strict';
const map = <T extends z.core.$ZodLooseShape>(kind: MapKind, shape: T) =>
  kind === 'strict' ? z.strictObject(shape) : z.object(shape);

// The original product's `secrets.vault` block, leaf for leaf, under our `secrets.store`.
const vaultSchema = (kind: MapKind) =>
  map(kind, {
    enabled: setting(z.boolean().default(false), {
      description:
        'resolve `encrypted:vault!e:<mount>!p:<path>!k:<key>` references from a Vault (or OpenBao) KV v2 engine',
    }),
    url: setting(z.url({ protocol: /^https?$/, error: 'expected an http or https URL' }).optional(), {
      description:
        'address of the Vault server, e.g. `https://vault.example.com:8200`; needed when enabled. HTTPS is verified against the system CAs (add one with `NODE_EXTRA_CA_CERTS`)',
      type: 'http(s) URL',
    }),
    authMethod: setting(caseInsensitiveEnum(['TOKEN', 'KUBERNETES']).default('TOKEN'), {
      description:
        '`TOKEN` sends `token` (or the `VAULT_TOKEN` environment variable); `KUBERNETES` logs in with the pod’s service account token',
      type: 'TOKEN \\| KUBERNETES (any case)',
    }),
    token: setting(nonEmptyString().optional(), {
      description:
        'Vault token for `authMethod: TOKEN`; when absent, the `VAULT_TOKEN` environment variable. May itself be an `encrypted:env`, `file` or `k8s` reference',
      secret: true,
    }),
    role: setting(nonEmptyString().optional(), {
      description: 'Vault role to log in as with `authMethod: KUBERNETES`',
    }),
    path: setting(nonEmptyString().default('kubernetes'), {
      description: 'mount path of the Kubernetes auth method in Vault (`auth/<path>/login`)',
    }),
    namespace: setting(nonEmptyString().optional(), {
      description: 'Vault namespace sent as `X-Vault-Namespace` (Vault Enterprise and OpenBao namespaces)',
    }),
  })
    .prefault({})
    .describe(
      'the `vault` engine: `encrypted:vault!e:<mount>!p:<path>!k:<key>`, a Vault or OpenBao KV v2 engine',
    )
    .superRefine((v, ctx) => {
      if (!v.enabled) return;
      if (v.url === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['url'],
          message: 'secrets.store.vault.enabled: true needs url',
        });
      }
      if (v.authMethod === 'KUBERNETES' && v.role === undefined) {
        ctx.addIssue({ code: 'custom', path: ['role'], message: 'authMethod: KUBERNETES needs role' });
      }
    });

export type VaultSettings = z.infer<ReturnType<typeof vaultSchema>>;

export const secretsSchema = (kind: MapKind = 'loose') =>
  map(kind, {
    store: map(kind, {
      file: map(kind, {
        baseDir: setting(nonEmptyString().optional(), {
          description: 'directory relative `f:` paths resolve against; the config file directory by default',
        }),
      })
        .prefault({})
        .describe('the `file` engine: `encrypted:file!f:<path>` (and `!k:<key>` in a YAML or JSON map)'),
      env: map(kind, {
        prefix: setting(z.string().default(''), {
          description: 'prefix added to every `n:` variable name',
        }),
      })
        .prefault({})
        .describe('the `env` engine: `encrypted:env!n:<variable>`'),
      vault: vaultSchema(kind),
    })
      .prefault({})
      .describe('settings of the secret engines (`file`, `env`, `k8s` needs none, `vault`)'),
  }).prefault({});
