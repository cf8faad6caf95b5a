// `orchestrator.accounts[].oAuthScopes` ("OAuth scopes for the cloud-provider authenticator") has
// nothing to act on: of the authenticators a kubeconfig can name, client-node's gcp, azure and oidc
// auth providers take no scopes (they run the provider's command or refresh the token as written in
// the kubeconfig), and exec plugins and static tokens or certificates have no notion of them. Loading
// goes on with a warning per account, so a value copied from the product we replace is not silently
// inert; the scopes belong in the credential plugin's own arguments.
import { isRecord } from '../../lib/is-record.ts';
import type { KeyFinding } from './key-check.ts';

export function oAuthScopesNotes(settings: Record<string, unknown>): KeyFinding[] {
  const orchestrator = settings.orchestrator;
  const accounts =
    isRecord(orchestrator) && Array.isArray(orchestrator.accounts) ? orchestrator.accounts : [];
  return accounts.flatMap((account, index): KeyFinding[] => {
    if (!isRecord(account) || !Array.isArray(account.oAuthScopes) || account.oAuthScopes.length === 0)
      return [];
    const name = typeof account.name === 'string' ? `account '${account.name}'` : 'this account';
    return [
      {
        severity: 'warning',
        path: ['orchestrator', 'accounts', index, 'oAuthScopes'],
        message: `has no effect for ${name}: no authenticator the agent supports takes OAuth scopes (kubeconfig tokens and client certificates, exec plugins, and the gcp, azure and oidc auth providers use the credentials as the kubeconfig gives them); request the scopes in the credential plugin itself, e.g. in the exec plugin's args`,
      },
    ];
  });
}
