// What the client commands share: the contexts file, which server and token to use, the HTTP client
// with its named failures, the GET /watch follower and the follower of one record until it ends.
export { type Answer, ApiClient, type Query, serverMessage, unreachable, withQuery } from './api-client.ts';
export { CLI_ERROR_CODES, CliError, type CliErrorCode } from './cli-error.ts';
export {
  type Connection,
  type ConnectionFlags,
  DEFAULT_SERVER,
  normalServer,
  resolveConnection,
} from './connection.ts';
export {
  type Context,
  type Contexts,
  contextName,
  contextsPath,
  readContexts,
  withContext,
  writeContexts,
} from './contexts-file.ts';
export type { StreamEvent } from './event-stream.ts';
export { followRecord, type RecordFollow } from './record-follower.ts';
export { followWatch, type WatchOutcome } from './watch-follower.ts';
export { CONNECTION_HELP, CONNECTION_OPTIONS, reported, stopController, withClient } from './with-client.ts';
