// Where a process's resident memory is, from /proc/<pid>/smaps, the same way for every process a
// benchmark compares: the program's executable and libraries (file-backed pages: shared and
// reclaimable, but counted in RSS), the C heap (`[heap]`, glibc's brk area), large anonymous
// reservations (WebAssembly memories reserve 8 GiB or more each; only touched pages are resident),
// and the other anonymous mappings (a JavaScript or Go heap, thread stacks, mmap'd buffers).
import { readFileSync } from 'node:fs';

export interface MemoryMap {
  rssBytes: number;
  fileBackedBytes: number;
  cHeapBytes: number;
  /** Resident pages of anonymous mappings of 1 GiB or more: WebAssembly memories. */
  largeReservationBytes: number;
  otherAnonymousBytes: number;
}

const LARGE_MAPPING_KB = 1024 * 1024;

export function memoryMap(pid: number): MemoryMap {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const map: MemoryMap = {
    rssBytes: 0,
    fileBackedBytes: 0,
    cHeapBytes: 0,
    largeReservationBytes: 0,
    otherAnonymousBytes: 0,
  };
  // Each mapping is a header line (`start-end perms offset dev inode [path]`) and its `Key: n kB` lines.
  for (const entry of text.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    const header = entry.slice(0, entry.indexOf('\n'));
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(entry)?.[1] ?? 0);
    const rss = kb('Rss') * 1024;
    const path = header.split(/\s+/).slice(5).join(' ');
    map.rssBytes += rss;
    if (path.startsWith('/')) map.fileBackedBytes += rss;
    else if (path === '[heap]') map.cHeapBytes += rss;
    else if (kb('Size') >= LARGE_MAPPING_KB) map.largeReservationBytes += rss;
    else map.otherAnonymousBytes += rss;
  }
  return map;
}
