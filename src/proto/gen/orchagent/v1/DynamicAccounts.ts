// Original file: proto/orchagent/v1/session.proto


/**
 * The agent's dynamic accounts settings, sent at hello so the control plane knows what it may assign.
 */
export interface DynamicAccounts {
  /**
   * false: the agent refuses every add_accounts (dynamicAccounts.enabled in B, dynamicAccountsEnabled
   * in C); the control plane should not send any.
   */
  'enabled'?: (boolean);
  /**
   * B: accounts created on the fly that match are sent at once instead of at the next scan.
   */
  'interceptorEnabled'?: (boolean);
  /**
   * B: at most this many accounts per add_accounts message.
   */
  'scanBatchSize'?: (number);
  /**
   * B: how often the control plane scans its accounts for this agent's patterns.
   */
  'scanFrequencySeconds'?: (number);
  /**
   * B: the agent subscribes to control-plane accounts whose names match one of these patterns.
   */
  'namePatterns'?: (string)[];
  /**
   * B: ... and to accounts whose credential definition location matches one of these.
   */
  'credentialScanNamePatterns'?: (string)[];
}

/**
 * The agent's dynamic accounts settings, sent at hello so the control plane knows what it may assign.
 */
export interface DynamicAccounts__Output {
  /**
   * false: the agent refuses every add_accounts (dynamicAccounts.enabled in B, dynamicAccountsEnabled
   * in C); the control plane should not send any.
   */
  'enabled': (boolean);
  /**
   * B: accounts created on the fly that match are sent at once instead of at the next scan.
   */
  'interceptorEnabled': (boolean);
  /**
   * B: at most this many accounts per add_accounts message.
   */
  'scanBatchSize': (number);
  /**
   * B: how often the control plane scans its accounts for this agent's patterns.
   */
  'scanFrequencySeconds': (number);
  /**
   * B: the agent subscribes to control-plane accounts whose names match one of these patterns.
   */
  'namePatterns': (string)[];
  /**
   * B: ... and to accounts whose credential definition location matches one of these.
   */
  'credentialScanNamePatterns': (string)[];
}
