// What a webhook job's mdMessage may do on the status page: show code, bold and line breaks, and
// nothing else; every other character, markup included, is text.
import { describe, expect, it } from 'vitest';
import { smallMarkdown } from '../../../src/cloudctl/status-page/small-markdown.ts';

describe('smallMarkdown', () => {
  it('escapes markup, attributes and entities before anything else', () => {
    expect(smallMarkdown('<img src=x onerror="alert(1)"> & <b>x</b>').text).toBe(
      '&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &lt;b&gt;x&lt;/b&gt;',
    );
  });

  it('shows **bold**, `code` and line breaks', () => {
    expect(smallMarkdown('checks **passed**\nsee `make test`').text).toBe(
      'checks <strong>passed</strong><br>see <code>make test</code>',
    );
  });

  it('leaves marks inside code as written, and links and unclosed marks as text', () => {
    expect(smallMarkdown('`**not bold** <i>`').text).toBe('<code>**not bold** &lt;i&gt;</code>');
    expect(smallMarkdown('[site](javascript:alert(1)) **open').text).toBe(
      '[site](javascript:alert(1)) **open',
    );
  });

  it('keeps a bold mark from reaching across lines', () => {
    expect(smallMarkdown('**a\nb**').text).toBe('**a<br>b**');
  });
});
