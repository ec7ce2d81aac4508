// wterm-wasm/addon-web-links: xterm.js's WebLinksAddon for the Terminal of wterm-wasm/xterm,
// over WTerm's plain-text links (http:// and https:// URLs, also when wrapped over rows): while
// loaded, the URL under the pointer is underlined and Ctrl+click (Cmd+click on macOS) calls the
// handler, by default opening the URL in a new tab without an opener.

const PREFIX = "wterm-wasm/addon-web-links: ";
const warned = new Set();
function warnOnce(key, message) {
  if (warned.has(key)) return;
  warned.add(key);
  console.warn(PREFIX + message);
}

function openLink(event, uri) {
  const w = window.open();
  if (w) {
    try {
      w.opener = null;
    } catch {
      // Some browsers refuse; the page is still opened.
    }
    w.location.href = uri;
  } else {
    console.warn(PREFIX + "opening the link was blocked by the browser");
  }
}

export class WebLinksAddon {
  constructor(handler, options) {
    if (handler !== undefined && typeof handler !== "function") {
      throw new Error(`${PREFIX}the handler must be a function (event, uri); got ${typeof handler}`);
    }
    this._handler = handler ?? openLink;
    for (const key of Object.keys(options ?? {})) {
      if (options[key] === undefined) continue;
      warnOnce(key, `option ${key} is not supported and is ignored (links are http:// and https:// URLs)`);
    }
  }

  activate(terminal) {
    this._terminal = terminal;
    terminal._webLinks = (event, uri) => this._handler(event, uri);
    terminal._host.classList.add("xterm-web-links");
  }

  dispose() {
    const term = this._terminal;
    if (!term) return;
    this._terminal = undefined;
    term._webLinks = undefined;
    term._host.classList.remove("xterm-web-links");
  }
}
