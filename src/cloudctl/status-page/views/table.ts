// The markup views share: a table that scrolls sideways on a narrow screen instead of the page,
// the empty state that says what to do next, and the badge of a state or outcome.
import { type HtmlValue, html, type SafeHtml } from '../safe-html.ts';

export function table(headers: readonly string[], rows: readonly (readonly HtmlValue[])[]): SafeHtml {
  return html`<div class="scroll"><table>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

export function emptyState(what: string, hint: HtmlValue): SafeHtml {
  return html`<div class="empty"><p><strong>${what}</strong></p><p>${hint}</p></div>`;
}

/** A state or outcome as a coloured word: ACTIVE, FAILED, succeeded, running, ... */
export function badge(state: string): SafeHtml {
  return html`<span class="badge badge-${state.toLowerCase().replace(/[^a-z_]/g, '')}">${state}</span>`;
}

export function code(text: string): SafeHtml {
  return html`<code>${text}</code>`;
}
