// Whether this agent takes dynamic accounts and what it subscribes to, resolved once from the
// variant: B reads its `dynamicAccounts` block, C its `dynamicAccountsEnabled` switch, A has neither
// and takes assignments as it did before the switch existed (docs/decisions.md).
import type { AgentConfig } from './schema/agent-config.ts';

export interface DynamicAccountSettings {
  enabled: boolean;
  /** The setting that decided `enabled`, as the config file spells it; undefined in A. */
  setting: 'dynamicAccounts.enabled' | 'dynamicAccountsEnabled' | undefined;
  /** B only (the control plane acts on them); false, 0 and empty in A and C. */
  interceptorEnabled: boolean;
  scanBatchSize: number;
  scanFrequencySeconds: number;
  namePatterns: string[];
  credentialScanNamePatterns: string[];
}

export function dynamicAccountSettings(config: AgentConfig): DynamicAccountSettings {
  const none = {
    interceptorEnabled: false,
    scanBatchSize: 0,
    scanFrequencySeconds: 0,
    namePatterns: [],
    credentialScanNamePatterns: [],
  };
  switch (config.variant) {
    case 'A':
      return { enabled: true, setting: undefined, ...none };
    case 'C':
      return { enabled: config.dynamicAccountsEnabled, setting: 'dynamicAccountsEnabled', ...none };
    case 'B': {
      const d = config.dynamicAccounts;
      return {
        enabled: d.enabled,
        setting: 'dynamicAccounts.enabled',
        interceptorEnabled: d.interceptor.enabled,
        scanBatchSize: d.scanBatchSize,
        scanFrequencySeconds: d.scanFrequencySeconds,
        namePatterns: d.namePatterns,
        credentialScanNamePatterns: d.credentialScanNamePatterns,
      };
    }
  }
}
