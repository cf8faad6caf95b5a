// The agent's logger: pino with the spec's levels (plus `panic`), `text` (one human-readable line per
// entry) or `json`, to standard output, a file, or both; files rotate by size through pino-roll and
// are then compressed and pruned by log-retention (which also prunes once when the file opens).
// Secret-bearing fields are redacted.
import { once } from 'node:events';
import pino, { type DestinationStream, type Logger, type StreamEntry } from 'pino';
import type { ConfigIssue } from '../../lib/config-issue.ts';
import type { Log } from '../../lib/log.ts';
import { type AgentConfig, type LogLevel, logContextFields } from '../config/index.ts';
import { type AgentContextSources, logFields } from './agent-context.ts';
import { pruneLogFiles, retireLogFile } from './log-retention.ts';

export type AgentLogger = Logger<'panic'>;

/** Field names whose values are secrets wherever they appear in a log entry. */
export const REDACTED_LOG_PATHS = [
  'token',
  '*.token',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'clientKeyFilePassword',
  '*.clientKeyFilePassword',
  'keyPassword',
  '*.keyPassword',
  'keyFilePassword',
  '*.keyFilePassword',
  'secret',
  '*.secret',
];

const LEVEL_VALUES: Record<LogLevel, number> = {
  panic: 70,
  fatal: 60,
  error: 50,
  warn: 40,
  info: 30,
  debug: 20,
  trace: 10,
};

export interface LoggerDeps {
  stdout: DestinationStream;
  context: AgentContextSources;
  /** Reports errors of the log pipeline itself (a full disk, say) without recursion into the logger. */
  onInternalError: (error: Error) => void;
  now: () => number;
}

export interface AgentLogging {
  logger: AgentLogger;
  /** Flushes and closes every destination. */
  close(): Promise<void>;
}

/** ISO 8601 in the machine's time zone, with its offset (pino's isoTime is UTC only). */
function localIsoTime(epochMs: number): string {
  const offsetMin = -new Date(epochMs).getTimezoneOffset();
  const abs = Math.abs(offsetMin);
  const pad = (n: number) => String(n).padStart(2, '0');
  const wallClock = new Date(epochMs + offsetMin * 60_000).toISOString().slice(0, -1);
  return `${wallClock}${offsetMin >= 0 ? '+' : '-'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

async function fileDestination(
  settings: AgentConfig['logging'],
  file: string,
  deps: LoggerDeps,
): Promise<{ stream: DestinationStream & NodeJS.EventEmitter; close(): Promise<void> }> {
  if (!('maxSizeMb' in settings)) {
    // Variant A has no rotation settings: one file, appended to.
    const stream = pino.destination({ dest: file, mkdir: true, sync: false });
    return { stream, close: () => endSonic(stream) };
  }
  // Synchronous writes: pino-roll decides to rotate on each 'write' event and switches files after
  // the next 'drain'. With asynchronous writes a burst is buffered whole before any of that happens,
  // and under load one file took a multi-megabyte burst past maxSizeMb; in sync mode the overshoot is
  // at most what one synchronous stretch of logging writes. An agent logs little, so the blocking
  // writes cost nothing that matters.
  // Loaded only here: pino-roll brings date-fns, ~300 modules (~6 MiB, ~60 ms at start).
  const { default: pinoRoll } = await import('pino-roll');
  const stream = await pinoRoll({ file, size: `${settings.maxSizeMb}m`, mkdir: true, sync: true });
  // SonicBoom opens files asynchronously: the first 'ready' names the first file, each later one
  // follows a rotation.
  let current: string | null = null;
  let retiring: Promise<void> = Promise.resolve();
  stream.on('ready', () => {
    const previous = current;
    current = stream.file;
    if (previous === null && current !== null) {
      const opened = current;
      retiring = retiring
        .then(() => pruneLogFiles(file, () => stream.file ?? opened, settings, deps.now()))
        .catch((error: Error) => deps.onInternalError(error));
    }
    if (previous === null || current === null || previous === current) return;
    retiring = retiring
      .then(() => retireLogFile(file, previous, () => stream.file ?? previous, settings, deps.now()))
      .catch((error: Error) => deps.onInternalError(error));
  });
  return {
    stream,
    close: async () => {
      await endSonic(stream);
      await retiring;
    },
  };
}

async function endSonic(stream: NodeJS.EventEmitter & { end(): void; destroyed?: boolean }) {
  if (stream.destroyed) return;
  const closed = once(stream, 'close');
  stream.end();
  await closed;
}

export async function createLogger(config: AgentConfig, deps: LoggerDeps): Promise<AgentLogging> {
  const settings = config.logging;
  const localTime = 'localTime' in settings ? settings.localTime : true;
  const closers: Array<() => Promise<void>> = [];
  const targets: DestinationStream[] = [];

  if (settings.file !== undefined) {
    const destination = await fileDestination(settings, settings.file, deps);
    destination.stream.on('error', (error: Error) => deps.onInternalError(error));
    targets.push(destination.stream);
    closers.push(destination.close);
  }
  if (settings.file === undefined || ('multiWrite' in settings && settings.multiWrite))
    targets.push(deps.stdout);

  // Loaded only for text logs: JSON logging does without pino-pretty and its dependencies.
  const pretty = settings.format === 'json' ? undefined : (await import('pino-pretty')).default;
  const formatted =
    pretty === undefined
      ? targets
      : targets.map((destination) => {
          const stream = pretty({
            destination,
            colorize: false,
            singleLine: true,
            sync: true,
            translateTime: localTime ? 'SYS:yyyy-mm-dd HH:MM:ss.l o' : 'UTC:yyyy-mm-dd HH:MM:ss.l o',
            ignore: 'pid,hostname',
            customLevels: 'panic:70,fatal:60,error:50,warn:40,info:30,debug:20,trace:10',
            useOnlyCustomProps: false,
          });
          // The pretty stream is ours: ending it must happen before its destination is closed.
          closers.unshift(async () => {
            const finished = once(stream, 'finish');
            stream.end();
            await finished;
          });
          return stream;
        });

  const contextFields = logContextFields(config);
  const base = contextFields === undefined ? {} : logFields(contextFields, deps.context);
  const streams: StreamEntry<LogLevel>[] = formatted.map((stream) => ({ stream, level: settings.level }));
  const logger = pino<'panic'>(
    {
      level: settings.level,
      customLevels: { panic: LEVEL_VALUES.panic },
      base,
      redact: { paths: REDACTED_LOG_PATHS, censor: '<redacted>' },
      timestamp: localTime ? () => `,"time":"${localIsoTime(deps.now())}"` : pino.stdTimeFunctions.isoTime,
    },
    pino.multistream<LogLevel>(streams, { levels: { ...pino.levels.values, panic: LEVEL_VALUES.panic } }),
  );

  return {
    logger,
    close: async () => {
      logger.flush();
      for (const close of closers) await close();
    },
  };
}

/** The loader's warnings and notes, logged once the logger they configure exists. */
export function logConfigIssues(log: Log, issues: ReadonlyArray<ConfigIssue>): void {
  for (const issue of issues) {
    const entry = { file: issue.file, line: issue.line, column: issue.column, key: issue.path };
    if (issue.severity === 'warning') log.warn(entry, issue.message);
    else if (issue.severity === 'info') log.info(entry, issue.message);
    else log.debug(entry, issue.message);
  }
}
