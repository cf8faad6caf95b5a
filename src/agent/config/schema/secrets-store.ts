// `secrets.store.*`: settings of the engines that resolve `encrypted:` and `encryptedFile:` references.
// The spec only says "secrets store configuration"; docs/decisions.md records the shape we chose.
import { z } from 'zod';
import { setting } from '../../../lib/setting-meta.ts';
import { nonEmptyString } from './primitives.ts';

export const secretsSchema = () =>
  z
    .object({
      store: z
        .object({
          file: z
            .object({
              baseDir: setting(nonEmptyString().optional(), {
                description:
                  'directory relative `f:` paths resolve against; the config file directory by default',
              }),
            })
            .prefault({}),
          env: z
            .object({
              prefix: setting(z.string().default(''), {
                description: 'prefix added to every `n:` variable name',
              }),
            })
            .prefault({}),
        })
        .prefault({}),
    })
    .prefault({});
