// The checks an HTTP route makes before it touches an account: the account exists (404 otherwise)
// and the user holds the permission (403 otherwise). Listing routes filter instead of refusing.
import { type Access, mayAccess, type Principal } from '../auth/index.ts';
import { HttpError } from '../http/index.ts';
import type { AccountDirectory, KnownAccount } from './account-directory.ts';

export class AccountGuard {
  readonly #directory: AccountDirectory;

  constructor(directory: AccountDirectory) {
    this.#directory = directory;
  }

  /** The account, once the user may access it as asked; throws 404 or 403. */
  async require(user: Principal, account: string, access: Access): Promise<KnownAccount> {
    const found = await this.#directory.find(account);
    if (found === undefined) throw new HttpError('NOT_FOUND', `no account named ${account}`);
    if (!mayAccess(user, found.permissions, access)) {
      throw new HttpError(
        'FORBIDDEN',
        `${user.name} may not ${access === 'READ' ? 'read' : 'change'} account ${account}`,
      );
    }
    return found;
  }

  /** The accounts the user may access as asked. */
  async visible(user: Principal, access: Access = 'READ'): Promise<KnownAccount[]> {
    return (await this.#directory.list()).filter((account) => mayAccess(user, account.permissions, access));
  }
}
