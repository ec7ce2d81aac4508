// wterm-wasm/svelte: the terminal as a Svelte action, `<div use:terminal={options}>`. An action
// needs no compile step in the package and works in Svelte 4 and 5. The WTerm is created once
// per element; `update` (Svelte calls it when `options` changes) applies the new options to
// the live terminal (see controller.js); `destroy` runs when the element goes away.
import { TerminalController } from "./controller.js";

export function terminal(node, options) {
  const controller = new TerminalController(node, options ?? {});
  return {
    update(next) {
      controller.update(next ?? {});
    },
    destroy() {
      controller.destroy();
    },
  };
}

export default terminal;
