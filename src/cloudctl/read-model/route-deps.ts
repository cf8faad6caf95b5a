// What the read model's routes need: the permission checks and the index queries.
import type { AccountGuard } from '../accounts/index.ts';
import type { ReadModel } from './read-model.ts';

export interface ReadRouteDeps {
  guard: AccountGuard;
  model: ReadModel;
}
