// A setup file, run before every test file. With `isolate: false` (vitest.config.ts) a helper module
// is evaluated once per worker, so a hook it registered when imported ran after the first file only:
// the directories of every later file were left in /tmp (6 259 of them after a few days' runs).
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir.ts';

afterAll(removeTempDirs);
