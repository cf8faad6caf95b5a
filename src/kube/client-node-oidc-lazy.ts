// Stands in for client-node's OIDC authenticator (dist/oidc_auth.js) inside its KubeConfig: the
// real one, with openid-client and jose (~8 ms and ~0.5 MiB at start), is loaded when a kubeconfig
// user with `auth-provider: oidc` first makes a request, and then does all the work. slim-client-node.ts
// points config.js's import here.
import type { OpenIDConnectAuth as RealOpenIDConnectAuth } from '@kubernetes/client-node/dist/oidc_auth.js';

type Authenticator = Pick<RealOpenIDConnectAuth, 'isAuthProvider' | 'applyAuthentication'>;
type User = Parameters<Authenticator['isAuthProvider']>[0];
type Apply = Authenticator['applyAuthentication'];

export class OpenIDConnectAuth implements Authenticator {
  #real: Promise<RealOpenIDConnectAuth> | undefined;

  /** The real one's test, without loading it: called for every request's user. */
  isAuthProvider(user: User): boolean {
    return user.authProvider?.name === 'oidc';
  }

  async applyAuthentication(...args: Parameters<Apply>): ReturnType<Apply> {
    this.#real ??= import('@kubernetes/client-node/dist/oidc_auth.js').then(
      ({ OpenIDConnectAuth: Real }) => new Real(),
    );
    return (await this.#real).applyAuthentication(...args);
  }
}
