// One shape for every part cloudctl is built from. A feature is made by its factory (`tasksFeature`,
// `httpFeature`, ...) from exactly what it uses, and gives back what it contributes: HTTP routes, gRPC
// services for agents, and what it holds open (`start`, `close`). Its phase says when: features
// start phase by phase, lowest first, and stop in the reverse order, so each part stops while what it
// leans on still runs, and nothing starts before what it calls:
//
//   store     the database           everything reads and writes it: opened first, closed last
//   replicas  shared PostgreSQL      routes operations to other replicas while agents' sessions live
//   grpc      the agents' endpoint   its sessions carry operations until the work on them has stopped
//   services  dispatcher, placement, the work (and whatever only gives routes or handlers): it stops
//             runners                once no request can bring more
//   http      the API and readiness  stops first: the requests in flight finish while work still runs
//   resume    unfinished work        carries on once all it may call listens (its callback URLs)
//
// Within a phase features start one after another in the order listed, and stop together: every
// close is called (last listed first) before any is awaited. The runners stop that way: a task
// waiting for an operation stops when the dispatcher, in the same phase, fails its wait.
// A factory may read the database before it returns (placement forgets the last run's sessions) but
// holds nothing open: what needs closing opens in `start`. A start that fails leaves nothing open of
// its own; the features started before it are stopped and the error goes on, so the process exits.
import type { Logger } from 'pino';
import type { GrpcService } from './grpc/index.ts';
import type { Route } from './http/index.ts';

export const PHASES = ['store', 'replicas', 'grpc', 'services', 'http', 'resume'] as const;

export type Phase = (typeof PHASES)[number];

export interface Feature {
  /** What logs call it. */
  readonly name: string;
  readonly phase: Phase;
  /** Mounted on the HTTP API. */
  readonly routes?: readonly Route[];
  /** Mounted on the gRPC endpoint agents dial. */
  readonly services?: readonly GrpcService[];
  start?(): Promise<void>;
  close?(): void | Promise<void>;
}

/** The features started; `stop` stops them in reverse phase order, once however often it is called. */
export interface StartedFeatures {
  stop(): Promise<void>;
}

export function routesOf(features: readonly Feature[]): Route[] {
  return features.flatMap((feature) => feature.routes ?? []);
}

export function servicesOf(features: readonly Feature[]): GrpcService[] {
  return features.flatMap((feature) => feature.services ?? []);
}

function inPhase(features: readonly Feature[], phase: Phase): Feature[] {
  return features.filter((feature) => feature.phase === phase);
}

/** Calls `close` now, so a phase's closes are all called before any is awaited; a throw rejects. */
function closing(feature: Feature): Promise<void> {
  try {
    return Promise.resolve(feature.close?.());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Stops started features, the highest phase first; a phase's features together. A close that fails
 * is logged and the rest still stop (a store left open keeps the process alive); the first failure
 * rejects once all have stopped.
 */
export async function stopFeatures(started: readonly Feature[], logger: Logger): Promise<void> {
  const failures: unknown[] = [];
  for (const phase of [...PHASES].reverse()) {
    const features = inPhase(started, phase).reverse();
    if (features.length === 0) continue;
    const results = await Promise.allSettled(features.map(closing));
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      failures.push(result.reason);
      logger.error({ err: result.reason, feature: features[i]?.name, phase }, 'feature failed to stop');
    });
    logger.info({ phase, features: features.map((f) => f.name) }, 'stopped');
  }
  if (failures.length > 0) throw failures[0];
}

/**
 * For a failure before the features start (a factory that reads the database): stops the features
 * open already (the stores), then rethrows.
 */
export function stopOnFailure(started: readonly Feature[], logger: Logger) {
  return async (error: unknown): Promise<never> => {
    await stopFeatures(started, logger).catch(() => undefined);
    throw error;
  };
}

/**
 * Starts the features phase by phase, in list order within a phase. If one cannot start, those
 * started are stopped and its error is thrown.
 */
export async function startFeatures(features: readonly Feature[], logger: Logger): Promise<StartedFeatures> {
  const started: Feature[] = [];
  for (const phase of PHASES) {
    for (const feature of inPhase(features, phase)) {
      try {
        await feature.start?.();
      } catch (error) {
        logger.error({ err: error, feature: feature.name, phase }, 'feature failed to start');
        return stopOnFailure(started, logger)(error);
      }
      started.push(feature);
    }
  }
  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= stopFeatures(started, logger);
      return stopped;
    },
  };
}
