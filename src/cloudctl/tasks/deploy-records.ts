// What a task tells of each deploy step that succeeded: the manifests it applied on its account, as
// sent to the agent. The drift feature keeps them (what cloudctl deployed, which re-apply plans again);
// tasks only declare the port, as caching declares its indexer.
export interface DeployRecords {
  /** Records the manifests a deploy step applied; a failure is the runner's to log, never the task's. */
  deployed(account: string, manifests: readonly unknown[], at: Date): Promise<void>;
}
