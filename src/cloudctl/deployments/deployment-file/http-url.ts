// Webhooks go to http:// or https:// URLs only; the one test of that, for load time and render time.

export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
