// The status page's script and style sheet: files of this folder, read once when the routes are
// made and served by cloudctl itself, so the page needs nothing from any other host.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StatusAsset {
  name: string;
  type: string;
  body: string;
}

const TYPES: Record<string, string> = {
  'status.js': 'text/javascript; charset=utf-8',
  'status.css': 'text/css; charset=utf-8',
  'applications.js': 'text/javascript; charset=utf-8',
};

export function statusAssets(): StatusAsset[] {
  return Object.entries(TYPES).map(([name, type]) => ({
    name,
    type,
    body: readFileSync(join(import.meta.dirname, 'assets', name), 'utf8'),
  }));
}
