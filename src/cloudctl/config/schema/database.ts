// `database.*`: where cloudctl keeps its state: embedded PGlite in a data directory, or PostgreSQL.
import { z } from 'zod';

export const DEFAULT_DATA_DIR = 'data/cloudctl';

export const databaseSchema = z
  .strictObject({
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
      .optional()
      .describe(
        'PostgreSQL server, as postgres://user:password@host:port/database; absent: embedded PGlite in dataDir. `config print` shows the password as `***`',
      ),
    urlFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        'a file holding the PostgreSQL URL (a mounted Secret), read at start, relative to the config file; instead of url',
      ),
    dataDir: z
      .string()
      .min(1)
      .optional()
      .describe(
        `embedded PGlite data directory, relative to the config file (default ${DEFAULT_DATA_DIR}); memory:// keeps nothing`,
      ),
  })
  .refine((db) => [db.url, db.urlFile, db.dataDir].filter((v) => v !== undefined).length <= 1, {
    message: 'set one of url, urlFile and dataDir',
    path: ['dataDir'],
  })
  .describe('the store of sessions, cached cluster state and operations');
