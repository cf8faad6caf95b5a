// Dynamic account settings: the accounts the control plane assigns to agents on the fly.
// B has a `dynamicAccounts` block; C only a switch; A neither.
import { z } from 'zod';
import { setting } from '../../../lib/setting-meta.ts';
import { nonEmptyString, positiveInt } from './primitives.ts';

export function dynamicAccountsShapeB() {
  return {
    dynamicAccounts: z
      .object({
        enabled: setting(z.boolean().default(false), { description: 'dynamic account feature' }),
        interceptor: z
          .object({
            enabled: setting(z.boolean().default(true), {
              description: 'intercept accounts added on the fly',
            }),
          })
          .prefault({}),
        scanBatchSize: setting(positiveInt().default(572), {
          description: 'accounts sent to the agent at a time',
        }),
        scanFrequencySeconds: setting(positiveInt().default(120), {
          description: 'how often accounts are scanned',
        }),
        namePatterns: setting(z.array(nonEmptyString()).default([]), {
          description: 'account name patterns matched for migration',
        }),
        credentialScanNamePatterns: setting(z.array(nonEmptyString()).default([]), {
          description: 'patterns matched in credential definition locations',
        }),
      })
      .prefault({}),
  };
}

export function dynamicAccountsShapeC() {
  return {
    dynamicAccountsEnabled: setting(z.boolean().default(true), {
      description: 'enables the dynamic accounts interface',
      since: '1.0.39',
    }),
  };
}
