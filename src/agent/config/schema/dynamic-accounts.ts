// Dynamic account settings: the accounts the control plane assigns to agents on the fly.
// B has a `dynamicAccounts` block; C only a switch; A neither (it takes assignments, as before the
// switch existed). The agent applies the switch itself (a refused assignment says which setting
// refused it) and sends the rest in hello: the scans and the interceptor run on the control plane.
import { z } from 'zod';
import { nonEmptyString, positiveInt } from '../../../lib/schema-primitives.ts';
import { setting } from '../../../lib/setting-meta.ts';

/** A pattern the control plane runs as a JavaScript regular expression: one that does not compile is an error here. */
const regexPattern = () =>
  nonEmptyString().superRefine((pattern, ctx) => {
    try {
      new RegExp(pattern);
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a regular expression, found '${pattern}' (${error instanceof Error ? error.message : String(error)})`,
      });
    }
  });

export function dynamicAccountsShapeB() {
  return {
    dynamicAccounts: z
      .object({
        enabled: setting(z.boolean().default(false), {
          description:
            'take accounts the control plane assigns at run time (add_accounts); false refuses every assignment with a message naming this setting. Static accounts are never affected',
        }),
        interceptor: z
          .object({
            enabled: setting(z.boolean().default(true), {
              description:
                'an account created on the control plane at run time (POST /credentials) that matches namePatterns or credentialScanNamePatterns is sent at once, not at the next scan',
            }),
          })
          .prefault({}),
        scanBatchSize: setting(positiveInt().default(572), {
          description: 'most accounts the control plane sends in one add_accounts message',
        }),
        scanFrequencySeconds: setting(positiveInt().default(120), {
          description:
            'how often the control plane scans its accounts for ones matching namePatterns or credentialScanNamePatterns and sends new matches',
        }),
        namePatterns: setting(z.array(regexPattern()).default([]), {
          description:
            'regular expressions (searched, anchor with ^ and $ for whole names) matched against control-plane account names; matching accounts are assigned to this agent',
        }),
        credentialScanNamePatterns: setting(z.array(regexPattern()).default([]), {
          description:
            "regular expressions matched against where a control-plane account's definition finds its cluster credentials (its orchConfigFile path or secret reference); matching accounts are assigned to this agent",
        }),
      })
      .prefault({}),
  };
}

export function dynamicAccountsShapeC() {
  return {
    dynamicAccountsEnabled: setting(z.boolean().default(true), {
      description:
        'take accounts the control plane assigns at run time (add_accounts); false refuses every assignment with a message naming this setting. Static accounts are never affected',
      since: '1.0.39',
    }),
  };
}
