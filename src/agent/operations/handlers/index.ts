// Every operation the agent carries out, keyed by the contract's operation type: adding a type to the
// contract does not compile until it has a handler here (one file in this folder and one line).
import type { HandlerRegistry } from '../operation-handler.ts';
import { deleteHandler } from './delete.ts';
import { deleteObjectsHandler } from './delete-objects.ts';
import { deleteSelectedHandler } from './delete-selected.ts';
import { deployHandler } from './deploy.ts';
import { httpRequestHandler } from './http-request.ts';
import { patchHandler } from './patch.ts';
import { planHandler } from './plan.ts';
import { describeAccountHandler, eventsHandler, getHandler, listHandler, logsHandler } from './reads.ts';
import { rolloutHandler } from './rollout.ts';
import { runJobHandler } from './run-job.ts';
import { scaleHandler } from './scale.ts';
import { serviceProxyHandler } from './service-proxy.ts';
import { versionsHandler } from './versions.ts';

export const HANDLERS: HandlerRegistry = {
  deploy: deployHandler,
  delete: deleteHandler,
  deleteSelected: deleteSelectedHandler,
  deleteObjects: deleteObjectsHandler,
  scale: scaleHandler,
  patch: patchHandler,
  rollout: rolloutHandler,
  runJob: runJobHandler,
  get: getHandler,
  list: listHandler,
  describeAccount: describeAccountHandler,
  events: eventsHandler,
  logs: logsHandler,
  httpRequest: httpRequestHandler,
  plan: planHandler,
  versions: versionsHandler,
  serviceProxy: serviceProxyHandler,
};
