// The watches' health as metrics and log lines: lists and resumes at INFO with their reason (and a
// list's object count), the first failure of a scope or of the uplink at WARN as one line with its
// cause, later failures before recovery and routine watch restarts at DEBUG, so a long outage of the API
// server or the control plane does not bury the log.
import type { Log } from '../../lib/log.ts';
import { causeOf } from '../../lib/log-cause.ts';
import type { ListMethod, ListReason, RestartReason, WatchObserver, WatchScope } from '../watch/index.ts';
import type { AgentMetrics } from './agent-metrics.ts';

const fieldsOf = (scope: WatchScope) => ({
  account: scope.account,
  kind: scope.group === '' ? scope.kind : `${scope.kind}.${scope.group}`,
  namespace: scope.namespace === '' ? '(all)' : scope.namespace,
});

export function watchObserver(metrics: AgentMetrics, logger: Log): WatchObserver {
  const log = logger.child({ component: 'watch' });
  return {
    listed(scope: WatchScope, reason: ListReason, objects: number, seconds: number, method: ListMethod) {
      metrics.watchLists.inc({ account: scope.account, reason });
      metrics.listDuration.observe(seconds);
      log.info(
        { ...fieldsOf(scope), reason, method, objects, durationMs: Math.round(seconds * 1000) },
        reason === 'start' ? 'watch listed' : 'watch relisted',
      );
    },
    streamingListRefused(scope: WatchScope, cause: string) {
      log.info({ ...fieldsOf(scope), cause }, 'streaming list refused by the API server; listing by pages');
    },
    streamingListFailed(scope: WatchScope, error: unknown) {
      log.info(
        { ...fieldsOf(scope), cause: causeOf(error) },
        'streaming list failed; listing by pages this time',
      );
    },
    resumed(scope: WatchScope, resourceVersion: string) {
      metrics.watchResumes.inc({ account: scope.account });
      log.info({ ...fieldsOf(scope), reason: 'start', resourceVersion }, 'watch resumed without a list');
    },
    restarted(scope: WatchScope, reason: RestartReason) {
      metrics.watchRestarts.inc({ account: scope.account, reason });
      log.debug({ ...fieldsOf(scope), reason }, 'watch restarted');
    },
    failed(scope: WatchScope, stage: 'list' | 'watch', error: unknown, repeated: boolean) {
      const fields = { ...fieldsOf(scope), stage, cause: causeOf(error) };
      if (repeated) log.debug(fields, `${stage} failed again; retrying after a backoff`);
      else log.warn(fields, `${stage} failed; retrying after a backoff`);
    },
    inFlight(batches: number) {
      metrics.uplinkBatchesInFlight.set(batches);
    },
    acknowledged(seconds: number) {
      metrics.uplinkAckDuration.observe(seconds);
    },
    publishFailed(error: unknown, repeated: boolean) {
      const fields = { cause: causeOf(error) };
      const message = 'cannot send cache events to the control plane; retrying';
      if (repeated) log.debug(fields, message);
      else log.warn(fields, message);
    },
  };
}
