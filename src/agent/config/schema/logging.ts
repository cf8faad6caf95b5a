// `logging.*`. A has only file, format and level; B and C add rotation (the lumberjack-style
// settings), and B adds contextual fields.
import { z } from 'zod';
import {
  caseInsensitiveEnum,
  nonEmptyString,
  nonNegativeInt,
  positiveInt,
} from '../../../lib/schema-primitives.ts';
import { setting } from '../../../lib/setting-meta.ts';

export const LOG_LEVELS = ['panic', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

function loggingShapeA() {
  return {
    file: setting(nonEmptyString().optional(), {
      description: 'file to write logs to; standard output when unset',
    }),
    format: setting(z.enum(['text', 'json']).default('text'), {
      description: '`text` (one human-readable line per entry) or `json`',
    }),
    level: setting(caseInsensitiveEnum(LOG_LEVELS, { warning: 'warn' }).default('info'), {
      description: 'minimum level logged, in any case; `warning` is accepted for `warn`',
      type: LOG_LEVELS.join(' \\| '),
    }),
  };
}

function rotationShape() {
  return {
    multiWrite: setting(z.boolean().default(false), {
      description: 'log to standard output and the file together',
    }),
    maxSizeMb: setting(positiveInt().default(1), {
      description: 'size in MB at which the log file is rotated',
    }),
    maxAgeDays: setting(nonNegativeInt().default(10), {
      description: 'days to keep rotated files; 0 keeps them',
    }),
    maxBackups: setting(nonNegativeInt().default(10), { description: 'rotated files to keep; 0 keeps all' }),
    localTime: setting(z.boolean().default(true), { description: 'time stamps in local time; false: UTC' }),
    compress: setting(z.boolean().default(false), { description: 'gzip rotated files' }),
  };
}

function requireFileForMultiWrite(
  logging: { multiWrite: boolean; file?: string | undefined },
  ctx: z.RefinementCtx,
) {
  if (logging.multiWrite && logging.file === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['multiWrite'],
      message: 'multiWrite: true needs logging.file: there is no second destination to write to',
    });
  }
}

export const loggingSchemaA = () => z.object(loggingShapeA()).prefault({});
export const loggingSchemaC = () =>
  z
    .object({ ...loggingShapeA(), ...rotationShape() })
    .superRefine(requireFileForMultiWrite)
    .prefault({});
export const loggingSchemaB = () =>
  z
    .object({
      ...loggingShapeA(),
      ...rotationShape(),
      fields: setting(z.record(z.string(), z.string().nullable()).default({}), {
        description:
          'key-value pairs added to every entry; agentCluster and agentNamespace are detected when empty',
      }),
    })
    .superRefine(requireFileForMultiWrite)
    .prefault({});
