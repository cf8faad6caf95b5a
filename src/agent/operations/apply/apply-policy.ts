// Decides, per manifest, how the agent applies it: server-side or client-side, whether to clear
// managed fields, whether to add field defaults. Variant B resolves the three `serverSideApply`
// settings, the per-kind entries and the manifest's annotations; A and C use the two skip settings.
import { type AccountConfig, type AgentConfig, serverSideApplySettings } from '../../config/index.ts';

export const SSA_ANNOTATION = 'agent-orch.vendor.io/serverside-apply';
export const CLEAR_MANAGED_FIELDS_ANNOTATION = 'agent-orch.vendor.io/ssa-clear-managed-fields';
export const MANIFEST_DEFAULTS_ANNOTATION = 'agent-orch.vendor.io/ssa-manifest-defaults';

export interface ApplyPolicy {
  serverSide: boolean;
  clearManagedFields: boolean;
  manifestDefaults: boolean;
}

type Policy = 'always' | 'never' | 'allowed';

export interface ManifestFacts {
  kind: string;
  /** `group` of the apiVersion; '' for the core group. */
  group: string;
  annotations: Record<string, string>;
}

function enabledByAnnotation(annotations: Record<string, string>, key: string): boolean {
  return annotations[key]?.trim().toLowerCase() === 'enabled';
}

/**
 * One setting: the global value decides unless it is `allowed`; then the kind entry decides unless it
 * is `allowed`; then the annotation (`enabled`) decides.
 */
export function resolveSetting(global: Policy, kindEntry: Policy | undefined, annotated: boolean): boolean {
  if (global !== 'allowed') return global === 'always';
  if (kindEntry !== undefined && kindEntry !== 'allowed') return kindEntry === 'always';
  return annotated;
}

/** Kind entries name a kind as `Deployment`, `deployment` or `Deployment.apps`. */
function matchesKind(entryKind: string, facts: ManifestFacts): boolean {
  const wanted = entryKind.toLowerCase();
  const kind = facts.kind.toLowerCase();
  return wanted === kind || (facts.group !== '' && wanted === `${kind}.${facts.group.toLowerCase()}`);
}

export function resolveApplyPolicy(
  config: AgentConfig,
  account: AccountConfig,
  facts: ManifestFacts,
): ApplyPolicy {
  const annotations = facts.annotations;
  const ssa = serverSideApplySettings(config);
  if (ssa !== undefined) {
    const entry = ssa.kinds.find((k) => matchesKind(k.kind, facts));
    const serverSide = resolveSetting(
      ssa.enabled,
      entry?.enabled,
      enabledByAnnotation(annotations, SSA_ANNOTATION),
    );
    return {
      serverSide,
      // Clearing managed fields and adding defaults are server-side apply features.
      clearManagedFields:
        serverSide &&
        resolveSetting(
          ssa.clearManagedFields,
          entry?.clearManagedFields,
          enabledByAnnotation(annotations, CLEAR_MANAGED_FIELDS_ANNOTATION),
        ),
      manifestDefaults:
        serverSide &&
        resolveSetting(
          ssa.manifestDefaults,
          entry?.manifestDefaults,
          enabledByAnnotation(annotations, MANIFEST_DEFAULTS_ANNOTATION),
        ),
    };
  }
  // A and C: server-side apply unless skipped; defaults unless skipped (the spec: "true, or server-side
  // apply disabled, sends manifests as is"); these variants have no clear setting, only its annotation.
  const skipServerSide = 'skipServerSideApply' in account && account.skipServerSideApply;
  const skipDefaults = 'skipManifestDefaults' in account && account.skipManifestDefaults;
  const serverSide = !skipServerSide;
  return {
    serverSide,
    clearManagedFields: serverSide && enabledByAnnotation(annotations, CLEAR_MANAGED_FIELDS_ANNOTATION),
    manifestDefaults: serverSide && !skipDefaults,
  };
}
