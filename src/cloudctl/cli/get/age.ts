// AGE as kubectl prints it (k8s.io/apimachinery duration.HumanDuration): two units while the
// smaller still says something (3m20s, 5h30m, 3d4h), one after (45m, 20h, 12d), years at the end.
export function humanAge(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const years = Math.floor(hours / 24 / 365);
  if (years < 8) {
    const days = Math.floor(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${years}y`;
}

/** The age of something created at `createdMs` (ms since the epoch), or <unknown> when the server had no time. */
export function ageOf(createdMs: number | null | undefined, nowMs: number): string {
  return createdMs === null || createdMs === undefined ? '<unknown>' : humanAge(nowMs - createdMs);
}
