// The resume feature: the work the last run left unfinished (tasks, deployments) carries on. Its phase
// is the last, so by then everything that work may call listens, the HTTP API that receives a
// deployment's webhook callbacks included. It closes nothing: the runners stop with their features.
import type { Logger } from 'pino';
import type { Feature } from './feature.ts';

/** A runner that carries on what no live process holds, and says how many it took. */
export interface Resumable {
  resumeUnfinished(): Promise<number>;
}

export interface ResumeFeatureDeps {
  tasks: Resumable;
  deployments: Resumable;
  logger: Logger;
}

export function resumeFeature(deps: ResumeFeatureDeps): Feature {
  const { logger } = deps;
  return {
    name: 'resume',
    phase: 'resume',
    start: async () => {
      const tasks = await deps.tasks.resumeUnfinished();
      if (tasks > 0) logger.info({ tasks }, 'carrying on tasks left unfinished by the last run');
      const deployments = await deps.deployments.resumeUnfinished();
      if (deployments > 0)
        logger.info({ deployments }, 'carrying on deployments left unfinished by the last run');
    },
  };
}
