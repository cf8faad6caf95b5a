// At `run`, every file a setting names must be readable (src/lib/readable-files.ts); the settings
// that name files are marked `file` in the variant's schema.
import type { ConfigIssue } from '../../lib/config-issue.ts';
import { unreadableFiles } from '../../lib/readable-files.ts';
import { type LoadedConfig, schemaIndexes } from './load-config.ts';

export function checkReferencedFiles(loaded: LoadedConfig): Promise<ConfigIssue[]> {
  const filePatterns = schemaIndexes()[loaded.config.variant].filePaths;
  return unreadableFiles(loaded.config, filePatterns, loaded.file, loaded.locate);
}
