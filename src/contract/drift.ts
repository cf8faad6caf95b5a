// Drift: what other field managers changed in an object cloudctl deployed. The agent finds it in the
// object's managedFields as its watch sees the object (it strips managedFields before sending, so it
// sends this summary instead), cloudctl stores it with the object and tells people. Both programs
// import these names; the wire form is `Drift` in proto/orchagent/v1/caching.proto.
import { z } from 'zod';

/**
 * The hash of what cloudctl deployed, which its deploys write on every object: an object carrying it
 * is one cloudctl deployed, and the only kind whose drift the agent summarises.
 */
export const CONTENT_HASH_ANNOTATION = 'deploy.vendor.io/content-hash';

/**
 * The field managers the agent writes as: `orch-agent` (server-side apply, patches, scales, jobs) and
 * `kubectl-client-side-apply` (its client-side apply, kubectl's way). Their changes are cloudctl's,
 * never drift; the latest of their entries is when cloudctl last wrote the object.
 */
export const AGENT_FIELD_MANAGERS: readonly string[] = ['orch-agent', 'kubectl-client-side-apply'];

/** At most this many paths are listed per manager; `morePaths` counts the rest. */
export const MAX_DRIFT_PATHS = 20;

/**
 * One manager that changed the object's content (what lies outside `metadata` and `status`, which is
 * what the content hash covers) after cloudctl last wrote it.
 */
export const driftingManagerSchema = z
  .object({
    /** The field manager, e.g. `kubectl`, `kubectl-edit`, `kube-controller-manager`. */
    manager: z.string(),
    /** `Update` or `Apply`. */
    operation: z.string(),
    /** `scale` for `kubectl scale`; absent for the object itself. */
    subresource: z.string().optional(),
    /**
     * When it last wrote (RFC 3339, to the second, as Kubernetes keeps it); null when not recorded
     * (Kubernetes keeps no time for a write through the scale subresource).
     */
    time: z.string().nullable(),
    /**
     * The paths it owns, as JSON paths from the object's root: `spec.replicas`,
     * `spec.template.spec.containers[name=web].image` (list items by their merge keys),
     * `spec.template.metadata.labels["app.kubernetes.io/name"]` (names that are not identifiers quoted).
     */
    paths: z.array(z.string()),
    /** Paths owned beyond those listed. */
    morePaths: z.int().min(0),
  })
  .describe('DriftingManager');
export type DriftingManager = z.infer<typeof driftingManagerSchema>;

/** The managers that changed an object cloudctl deployed since it last wrote it; never empty. */
export const driftSchema = z.object({ managers: z.array(driftingManagerSchema).min(1) }).describe('Drift');
export type Drift = z.infer<typeof driftSchema>;
