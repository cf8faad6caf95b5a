// A process's memory as Linux counts it in /proc/PID/status, read the same way by tests and
// benchmarks, so that no figure depends on what a program says of itself.
import { readFileSync } from 'node:fs';

/** The process's /proc status text: read once for several fields. */
export const procStatus = (pid: number): string => readFileSync(`/proc/${pid}/status`, 'utf8');

/** A field of the status text given in kB (VmRSS, VmHWM, ...), in bytes. */
export function statusBytes(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (match?.[1] === undefined) throw new Error(`/proc status has no ${field}`);
  return Number(match[1]) * 1024;
}
