// What a task tells of each deploy step that succeeded: the manifests it applied on its account, as
// sent to the agent. The drift feature keeps them (what cloudctl deployed, which re-apply plans again);
// tasks only declare the port, as caching declares its indexer.
import type { Expression } from 'kysely';

export interface DeployRecords {
  /**
   * The write that records the manifests a deploy step applied, for the step's own save to run in
   * its statement (a data-modifying `with`): the record is in once the step's success is, and costs
   * no statement of its own. Undefined when no manifest names an object.
   */
  recordDeployed(
    account: string,
    manifests: readonly unknown[],
    at: Date,
  ): Expression<Record<string, unknown>> | undefined;
}
