// Keys of the product we replace that we spell differently, by the pattern of where they sit
// (SchemaIndex's form), with our key. A config copied from it without renaming gets a "did you mean"
// naming ours instead of a silent "unknown key". Sources: its published agent configuration options.
export const ORIGINAL_KEYS: ReadonlyMap<string, string> = new Map([
  // Its metrics listener: `prometheus.enabled`, `prometheus.port` (8008, `/metrics` and a second path).
  ['prometheus', 'telemetry'],
  // Its Vault settings; ours sit with the other engines' (the spec's `secrets.store.*`).
  ['secrets.vault', 'store.vault'],
  // The renames our spec makes throughout.
  ['clouddriver', 'cloudctl'],
  ['kubernetes', 'orchestrator'],
  ['orchestrator.accounts[].kubeconfigFile', 'orchConfigFile'],
  ['orchestrator.accounts[].kubeConfigFile', 'orchConfigFile'],
  ['orchestrator.accounts[].onlySpinnakerManaged', 'onlyPlatformManaged'],
]);
