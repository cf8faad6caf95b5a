// A preview as the API shows it (on the deployment's record and GET /deployments/{id}/previews): the
// Service it reaches, its URL, and whether it still answers. The state is read against the clock at
// each look: nothing has to run for a preview to expire.
import { z } from 'zod';
import type { StoredPreview } from './preview-store.ts';

export const PREVIEW_STATES = ['ACTIVE', 'EXPIRED', 'REVOKED'] as const;
export type PreviewState = (typeof PREVIEW_STATES)[number];

export const previewRecordSchema = z
  .object({
    id: z.string().describe('names the preview for DELETE /deployments/{id}/previews/{previewId}'),
    deploymentId: z.string(),
    target: z.string(),
    account: z.string(),
    namespace: z.string(),
    service: z.string(),
    port: z.string().describe("the Service's port the preview reaches"),
    url: z.string().describe('the preview URL: anyone holding it reaches the Service until it expires'),
    state: z.enum(PREVIEW_STATES),
    createdAt: z.string(),
    expiresAt: z.string(),
    revokedAt: z.string().optional(),
    revokedBy: z.string().optional(),
  })
  .describe('Preview');

export type PreviewRecord = z.infer<typeof previewRecordSchema>;

export function previewState(preview: StoredPreview, now: Date): PreviewState {
  if (preview.revoked !== undefined) return 'REVOKED';
  return now.getTime() >= preview.expiresAt.getTime() ? 'EXPIRED' : 'ACTIVE';
}

/** The path of a preview's URL below cloudctl's address; what follows it goes to the Service. */
export function previewPath(token: string): string {
  return `/previews/${token}`;
}

export function previewRecord(preview: StoredPreview, externalUrl: string, now: Date): PreviewRecord {
  return {
    id: preview.id,
    deploymentId: preview.deploymentId,
    target: preview.target,
    account: preview.account,
    namespace: preview.namespace,
    service: preview.service,
    port: preview.port,
    url: `${externalUrl}${previewPath(preview.token)}/`,
    state: previewState(preview, now),
    createdAt: preview.createdAt.toISOString(),
    expiresAt: preview.expiresAt.toISOString(),
    ...(preview.revoked === undefined
      ? {}
      : { revokedAt: preview.revoked.at.toISOString(), revokedBy: preview.revoked.by }),
  };
}
