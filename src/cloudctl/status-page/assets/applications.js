// The applications views' live updates and actions. The page follows GET /watch (its copy under
// /status/api, which takes the session cookie) with an EventSource: an object event updates the row
// of that object in place (replicas, status, a pod's phase, readiness, restarts and node); whatever an
// event does not carry is fetched as that one piece from the JSON API (a version's traffic); what adds
// rows (a new version, cluster or application) or a `reset` asks for the page's sections once and
// swaps those that changed: rows and their actions are always drawn by the server, which escapes them.
// Nothing polls. Every text the script writes goes through textContent.
// Actions: a button asks for confirmation in a dialog saying what it will do, posts the Spinnaker
// operation to /status/api/ops, and shows its task's events from the same feed until it completes.
// Re-apply of a drifted object asks the same way, posts to its copy of the manifest's reapply route
// and opens the plan it answers. A `drift` event draws the sections again (the note is the server's).
(() => {
  const main = document.querySelector('main[data-watch]');
  const state = document.getElementById('live-state');
  if (main === null || state === null) return;
  const API = '/status/api';
  const application = decodeURIComponent(window.location.pathname.split('/')[3] ?? '') || null;
  const ownTasks = new Map();

  /** `feed`: open, reconnecting or closed, for whoever checks the page without reading its words. */
  const show = (text, failed, feed) => {
    state.textContent = text;
    state.classList.toggle('live-failed', failed);
    if (feed !== undefined) state.dataset.feed = feed;
  };
  const rowOf = (key) => document.querySelector(`tr[data-key="${CSS.escape(key)}"]`);
  const keyOf = (e) => `${e.account}/${e.namespace}/${e.spinnakerKind} ${e.name}`;
  const json = async (response) => {
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.message ?? body.error ?? `HTTP ${response.status}`);
    return body;
  };

  // --- Sections again, once, for what adds or removes rows -------------------------------------------
  let sectionsTimer;
  const seen = new Map();
  async function resections() {
    const url = new URL(window.location.href);
    url.searchParams.set('part', 'sections');
    const update = await json(
      await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' }),
    );
    const ids = new Set(Object.keys(update.sections));
    for (const [id, markup] of Object.entries(update.sections)) {
      if (seen.get(id) === markup) continue;
      const section = document.querySelector(`section[data-section="${CSS.escape(id)}"]`);
      if (section !== null) section.outerHTML = markup;
      else main.insertAdjacentHTML('beforeend', markup);
      seen.set(id, markup);
    }
    for (const section of main.querySelectorAll('section[data-section]'))
      if (!ids.has(section.dataset.section)) section.remove();
  }
  const resectionSoon = () => {
    clearTimeout(sectionsTimer);
    sectionsTimer = setTimeout(
      () => resections().catch((e) => show(`update failed (${e.message})`, true)),
      300,
    );
  };

  // --- A row in place -------------------------------------------------------------------------------
  const HEALTH = (status) =>
    status.failed.state
      ? ['failed', status.failed.message]
      : status.paused.state
        ? ['paused', status.paused.message]
        : status.stable.state
          ? ['stable', null]
          : ['unstable', status.stable.message];

  function setStatus(row, status) {
    const cell = row.querySelector('[data-cell="status"]');
    if (cell === null || status === undefined) return;
    const [health, message] = HEALTH(status);
    cell.dataset.health = health;
    const badge = document.createElement('span');
    badge.className = `badge badge-${health}`;
    badge.textContent = health;
    cell.replaceChildren(badge);
    if (message) {
      const text = document.createElement('span');
      text.className = 'message';
      text.textContent = message;
      cell.append(' ', text);
    }
  }

  function setText(row, name, text) {
    const cell = row.querySelector(`[data-cell="${name}"]`);
    if (cell !== null) cell.textContent = text;
    return cell;
  }

  const trafficTimers = new Map();
  /** A version's traffic is not in its event: asked of the API as that one server group. */
  function refreshTraffic(row, e) {
    clearTimeout(trafficTimers.get(row.dataset.key));
    trafficTimers.set(
      row.dataset.key,
      setTimeout(async () => {
        const path = [application, e.account, e.namespace, `${e.spinnakerKind} ${e.name}`].map(
          encodeURIComponent,
        );
        const sg = await json(await fetch(`${API}/applications/${path.join('/')}?includeDetails=false`));
        const cell = row.querySelector('[data-cell="traffic"]');
        if (cell === null || cell.dataset.traffic === String(!sg.disabled)) return;
        resectionSoon(); // the actions differ (enable or disable): the server draws the row again
      }, 500),
    );
  }

  function updateRow(row, e) {
    setStatus(row, e.status);
    const replicas = e.figures?.replicas;
    if (replicas !== undefined) {
      const cell = setText(row, 'replicas', `${replicas.ready}/${replicas.desired}`);
      if (cell !== null) Object.assign(cell.dataset, { ready: replicas.ready, desired: replicas.desired });
    }
    if (row.dataset.role === 'pod') {
      if (e.summary?.phase !== undefined) setText(row, 'phase', e.summary.phase);
      if (e.summary?.ready !== undefined) setText(row, 'ready', e.summary.ready ? 'ready' : 'not ready');
      if (e.figures?.restarts !== undefined) setText(row, 'restarts', String(e.figures.restarts));
      if (e.figures?.node !== undefined) setText(row, 'node', e.figures.node);
    }
    if (row.dataset.role === 'version') refreshTraffic(row, e);
    // A drift begun or ended (a redeploy clears it): the note and its button are drawn by the server.
    const drifting = row.querySelector('[data-drift]') !== null;
    if (e.drift !== undefined && (e.drift !== null) !== drifting) resectionSoon();
  }

  function onObject(e) {
    if (application === null) {
      if (e.moniker !== null || e.spinnakerKind === 'pod') resectionSoon();
      return;
    }
    const row = rowOf(keyOf(e));
    if (e.type === 'removed') {
      if (row !== null) row.remove();
      if (e.role !== 'instance' && e.moniker?.app === application) resectionSoon();
      return;
    }
    if (row !== null) return updateRow(row, e);
    const owner = e.owner ? rowOf(`${e.account}/${e.namespace}/${e.owner.kind} ${e.owner.name}`) : null;
    const ours = e.moniker?.app === application || owner !== null;
    if (ours || e.role === 'loadBalancer') resectionSoon();
  }

  // --- Tasks the page started ----------------------------------------------------------------------
  const progress = document.createElement('div');
  progress.id = 'task-progress';
  progress.setAttribute('aria-live', 'polite');
  main.prepend(progress);

  // The feed carries every task of the accounts the user may read (the application filter leaves
  // tasks to the accounts), so the page follows its own tasks there; the latest few are kept because
  // a quick task's events can arrive before POST /ops has answered with its id.
  const recentTasks = new Map();
  function onTask(task) {
    recentTasks.delete(task.id);
    recentTasks.set(task.id, task);
    if (recentTasks.size > 100) recentTasks.delete(recentTasks.keys().next().value);
    const line = ownTasks.get(task.id);
    if (line === undefined) return;
    const last = task.history.at(-1);
    const outcome = !task.status.completed ? 'running' : task.status.failed ? 'failed' : 'succeeded';
    line.dataset.outcome = outcome;
    line.querySelector('.task-state').textContent = `${outcome}: ${last?.status ?? ''}`;
  }

  /** A line for the task, kept up to date by the feed's task events until the task completes. */
  function followTask(id, says) {
    const line = document.createElement('p');
    line.className = 'task-line';
    line.dataset.task = id;
    const what = document.createElement('span');
    what.textContent = `${says} `;
    const stateText = document.createElement('span');
    stateText.className = 'task-state';
    stateText.textContent = 'started';
    line.append(what, stateText);
    progress.append(line);
    ownTasks.set(id, line);
    const seen = recentTasks.get(id);
    if (seen !== undefined) onTask(seen);
  }

  // --- Confirmation and POST /ops ------------------------------------------------------------------
  const dialog = document.createElement('dialog');
  dialog.id = 'confirm';
  dialog.innerHTML =
    '<form method="dialog"><p class="says"></p><label class="replicas" hidden>Replicas <input name="replicas" type="number" min="0" step="1"></label><p class="notice" role="alert" hidden></p><menu><button value="cancel" type="submit">Cancel</button> <button value="confirm" type="submit" class="confirm">Confirm</button></menu></form>';
  document.body.append(dialog);

  /** Asks in the dialog; true once confirmed. `replicasAsked`: the scale's field, filled in. */
  async function confirmed(says, replicasAsked) {
    dialog.querySelector('.says').textContent = says;
    const replicas = dialog.querySelector('.replicas');
    replicas.hidden = replicasAsked === undefined;
    if (replicasAsked !== undefined) replicas.querySelector('input').value = String(replicasAsked);
    dialog.querySelector('.notice').hidden = true;
    dialog.returnValue = '';
    dialog.showModal();
    await new Promise((resolve) => dialog.addEventListener('close', resolve, { once: true }));
    return dialog.returnValue === 'confirm';
  }

  const refused = (says, error) => {
    const line = document.createElement('p');
    line.className = 'task-line';
    line.dataset.outcome = 'refused';
    line.textContent = `${says} Refused: ${error.message}`;
    progress.append(line);
  };

  async function run(button) {
    const fields = button.dataset.fields ? JSON.parse(button.dataset.fields) : {};
    const scale = button.dataset.operation === 'scaleManifest';
    if (!(await confirmed(button.dataset.says, scale ? (fields.replicas ?? 1) : undefined))) return;
    if (scale) fields.replicas = Number(dialog.querySelector('.replicas input').value);
    const { account, location, manifest } = button.dataset;
    const operation = { account, location, manifestName: manifest, cloudProvider: 'orchestrator', ...fields };
    try {
      const response = await fetch(`${API}/ops`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify([{ [button.dataset.operation]: operation }]),
      });
      const started = await json(response);
      followTask(started.id, button.dataset.says);
    } catch (error) {
      refused(button.dataset.says, error);
    }
  }

  /** Re-apply of a drifted object: the API plans its recorded manifest; the plan's page shows it. */
  async function reapply(button) {
    if (!(await confirmed(button.dataset.says))) return;
    const { account, location, manifest } = button.dataset;
    const path = [account, location, manifest].map(encodeURIComponent).join('/');
    try {
      const plan = await json(
        await fetch(`${API}/manifests/${path}/reapply`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: '{}',
        }),
      );
      window.location.assign(`/status/plans/${encodeURIComponent(plan.id)}`);
    } catch (error) {
      refused(button.dataset.says, error);
    }
  }

  // --- Details: manifest, events, artifacts; a pod's logs --------------------------------------------
  const details = document.createElement('aside');
  details.id = 'details';
  details.hidden = true;
  document.body.append(details);

  const block = (title, text) => {
    const h = document.createElement('h3');
    h.textContent = title;
    const pre = document.createElement('pre');
    pre.textContent = text;
    return [h, pre];
  };

  async function select(button) {
    const { account, location, manifest } = button.dataset;
    const path = [account, location, manifest].map(encodeURIComponent).join('/');
    details.hidden = false;
    const title = document.createElement('h2');
    title.textContent = `${manifest} · ${account}/${location}`;
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = 'Close';
    close.addEventListener('click', () => {
      details.hidden = true;
    });
    details.replaceChildren(close, title, document.createTextNode('Loading…'));
    try {
      const m = await json(await fetch(`${API}/manifests/${path}?includeEvents=true`));
      const events = m.events
        .map((ev) => `${ev.type ?? ''} ${ev.reason ?? ''}: ${ev.message ?? ''}`)
        .join('\n');
      const artifacts = m.artifacts.map((a) => `${a.type} ${a.reference ?? a.name ?? ''}`).join('\n');
      details.replaceChildren(
        close,
        title,
        ...block('Events', events || 'none'),
        ...block('Artifacts', artifacts || 'none'),
        ...block('Manifest (JSON)', JSON.stringify(m.manifest, null, 2)),
      );
      if (manifest.startsWith('pod ')) {
        const logs = document.createElement('button');
        logs.type = 'button';
        logs.textContent = 'Show logs';
        logs.dataset.logs = '';
        logs.addEventListener('click', async () => {
          const answer = await json(await fetch(`${API}/instances/${path}/console`)).catch((e) => ({
            output: [{ name: 'error', output: e.message }],
          }));
          details.append(...answer.output.flatMap((c) => block(`Logs: ${c.name}`, c.output)));
        });
        details.insertBefore(logs, details.children[2]);
      }
    } catch (error) {
      details.replaceChildren(close, title, document.createTextNode(`Could not read it: ${error.message}`));
    }
  }

  document.addEventListener('click', (event) => {
    const action = event.target.closest('button.action');
    if (action !== null) return void run(action);
    const again = event.target.closest('button[data-reapply]');
    if (again !== null) return void reapply(again);
    const selected = event.target.closest('button[data-select]');
    if (selected !== null) void select(selected);
  });

  // --- The feed ------------------------------------------------------------------------------------
  const feed = new EventSource(main.dataset.watch);
  feed.addEventListener('position', () => show('live', false, 'open'));
  feed.addEventListener('object', (m) => {
    onObject(JSON.parse(m.data));
    show(`updated ${new Date().toLocaleTimeString()}`, false);
  });
  feed.addEventListener('task', (m) => {
    onTask(JSON.parse(m.data).task);
  });
  feed.addEventListener('reset', resectionSoon);
  feed.addEventListener('drift', resectionSoon);
  feed.addEventListener('closed', (m) => {
    const { reason, message } = JSON.parse(m.data);
    if (reason === 'UNAUTHENTICATED') {
      feed.close();
      show('signed out: reload to sign in', true, 'closed');
    } else show(`reconnecting (${message})`, true, 'reconnecting');
  });
  feed.addEventListener('error', () => {
    // The browser reconnects by itself with Last-Event-ID; a refusal (401) closes the feed for good.
    if (feed.readyState === EventSource.CLOSED) show('not live: reload the page', true, 'closed');
    else show('reconnecting…', true, 'reconnecting');
  });
})();
