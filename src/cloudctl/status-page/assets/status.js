// The status page's live updates: every few seconds the page asks its own URL for its sections
// (?part=sections, JSON of server-rendered HTML) and swaps each section whose markup changed. The
// server renders and escapes everything; this script only places what it is given. It pauses while
// the tab is hidden, and says so when the sign-in has ended instead of retrying forever.
(() => {
  const main = document.querySelector('main[data-refresh-ms]');
  const state = document.getElementById('live-state');
  if (main === null || state === null) return;
  const every = Number(main.dataset.refreshMs) || 2000;
  const seen = new Map();
  let timer;

  const show = (text, failed) => {
    state.textContent = text;
    state.classList.toggle('live-failed', failed);
  };

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, every);
  };

  async function refresh() {
    if (document.hidden) return;
    const url = new URL(window.location.href);
    url.searchParams.set('part', 'sections');
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
      if (response.status === 401) {
        show('signed out: reload to sign in', true);
        return;
      }
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const update = await response.json();
      for (const [id, markup] of Object.entries(update.sections)) {
        if (seen.get(id) === markup) continue;
        const section = document.querySelector(`section[data-section="${CSS.escape(id)}"]`);
        if (section === null) continue;
        section.outerHTML = markup;
        seen.set(id, markup);
      }
      show(`updated ${new Date().toLocaleTimeString()}`, false);
    } catch (error) {
      show(`update failed (${error.message}); retrying`, true);
    }
    schedule();
  }

  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) refresh();
  });
  schedule();
})();
