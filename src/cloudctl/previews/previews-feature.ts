// The previews feature's factory: preview URLs that reach a Service of an account's cluster from
// outside it, through the agent serving the account (its `serviceProxy` operation). A deployment's
// exposeServices step opens them through `links`; the routes forward, list and revoke. It holds
// nothing open: a preview lives in the database, so every replica answers it and a restart keeps it.
import type { AccountGuard } from '../accounts/index.ts';
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import type { AgentOperations } from '../operations/index.ts';
import { type PreviewRecord, previewRecord } from './preview-record.ts';
import { previewRoutes } from './preview-routes.ts';
import type { NewPreview, PreviewStore } from './preview-store.ts';

/** What other features (a deployment's steps, its record) do with previews. */
export interface PreviewLinks {
  /** Opens a preview per entry (or finds the one a step opened before a restart). */
  open(entries: readonly NewPreview[]): Promise<PreviewRecord[]>;
  ofDeployment(deploymentId: string): Promise<PreviewRecord[]>;
}

export interface PreviewsFeatureDeps {
  stores: { previews: PreviewStore };
  /** Who carries each forwarded request to the agent serving the preview's account. */
  dispatcher: AgentOperations;
  guard: AccountGuard;
  /** Where people reach this cloudctl's HTTP API: the preview URLs start with it. */
  externalUrl: () => string;
  now: () => Date;
}

export interface PreviewsFeature extends Feature {
  links: PreviewLinks;
  routes: Route[];
}

export function previewsFeature(deps: PreviewsFeatureDeps): PreviewsFeature {
  const store = deps.stores.previews;
  const record = (p: Parameters<typeof previewRecord>[0]) => previewRecord(p, deps.externalUrl(), deps.now());
  return {
    name: 'previews',
    phase: 'services',
    links: {
      open: async (entries) => (await store.open(entries)).map(record),
      ofDeployment: async (id) => (await store.ofDeployment(id)).map(record),
    },
    routes: previewRoutes({ ...deps, store, agents: deps.dispatcher }),
  };
}
