// The words beside an account's state: the last assignment message of a cloudctl account, or for an
// agent's static account that failed, the agent's own report (GET /cache/introspection's lastError).
import type { AccountRecord } from '../status-sources.ts';
import type { ViewContext } from '../status-view.ts';

export async function accountMessages(
  context: ViewContext,
  records: readonly AccountRecord[],
): Promise<Map<string, string>> {
  const messages = new Map<string, string>();
  const failedStatics = records.some((r) => r.source === 'static-agent-config' && r.state === 'FAILED');
  const reported = failedStatics ? await context.sources.store.agents.accounts() : [];
  const byName = new Map(reported.map((account) => [account.name, account]));
  for (const record of records) {
    if (record.lastAssignmentMsg !== null) messages.set(record.name, record.lastAssignmentMsg);
    else if (record.source === 'static-agent-config' && record.state === 'FAILED') {
      messages.set(record.name, byName.get(record.name)?.statusMessage || 'the agent gave no reason');
    }
  }
  return messages;
}
