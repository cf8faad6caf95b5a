// How far an account's cache is: the last completed sync step and, while lists run (a first sync,
// or a relist), a progress bar of scopes done against scopes begun.
import type { SyncProgress } from '../../caching/index.ts';
import { timeAgo } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';

export function syncCell(progress: SyncProgress | undefined, now: Date): SafeHtml {
  if (progress === undefined || progress.listing === 0) return html`<span class="muted">idle</span>`;
  const total = progress.synced + progress.listing;
  return html`<span class="sync" data-listing="${progress.listing}" data-synced="${progress.synced}"><progress max="${total}" value="${progress.synced}"></progress>
${progress.synced} of ${total} scopes listed, since ${timeAgo(progress.listingSince, now)}</span>`;
}

export function lastSyncCell(at: Date | undefined, now: Date): SafeHtml {
  return at === undefined ? html`<span class="muted">not yet</span>` : timeAgo(at, now);
}
