// wterm-wasm/vue: <Terminal> for Vue 3, written with defineComponent + h (no SFC compile step).
// The WTerm is created once per mounted component; prop changes are applied to it live
// (see controller.js). The component exposes `term` (the WTerm once initialized, else null).
import { defineComponent, h, markRaw, onBeforeUnmount, onMounted, ref, shallowRef, watch } from "vue";
import { TerminalController } from "./controller.js";

export const Terminal = defineComponent({
  name: "WTermTerminal",
  props: {
    full: { type: Boolean, default: false },
    webmcp: { type: [Boolean, Object], default: false },
    cols: { type: Number, default: undefined },
    rows: { type: Number, default: undefined },
    scrollback: { type: Number, default: undefined },
    pasteWithCtrlV: { type: Boolean, default: false },
    screenReaderMode: { type: Boolean, default: true },
    links: { type: [Boolean, Object], default: undefined },
    findBar: { type: Boolean, default: undefined },
    theme: { type: [String, Object], default: undefined },
    relay: { type: Object, default: undefined },
    autoFocus: { type: Boolean, default: false },
    // Declared as props (not emits), so that `@data`, `@resize`, `@title`, `@agent`, `@bell`,
    // `@progress`, `@link`, `@search` and `@ready` arrive
    // here and the terminal knows whether anyone listens for data (else it echoes locally).
    onData: { type: Function, default: undefined },
    onResize: { type: Function, default: undefined },
    onTitle: { type: Function, default: undefined },
    onAgent: { type: Function, default: undefined },
    onLink: { type: Function, default: undefined },
    onSearch: { type: Function, default: undefined },
    onBell: { type: Function, default: undefined },
    onProgress: { type: Function, default: undefined },
    onReady: { type: Function, default: undefined },
    onError: { type: Function, default: undefined },
  },
  setup(props, { expose }) {
    const host = ref(null);
    const term = shallowRef(null);
    let controller = null;

    const options = () => ({
      full: props.full,
      webmcp: props.webmcp,
      cols: props.cols,
      rows: props.rows,
      scrollback: props.scrollback,
      pasteWithCtrlV: props.pasteWithCtrlV,
      screenReaderMode: props.screenReaderMode,
      theme: props.theme,
      relay: props.relay,
      autoFocus: props.autoFocus,
      onData: props.onData,
      onResize: props.onResize,
      onTitle: props.onTitle,
      onAgent: props.onAgent,
      links: props.links,
      findBar: props.findBar,
      onLink: props.onLink,
      onSearch: props.onSearch,
      onBell: props.onBell,
      onProgress: props.onProgress,
      onError: props.onError,
      onReady: (t) => {
        term.value = markRaw(t);
        props.onReady?.(t);
      },
    });

    onMounted(() => {
      controller = new TerminalController(host.value, options());
    });
    // Deep, so that changing a field of a reactive webmcp or relay object applies too.
    watch(
      () => [
        props.webmcp, props.cols, props.rows, props.theme, props.relay,
        props.onData, props.onResize, props.onTitle, props.onAgent, props.onBell, props.onProgress,
      ],
      () => controller?.update(options()),
      { deep: true },
    );
    onBeforeUnmount(() => {
      controller?.destroy();
      controller = null;
      term.value = null;
    });

    expose({ term });
    return () => h("div", { ref: host });
  },
});

export default Terminal;
