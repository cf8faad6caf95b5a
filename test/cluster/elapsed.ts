// Human-readable durations for the progress and timing lines the cluster scripts print.

/** `850ms`, `4.2s`, `9m12s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

/** A stopwatch started now; `()` gives the time since, formatted. */
export function stopwatch(now: () => number = performance.now.bind(performance)): {
  ms(): number;
  (): string;
} {
  const start = now();
  const ms = () => now() - start;
  return Object.assign(() => formatDuration(ms()), { ms });
}
