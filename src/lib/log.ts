// What code needs from a logger: the levels and child loggers, nothing pino-specific. It sits here,
// below every feature, so a feature can take a logger without importing the one that builds it
// (the agent's observability/, which in turn reads the features' status for its health view).
import type { Logger } from 'pino';

/** What parts of a program need from a logger: the levels and child loggers, nothing pino-specific. */
export interface Log {
  trace: Logger['trace'];
  debug: Logger['debug'];
  info: Logger['info'];
  warn: Logger['warn'];
  error: Logger['error'];
  fatal: Logger['fatal'];
  child(bindings: Record<string, unknown>): Log;
}
