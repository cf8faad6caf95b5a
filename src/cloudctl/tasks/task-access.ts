// Who may read a task: admins always, others when they may read every account the task touches. The
// task routes and the status page ask the same question here.
import type { AccountGuard } from '../accounts/index.ts';
import type { Principal } from '../auth/index.ts';
import type { TaskSummary } from './task-store.ts';

/** A test of the tasks the user may read, made once per request (it reads the account list once). */
export async function taskReader(
  user: Principal,
  guard: AccountGuard,
): Promise<(task: Pick<TaskSummary, 'accounts'>) => boolean> {
  if (user.admin) return () => true;
  const visible = new Set((await guard.visible(user)).map((a) => a.name));
  return (task) => task.accounts.every((account) => visible.has(account));
}
