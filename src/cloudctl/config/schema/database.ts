// `database.*`: where cloudctl keeps its state: embedded PGlite in a data directory, or PostgreSQL.
// The URL, the file holding it, and the password may be secret references, resolved at start.
import { z } from 'zod';
import { setting } from '../../../lib/setting-meta.ts';

export const DEFAULT_DATA_DIR = 'data/cloudctl';

export const databaseSchema = z
  .strictObject({
    url: z
      .string()
      // A reference is checked as a URL once resolved, at start.
      .regex(/^(postgres(ql)?:\/\/|encrypted:)/, 'expected a postgres:// URL or an encrypted: reference')
      .optional()
      .describe(
        'PostgreSQL server, as postgres://user:password@host:port/database, or an `encrypted:` reference to one; absent: embedded PGlite in dataDir. `config print` shows the password as `***`',
      ),
    urlFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        'a file holding the PostgreSQL URL (a mounted Secret), read at start, relative to the config file, or an `encryptedFile:` reference; instead of url',
      ),
    password: setting(z.string().min(1).optional(), {
      description:
        "the PostgreSQL password, usually an `encrypted:` reference (`encrypted:env!n:PGPASSWORD`, a Kubernetes Secret, Vault); it replaces any password in url or urlFile's URL. Needs url or urlFile",
      secret: true,
    }),
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
  .refine((db) => db.password === undefined || db.url !== undefined || db.urlFile !== undefined, {
    message: 'password is for PostgreSQL: set url or urlFile too',
    path: ['password'],
  })
  .describe('the store of sessions, cached cluster state and operations');
