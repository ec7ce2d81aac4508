// What every page shares: the test hooks on window.__app, and the relay settings, which come in
// the URL fragment (#relay=URL&token=TOKEN[&session=N]) so the token never reaches a server in
// a URL.
const params = new URLSearchParams(location.hash.slice(1));
const relayUrl = params.get("relay");
const relayToken = params.get("token");
const relaySession = params.get("session");

/** Hooks for tests/e2e/npm-consumer.spec.ts; each page fills in `term` and `setProps`. */
export const app = {
  /** How many terminals the page created (onReady calls): a live prop change must keep 1. */
  created: 0,
  ready: false,
  /** What the page's own onData got (relay mode; without a relay the page echoes locally). */
  data: [],
  resizes: [],
  statuses: [],
  sessions: [],
  errors: [],
  exits: [],
  /** What the onSearch prop got (the find bar's searches). */
  searches: [],
  /** The WTerm, through the framework's handle (ref, exposed `term`, onReady). */
  term: () => null,
  /** Changes the component's props, through the framework's own state. */
  setProps: () => {},
};
window.__app = app;

export const name = document.title.replace(/^.*: /, "");

/** The first props: WebMCP on with a per-framework name, the size fitted to the element, and
 * Ctrl+V pasting (the binding must pass pasteWithCtrlV to the terminal, not to the element),
 * and onSearch (the find bar's results reach the app), which needs the full entry (`full`). */
export function initialProps() {
  return {
    full: true,
    webmcp: { name: `${name}-term`, description: `${name} consumer app` },
    pasteWithCtrlV: true,
    onSearch: (result) => app.searches.push(result),
  };
}

/** The `relay` prop when the page was opened with #relay=...&token=..., else undefined. */
export function relayProp() {
  if (!relayUrl || !relayToken) return undefined;
  return {
    url: relayUrl,
    token: relayToken,
    session: relaySession ?? undefined,
    onSession: (id) => app.sessions.push(id),
    onStatus: (status) => app.statuses.push(status),
    onError: (e) => app.errors.push(e.code),
    onExit: (code) => app.exits.push(code),
  };
}

export const relayMode = Boolean(relayUrl && relayToken);
export const onData = (d) => app.data.push(d);
export const onResize = (size) => app.resizes.push(size);
export function onReady() {
  app.created += 1;
  app.ready = true;
}
