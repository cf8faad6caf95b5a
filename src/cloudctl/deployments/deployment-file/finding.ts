// A problem of a deployment file before it is located: an unknown or misplaced key is shown at the
// key, anything else at its value.
import type { KeyPath } from '../../../lib/yaml-source.ts';

export interface Finding {
  path: KeyPath;
  at: 'key' | 'value';
  message: string;
}
