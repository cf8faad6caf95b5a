// How the status page writes times and durations: an exact UTC time in the markup (machines and the
// tooltip read it) and a short relative reading for people, computed when the section is rendered.
import { html, type SafeHtml } from './safe-html.ts';

/** 850 ms, 3.2 s, 2 min 5 s, 1 h 3 min. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** 2025-06-01 12:00:03 UTC */
export function formatTime(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A <time> with the exact instant, reading "12 s ago" (or "in 3 s" for a clock ahead of ours). */
export function timeAgo(at: Date | null | undefined, now: Date): SafeHtml {
  if (at === null || at === undefined) return html`<span class="muted">never</span>`;
  const ms = now.getTime() - at.getTime();
  const reading = ms >= 0 ? `${formatDuration(ms)} ago` : `in ${formatDuration(-ms)}`;
  return html`<time datetime="${at.toISOString()}" title="${formatTime(at)}">${reading}</time>`;
}
