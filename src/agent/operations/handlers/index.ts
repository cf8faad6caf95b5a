// Every operation the agent carries out, registered in one place: adding an operation type is one
// file in this folder and one line here.
import type { RegisteredHandler } from '../operation-handler.ts';
import { deleteHandler } from './delete.ts';
import { deleteObjectsHandler } from './delete-objects.ts';
import { deleteSelectedHandler } from './delete-selected.ts';
import { deployHandler } from './deploy.ts';
import { httpRequestHandler } from './http-request.ts';
import { patchHandler } from './patch.ts';
import { describeAccountHandler, eventsHandler, getHandler, listHandler, logsHandler } from './reads.ts';
import { rolloutHandler } from './rollout.ts';
import { runJobHandler } from './run-job.ts';
import { scaleHandler } from './scale.ts';

export const HANDLERS: ReadonlyArray<RegisteredHandler> = [
  deployHandler,
  deleteHandler,
  deleteSelectedHandler,
  deleteObjectsHandler,
  scaleHandler,
  patchHandler,
  rolloutHandler,
  runJobHandler,
  getHandler,
  listHandler,
  describeAccountHandler,
  eventsHandler,
  logsHandler,
  httpRequestHandler,
];
