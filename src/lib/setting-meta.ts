// Metadata carried by setting schemas: the generated docs read the description and the version it
// appeared in; `secret` marks values that are redacted in `config print` and never logged.
import type { z } from 'zod';

export interface SettingMeta {
  description: string;
  since?: string;
  secret?: boolean;
  /** Type shown in the docs when the schema's own (a literal, a transform) would mislead. */
  type?: string;
  /** The value names a file the program reads at start (checked then, not by `config validate`). */
  file?: boolean;
  [key: string]: unknown;
}

export function setting<T extends z.ZodType>(schema: T, meta: SettingMeta): T {
  return schema.meta(meta);
}
