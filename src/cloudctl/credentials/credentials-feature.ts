// The credentials feature's factory: the credentials API, which reads every account and writes the
// accounts defined in cloudctl, each write told on (`changed`) so that placement follows it.
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { credentialsRoutes } from './credentials-routes.ts';
import type { CredentialsDeps } from './credentials-service.ts';

export type CredentialsFeatureDeps = CredentialsDeps;

export interface CredentialsFeature extends Feature {
  routes: Route[];
}

export function credentialsFeature(deps: CredentialsFeatureDeps): CredentialsFeature {
  return { name: 'credentials', phase: 'services', routes: credentialsRoutes(deps) };
}
