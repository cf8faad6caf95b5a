// A rule for lists whose entries are named by a field (account names, agent ids, user names): a
// repeated value is reported at the repeating entry's field, naming the entry that used it first.
import type { z } from 'zod';

/**
 * A superRefine check. `listPath` is how users write the list (`orchestrator.accounts`); `message`
 * builds the error from the repeated value and the first entry's path.
 */
export function uniqueEntries<K extends string>(
  field: K,
  listPath: string,
  message: (value: string, firstEntry: string) => string,
) {
  return (entries: ReadonlyArray<Record<K, string>>, ctx: z.RefinementCtx): void => {
    const firstIndex = new Map<string, number>();
    entries.forEach((entry, index) => {
      const value = entry[field];
      const first = firstIndex.get(value);
      if (first === undefined) {
        firstIndex.set(value, index);
        return;
      }
      ctx.addIssue({
        code: 'custom',
        path: [index, field],
        message: message(value, `${listPath}[${first}]`),
      });
    });
  };
}
