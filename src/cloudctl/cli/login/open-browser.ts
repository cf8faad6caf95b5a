// Opens a URL in the person's browser when the system has the usual opener (xdg-open, or open on
// macOS). It is a convenience: the URL is printed first, and an opener that is absent or fails is
// ignored, so a login over SSH or in a container works by copying the URL.
import { spawn } from 'node:child_process';

export function openBrowser(url: string, env: NodeJS.ProcessEnv): void {
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  try {
    const child = spawn(opener, [url], { env, stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // Nothing to open with: the printed URL is the way.
  }
}
