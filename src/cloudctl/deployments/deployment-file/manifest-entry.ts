// `manifests[]`: a file or directory (`path`, relative to the deployment file) or the YAML itself
// (`inline`), deployed to every target unless `targets` names some.
import { z } from 'zod';

export const manifestEntrySchema = z
  .strictObject({
    path: z.string().min(1).optional(),
    inline: z.string().min(1).optional(),
    targets: z.array(z.string().min(1)).min(1).optional(),
  })
  .superRefine((entry, ctx) => {
    if ((entry.path === undefined) === (entry.inline === undefined))
      ctx.addIssue({
        code: 'custom',
        message:
          entry.path === undefined
            ? "a manifest needs 'path' (a file or directory) or 'inline' (the YAML itself)"
            : "a manifest has 'path' or 'inline', not both",
      });
  });

export type ManifestEntry = z.output<typeof manifestEntrySchema>;
