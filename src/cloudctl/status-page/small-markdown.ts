// Markdown from outside (a webhook job's `mdMessage`) as the status page shows it: the text escaped
// first, then three marks made visible, nothing else: `code`, **bold** and line breaks. Links,
// images and HTML stay text, so a job's message can neither run script nor point people elsewhere.
import { escapeHtml, SafeHtml } from './safe-html.ts';

function bold(escaped: string): string {
  return escaped.replace(/\*\*([^*\n]+)\*\*/g, '<strong>$1</strong>');
}

export function smallMarkdown(text: string): SafeHtml {
  // Split on code spans before anything else: what is inside one is shown as written.
  const parts = escapeHtml(text).split(/`([^`\n]+)`/);
  const marked = parts.map((part, i) => (i % 2 === 1 ? `<code>${part}</code>` : bold(part))).join('');
  return new SafeHtml(marked.replace(/\r?\n/g, '<br>'));
}
