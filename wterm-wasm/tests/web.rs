//! DOM glue tests, run in headless Chromium:
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!  cargo test --target wasm32-unknown-unknown -p wterm-wasm`
//! Terminal semantics are tested natively in wterm-core; these check only that the adapter
//! draws, routes input and cleans up.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{HtmlElement, InputEvent, InputEventInit, KeyboardEvent, KeyboardEventInit};
use wterm_wasm::{OptionsArg, WTerm};

wasm_bindgen_test_configure!(run_in_browser);

fn host(w: u32, h: u32) -> HtmlElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let el: HtmlElement = doc.create_element("div").unwrap().unchecked_into();
    el.style().set_property("width", &format!("{w}px")).unwrap();
    el.style()
        .set_property("height", &format!("{h}px"))
        .unwrap();
    doc.body().unwrap().append_child(&el).unwrap();
    el
}

fn options(pairs: &[(&str, JsValue)]) -> Option<OptionsArg> {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &JsValue::from_str(k), v).unwrap();
    }
    Some(o.unchecked_into())
}

/// A callback that records the strings it is called with.
fn recorder() -> (JsValue, Rc<RefCell<Vec<String>>>) {
    let log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    let f = Closure::<dyn FnMut(String)>::new(move |s: String| l.borrow_mut().push(s));
    (f.into_js_value(), log)
}

async fn next_frame() {
    for _ in 0..2 {
        let p = js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window()
                .unwrap()
                .request_animation_frame(&resolve)
                .unwrap();
        });
        JsFuture::from(p).await.unwrap();
    }
}

fn rows(el: &HtmlElement) -> Vec<String> {
    let list = el.query_selector_all(".wterm-row").unwrap();
    (0..list.length())
        .map(|i| {
            list.get(i)
                .unwrap()
                .text_content()
                .unwrap_or_default()
                .trim_end()
                .to_string()
        })
        .collect()
}

fn input_el(el: &HtmlElement) -> web_sys::Element {
    el.query_selector(".wterm-input").unwrap().unwrap()
}

fn key(el: &HtmlElement, key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let ev = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    input_el(el).dispatch_event(&ev).unwrap();
}

fn type_text(el: &HtmlElement, text: &str) {
    let init = InputEventInit::new();
    init.set_input_type("insertText");
    init.set_data(Some(text));
    let ev = InputEvent::new_with_event_init_dict("input", &init).unwrap();
    input_el(el).dispatch_event(&ev).unwrap();
}

#[wasm_bindgen_test]
async fn draws_rows_and_colors() {
    let el = host(400, 200);
    let t = WTerm::new(
        el.clone().into(),
        options(&[("cols", 20.into()), ("rows", 5.into())]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    t.write("\x1b[31mred\x1b[0m ok".into()).unwrap();
    next_frame().await;
    let r = rows(&el);
    assert_eq!(r.len(), 5);
    assert_eq!(r[0], "red ok");
    let span = el.query_selector(".wterm-row span").unwrap().unwrap();
    assert!(span
        .get_attribute("style")
        .unwrap()
        .contains("var(--wterm-c1)"));
    assert!(el.query_selector(".wterm-cursor").unwrap().is_some());
    t.destroy().unwrap();
}

#[wasm_bindgen_test]
async fn echoes_locally_without_on_data() {
    let el = host(400, 200);
    let t = WTerm::new(
        el.clone().into(),
        options(&[("cols", 20.into()), ("rows", 5.into())]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    type_text(&el, "abx");
    key(&el, "Backspace");
    key(&el, "Enter");
    type_text(&el, "c");
    next_frame().await;
    assert_eq!(&rows(&el)[..2], ["ab", "c"]);
    t.destroy().unwrap();
}

#[wasm_bindgen_test]
async fn sends_keys_and_replies_to_on_data() {
    let el = host(400, 200);
    let (f, log) = recorder();
    let t = WTerm::new(
        el.clone().into(),
        options(&[("cols", 20.into()), ("onData", f)]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    key(&el, "ArrowUp");
    type_text(&el, "é");
    t.write("\x1b[?1h\x1b[6n".into()).unwrap();
    key(&el, "ArrowUp");
    assert_eq!(*log.borrow(), ["\x1b[A", "é", "\x1b[1;1R", "\x1bOA"]);
    next_frame().await;
    assert!(
        rows(&el).iter().all(|r| r.is_empty()),
        "onData set: nothing is echoed"
    );
    // With answerQueries off (a relay answers for every page) the query gets no reply here;
    // keys still go out.
    assert!(t.answer_queries());
    t.set_answer_queries(false).unwrap();
    t.write("\x1b[6n\x1b[c".into()).unwrap();
    key(&el, "ArrowUp");
    t.set_answer_queries(true).unwrap();
    t.write("\x1b[6n".into()).unwrap();
    assert_eq!(log.borrow()[4..], ["\x1bOA", "\x1b[1;1R"]);
    t.destroy().unwrap();
}

/// A callback that records its argument as JSON (for `{cols, rows}` objects).
fn json_recorder() -> (JsValue, Rc<RefCell<Vec<String>>>) {
    let log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    let f = Closure::<dyn FnMut(JsValue)>::new(move |v: JsValue| {
        l.borrow_mut()
            .push(js_sys::JSON::stringify(&v).unwrap().into())
    });
    (f.into_js_value(), log)
}

#[wasm_bindgen_test]
async fn listeners_join_the_options_callbacks() {
    let el = host(400, 200);
    let (on_data, from_option) = recorder();
    let t = WTerm::new(
        el.clone().into(),
        options(&[("cols", 20.into()), ("rows", 5.into()), ("onData", on_data)]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    let (listener, added) = recorder();
    t.add_listener("data".into(), listener.clone()).unwrap();
    t.add_listener("data".into(), listener.clone()).unwrap();
    type_text(&el, "a");
    t.write("\x1b[6n".into()).unwrap();
    assert_eq!(*from_option.borrow(), ["a", "\x1b[1;1R"]);
    assert_eq!(
        *added.borrow(),
        ["a", "\x1b[1;1R"],
        "added twice, called once"
    );
    t.remove_listener("data".into(), listener).unwrap();
    type_text(&el, "b");
    assert_eq!(*from_option.borrow(), ["a", "\x1b[1;1R", "b"]);
    assert_eq!(added.borrow().len(), 2);

    let (on_resize, sizes) = json_recorder();
    let (on_title, titles) = recorder();
    t.add_listener("resize".into(), on_resize).unwrap();
    t.add_listener("title".into(), on_title).unwrap();
    t.resize(30.into(), 6.into()).unwrap();
    t.resize(30.into(), 6.into()).unwrap();
    t.write("\x1b]2;hi\x07".into()).unwrap();
    assert_eq!(*sizes.borrow(), [r#"{"cols":30,"rows":6}"#]);
    assert_eq!(*titles.borrow(), ["hi"]);
    t.destroy().unwrap();
}

#[wasm_bindgen_test]
async fn a_data_listener_stops_local_echo_until_removed() {
    let el = host(400, 200);
    let t = WTerm::new(
        el.clone().into(),
        options(&[("cols", 20.into()), ("rows", 5.into())]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    let (listener, log) = recorder();
    t.add_listener("data".into(), listener.clone()).unwrap();
    type_text(&el, "a");
    next_frame().await;
    assert_eq!(*log.borrow(), ["a"]);
    assert_eq!(rows(&el)[0], "", "a data listener is the program: no echo");
    t.remove_listener("data".into(), listener).unwrap();
    type_text(&el, "b");
    next_frame().await;
    assert_eq!(rows(&el)[0], "b");
    assert_eq!(log.borrow().len(), 1);

    let message = |r: Result<(), JsError>| -> String {
        let e: js_sys::Error = JsValue::from(r.expect_err("should throw")).unchecked_into();
        e.message().into()
    };
    assert_eq!(
        message(t.add_listener("input".into(), JsValue::NULL)),
        "listener must be a function; got null"
    );
    let (f, _) = recorder();
    assert_eq!(
        message(t.add_listener("input".into(), f)),
        "type must be \"data\", \"resize\", \"title\", \"agent\", \"bell\" or \"progress\"; \
         got \"input\""
    );

    // "agent": reportAgent (the relay client's route for MCP clients) reaches the listeners
    // with source "relay"; a kind other than read/write throws and tells nobody.
    let seen = Rc::new(RefCell::new(Vec::<String>::new()));
    let s = seen.clone();
    let agent = Closure::<dyn FnMut(JsValue)>::new(move |a: JsValue| {
        s.borrow_mut()
            .push(js_sys::JSON::stringify(&a).unwrap().into());
    })
    .into_js_value();
    t.add_listener("agent".into(), agent).unwrap();
    let activity = |kind: &str, at: Option<f64>| {
        let o = js_sys::Object::new();
        js_sys::Reflect::set(&o, &"kind".into(), &kind.into()).unwrap();
        js_sys::Reflect::set(&o, &"tool".into(), &"send_input".into()).unwrap();
        if let Some(at) = at {
            js_sys::Reflect::set(&o, &"at".into(), &at.into()).unwrap();
        }
        JsValue::from(o)
    };
    t.report_agent(activity("write", Some(1234.0))).unwrap();
    assert_eq!(
        *seen.borrow(),
        [r#"{"kind":"write","tool":"send_input","at":1234,"source":"relay"}"#]
    );
    const ACCEPTED: &str = "reportAgent takes {kind: \"read\" | \"write\", tool: string, at?: number, by?: {kind: \"person\" | \"page_agent\" | \"mcp_client\" | \"route_caller\", name?: string}}";
    assert_eq!(message(t.report_agent(activity("look", None))), ACCEPTED);
    // Who, as the relay says: passed on, its name cleaned; a kind not known is refused.
    let with_by = |kind: &str, name: &str| {
        let a = activity("write", Some(5.0));
        let by = js_sys::Object::new();
        js_sys::Reflect::set(&by, &"kind".into(), &kind.into()).unwrap();
        js_sys::Reflect::set(&by, &"name".into(), &name.into()).unwrap();
        js_sys::Reflect::set(&a, &"by".into(), &by).unwrap();
        a
    };
    t.report_agent(with_by("mcp_client", "claude\u{1b}-code"))
        .unwrap();
    assert_eq!(
        seen.borrow_mut().pop().unwrap(),
        r#"{"kind":"write","tool":"send_input","at":5,"source":"relay","by":{"kind":"mcp_client","name":"claude-code"}}"#
    );
    assert_eq!(message(t.report_agent(with_by("robot", "x"))), ACCEPTED);
    let before = js_sys::Date::now();
    t.report_agent(activity("read", None)).unwrap();
    assert_eq!(seen.borrow().len(), 2);
    assert!(seen.borrow()[1].contains(r#""kind":"read""#));
    let at: f64 = js_sys::Reflect::get(
        &js_sys::JSON::parse(&seen.borrow()[1]).unwrap(),
        &"at".into(),
    )
    .unwrap()
    .as_f64()
    .unwrap();
    assert!(at >= before, "at defaults to now");
    t.destroy().unwrap();
}

#[wasm_bindgen_test]
async fn wide_characters_take_two_cells() {
    let el = host(400, 200);
    let t = WTerm::new(
        el.clone().into(),
        options(&[("cols", 20.into()), ("rows", 3.into())]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    // A lone ideograph, a run of three (one box, letter-spacing puts each on two cells), then
    // narrow text that must start on its own column.
    t.write("中a\r\n中文字b".into()).unwrap();
    next_frame().await;
    let root: HtmlElement = el
        .query_selector(".wterm")
        .unwrap()
        .unwrap()
        .unchecked_into();
    let cell_w: f64 = web_sys::window()
        .unwrap()
        .get_computed_style(&root)
        .unwrap()
        .unwrap()
        .get_property_value("--wterm-cell-w")
        .unwrap()
        .trim_end_matches("px")
        .parse()
        .unwrap();
    let rows = el.query_selector_all(".wterm-row").unwrap();
    for (r, cells) in [(0u32, 2.0), (1, 6.0)] {
        let row: web_sys::Element = rows.get(r).unwrap().unchecked_into();
        let row_left = row.get_bounding_client_rect().left();
        let wide = row.query_selector(".wterm-w").unwrap().unwrap();
        let w = wide.get_bounding_client_rect().width();
        assert!(
            (w - cells * cell_w).abs() < 0.1,
            "row {r}: wide box {w}px, cell {cell_w}px"
        );
        let narrow = wide.next_element_sibling().unwrap();
        let at = narrow.get_bounding_client_rect().left() - row_left;
        assert!(
            (at - cells * cell_w).abs() < 0.1,
            "row {r}: narrow text at {at}px, cell {cell_w}px"
        );
        // Each glyph of the run starts two cells after the one before it.
        let text = wide.first_child().unwrap();
        let doc = web_sys::window().unwrap().document().unwrap();
        let left = |i: u32| {
            let range = doc.create_range().unwrap();
            range.set_start(&text, i).unwrap();
            range.set_end(&text, i + 1).unwrap();
            range.get_bounding_client_rect().left()
        };
        for i in 1..(cells as u32 / 2) {
            let step = left(i) - left(i - 1);
            assert!(
                (step - 2.0 * cell_w).abs() < 0.1,
                "row {r}: glyph {i} is {step}px after the one before, cell {cell_w}px"
            );
        }
    }
    t.destroy().unwrap();
}

/// Regression (found building a webpack app): a terminal whose `WTerm` the page did not keep
/// was freed by the garbage collector, and its screen stopped taking input and its WebMCP tools
/// were withdrawn. Dropping the handle here is what the collector's finalizer does.
#[wasm_bindgen_test]
async fn a_terminal_lives_until_destroyed_without_its_handle() {
    let el = host(400, 200);
    let t = WTerm::new(
        el.clone().into(),
        options(&[("cols", 20.into()), ("rows", 5.into())]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    drop(t);
    type_text(&el, "still here");
    next_frame().await;
    assert_eq!(rows(&el)[0], "still here");
    el.remove();
}

#[wasm_bindgen_test]
async fn destroy_removes_everything() {
    let el = host(400, 200);
    let (f, log) = recorder();
    let t = WTerm::new(el.clone().into(), options(&[("onData", f)])).unwrap();
    JsFuture::from(t.init()).await.unwrap();
    let textarea = input_el(&el);
    t.destroy().unwrap();
    assert_eq!(el.child_element_count(), 0);
    // The listener is gone: a key on the detached input reaches nobody.
    let init = KeyboardEventInit::new();
    init.set_key("Enter");
    textarea
        .dispatch_event(
            &KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap(),
        )
        .unwrap();
    assert!(log.borrow().is_empty());
    t.write("ignored".into()).unwrap();
    t.destroy().unwrap();
    assert!(JsFuture::from(t.init()).await.is_err());
}

#[wasm_bindgen_test]
fn bad_arguments_name_what_is_accepted() {
    let el = host(100, 100);
    let message = |r: Result<WTerm, JsError>| -> String {
        let e: js_sys::Error = JsValue::from(r.err().expect("should throw")).unchecked_into();
        e.message().into()
    };
    assert_eq!(
        message(WTerm::new(
            el.clone().into(),
            options(&[("cols", 0.into())])
        )),
        "cols must be an integer 2..1000; got 0"
    );
    assert_eq!(
        message(WTerm::new(
            el.clone().into(),
            options(&[("onData", "x".into())])
        )),
        "onData must be a function; got \"x\""
    );
    assert_eq!(
        message(WTerm::new("nope".into(), None)),
        "element must be an HTMLElement; got \"nope\""
    );
}

#[wasm_bindgen_test]
async fn reset_clears_screen_and_history() {
    let el = host(400, 200);
    let t = WTerm::new(
        el.clone().into(),
        options(&[("cols", 20.into()), ("rows", 3.into())]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    t.write("\x1b]2;T\x07a\r\nb\r\nc\r\nd".into()).unwrap();
    next_frame().await;
    assert_eq!(rows(&el), ["b", "c", "d"]);
    t.reset().unwrap();
    next_frame().await;
    assert_eq!(rows(&el), ["", "", ""]);
    assert_eq!(t.title(), None);
    assert_eq!((t.cols(), t.rows()), (20, 3));
    t.destroy().unwrap();
}

/// An older-style provider on `navigator.modelContext` (no WebMCP in the test browser):
/// `registerTool(tool)` returns `{unregister}`. Records what happens in `window.__mcpLog` and
/// keeps the tools in `window.__mcpTools`.
fn install_navigator_provider() {
    let install = js_sys::Function::new_no_args(
        r#"
        window.__mcpLog = [];
        window.__mcpTools = {};
        Object.defineProperty(navigator, "modelContext", { configurable: true, value: {
          registerTool(tool) {
            window.__mcpTools[tool.name] = tool;
            window.__mcpLog.push("+" + tool.name);
            return { unregister() {
              delete window.__mcpTools[tool.name];
              window.__mcpLog.push("-" + tool.name);
            } };
          },
        } });
        "#,
    );
    install.call0(&JsValue::UNDEFINED).unwrap();
}

fn mcp_log() -> Vec<String> {
    let log = Reflect::get(&js_sys::global(), &"__mcpLog".into()).unwrap();
    js_sys::Array::from(&log)
        .iter()
        .map(|v| v.as_string().unwrap())
        .collect()
}

/// Calls a registered tool's `execute` directly and parses its JSON answer.
fn execute(tool: &str, input: &str) -> JsValue {
    let tools = Reflect::get(&js_sys::global(), &"__mcpTools".into()).unwrap();
    let tool = Reflect::get(&tools, &tool.into()).unwrap();
    let f: js_sys::Function = Reflect::get(&tool, &"execute".into())
        .unwrap()
        .unchecked_into();
    let input = js_sys::JSON::parse(input).unwrap();
    let out = f
        .call2(&JsValue::UNDEFINED, &input, &Object::new())
        .unwrap();
    js_sys::JSON::parse(&out.as_string().expect("a JSON string")).unwrap()
}

#[wasm_bindgen_test]
async fn webmcp_registers_once_per_page_and_withdraws() {
    install_navigator_provider();
    let el = host(400, 200);
    let (f, log) = recorder();
    let webmcp = Object::new();
    Reflect::set(&webmcp, &"name".into(), &"glue".into()).unwrap();
    let a = WTerm::new(
        el.clone().into(),
        options(&[
            ("cols", 20.into()),
            ("webmcp", webmcp.into()),
            ("onData", f),
        ]),
    )
    .unwrap();
    // Nothing is registered before init.
    assert!(mcp_log().is_empty());
    JsFuture::from(a.init()).await.unwrap();
    assert_eq!(
        mcp_log(),
        [
            "+list_terminals",
            "+read_terminal",
            "+type_in_terminal",
            "+press_terminal_keys"
        ]
    );
    let b = WTerm::new(host(400, 200).into(), options(&[("webmcp", true.into())])).unwrap();
    JsFuture::from(b.init()).await.unwrap();
    assert_eq!(mcp_log().len(), 4, "one registration per tool for the page");

    let list = execute("list_terminals", "{}");
    let names: Vec<String> =
        js_sys::Array::from(&Reflect::get(&list, &"terminals".into()).unwrap())
            .iter()
            .map(|t| {
                Reflect::get(&t, &"name".into())
                    .unwrap()
                    .as_string()
                    .unwrap()
            })
            .collect();
    assert_eq!(names, ["glue", "terminal"]);
    let pressed = execute(
        "press_terminal_keys",
        r#"{"terminal":"glue","keys":["Ctrl+C","Up"]}"#,
    );
    assert_eq!(Reflect::get(&pressed, &"pressed".into()).unwrap(), 2);
    assert_eq!(*log.borrow(), ["\x03", "\x1b[A"]);

    // setWebMCP checks its argument.
    let err = a
        .set_webmcp(JsValue::UNDEFINED)
        .expect_err("undefined is refused");
    let err: js_sys::Error = JsValue::from(err).unchecked_into();
    assert!(String::from(err.message()).starts_with("options must be false, true or an object"));

    let read_only = Object::new();
    Reflect::set(&read_only, &"readOnly".into(), &true.into()).unwrap();
    a.set_webmcp(read_only.clone().into()).unwrap();
    b.set_webmcp(read_only.into()).unwrap();
    assert_eq!(
        &mcp_log()[4..],
        ["-type_in_terminal", "-press_terminal_keys"]
    );
    a.destroy().unwrap();
    b.set_webmcp(false.into()).unwrap();
    assert_eq!(&mcp_log()[6..], ["-list_terminals", "-read_terminal"]);
    b.destroy().unwrap();
    assert_eq!(mcp_log().len(), 8);
}

/// Calls a registered tool's `execute`, awaits its answer when it is a Promise, and parses it.
async fn execute_async(tool: &str, input: &str) -> JsValue {
    let out = call_tool(tool, input);
    answer(out).await
}

/// Starts a tool call; its answer is awaited with [`answer`].
fn call_tool(tool: &str, input: &str) -> JsValue {
    let tools = Reflect::get(&js_sys::global(), &"__mcpTools".into()).unwrap();
    let tool = Reflect::get(&tools, &tool.into()).unwrap();
    let f: js_sys::Function = Reflect::get(&tool, &"execute".into())
        .unwrap()
        .unchecked_into();
    let input = js_sys::JSON::parse(input).unwrap();
    f.call2(&JsValue::UNDEFINED, &input, &Object::new())
        .unwrap()
}

async fn answer(out: JsValue) -> JsValue {
    let out = match out.dyn_into::<js_sys::Promise>() {
        Ok(p) => JsFuture::from(p).await.unwrap(),
        Err(v) => v,
    };
    js_sys::JSON::parse(&out.as_string().expect("a JSON string")).unwrap()
}

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(p).await.unwrap();
}

fn get(v: &JsValue, path: &str) -> JsValue {
    path.split('.')
        .fold(v.clone(), |v, k| Reflect::get(&v, &k.into()).unwrap())
}

fn json_of(v: &JsValue) -> String {
    js_sys::JSON::stringify(v).unwrap().into()
}

/// A bash prompt as the relay's injected integration draws it (recorded: OSC 133 A, the
/// prompt, B).
const PROMPT: &str = "\x1b]133;A\x07$ \x1b]133;B\x07";

/// The output of a command line as bash with the injected integration writes it (recorded):
/// the echoed line, `633;E` with the command text, `C`, the output, `D;exit`, OSC 7.
fn ran(cmd: &str, output: &str, exit: i32) -> String {
    format!(
        "{cmd}\r\n\x1b]633;E;{cmd}\x07\x1b]133;C\x07{output}\x1b]133;D;{exit}\x07\x1b]7;file://box/tmp\x07"
    )
}

#[wasm_bindgen_test]
async fn webmcp_commands_from_shell_integration() {
    install_navigator_provider();
    let (f, sent) = recorder();
    let webmcp = Object::new();
    Reflect::set(&webmcp, &"name".into(), &"cmds".into()).unwrap();
    let t = WTerm::new(
        host(400, 200).into(),
        options(&[
            ("cols", 40.into()),
            ("rows", 10.into()),
            ("webmcp", webmcp.into()),
            ("onData", f),
        ]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();

    // No integration yet: waitForCommand says so instead of guessing.
    t.write("plain $ ".into()).unwrap();
    let err = execute("read_terminal", r#"{"waitForCommand":true}"#);
    let msg = get(&err, "error").as_string().unwrap();
    assert!(msg.contains("no shell integration"), "{msg}");
    let err = execute(
        "type_in_terminal",
        r#"{"text":"true","submit":true,"waitForCommand":true}"#,
    );
    assert!(get(&err, "error")
        .as_string()
        .unwrap()
        .contains("nothing was typed"));
    assert!(sent.borrow().is_empty());
    let err = execute("read_terminal", r#"{"waitFor":"x","waitForCommand":true}"#);
    assert!(get(&err, "error")
        .as_string()
        .unwrap()
        .contains("cannot be combined"));
    let err = execute("read_terminal", r#"{"newOutputOnly":true}"#);
    assert!(get(&err, "error")
        .as_string()
        .unwrap()
        .contains("give waitFor"));

    // A finished command: lastCommand in the state object.
    t.write(format!("\r\n{PROMPT}{}{PROMPT}", ran("echo hi", "hi\r\n", 0)).into())
        .unwrap();
    let list = execute("list_terminals", "{}");
    let state = js_sys::Array::from(&get(&list, "terminals")).get(0);
    assert_eq!(get(&state, "lastCommand.command"), "echo hi");
    assert_eq!(get(&state, "lastCommand.exitCode"), 0);
    assert_eq!(
        get(&state, "lastCommand.cwd").as_string(),
        None,
        "cwd reported after it"
    );
    assert!(get(&state, "lastCommand.durationMs").as_f64().unwrap() >= 0.0);
    assert!(get(&state, "runningCommand").is_undefined());
    // Nothing runs and nothing was submitted here.
    let err = execute("read_terminal", r#"{"waitForCommand":true}"#);
    assert!(get(&err, "error")
        .as_string()
        .unwrap()
        .contains("no command is running"));

    // A running command: read_terminal waits for its end and answers its result.
    // The bash script escapes `;` in the command text as \x3b.
    t.write("sleep 1; echo done\r\n\x1b]633;E;sleep 1\\x3b echo done\x07\x1b]133;C\x07".into())
        .unwrap();
    let state = js_sys::Array::from(&get(&execute("list_terminals", "{}"), "terminals")).get(0);
    assert_eq!(get(&state, "runningCommand.command"), "sleep 1; echo done");
    assert!(get(&state, "runningCommand.startedMsAgo").as_f64().unwrap() >= 0.0);
    assert_eq!(get(&state, "runningCommand.cwd"), "/tmp");
    let pending = call_tool("read_terminal", r#"{"waitForCommand":true}"#);
    sleep(30).await;
    t.write("done\r\n\x1b]133;D;0\x07".into()).unwrap();
    t.write(PROMPT.into()).unwrap();
    let r = answer(pending).await;
    assert_eq!(
        get(&r, "command.command"),
        "sleep 1; echo done",
        "{}",
        json_of(&r)
    );
    assert_eq!(get(&r, "command.exitCode"), 0);
    assert_eq!(get(&r, "command.output"), "done");
    assert_eq!(get(&r, "command.outputRows"), 1);
    assert!(get(&r, "command.outputTail").is_undefined());
    assert!(get(&r, "timedOut").is_undefined());
    assert_eq!(get(&r, "lastCommand.exitCode"), 0);

    // type_in_terminal + submit + waitForCommand: one call, the exit code of the command its
    // Enter started.
    let pending = call_tool(
        "type_in_terminal",
        r#"{"text":"false","submit":true,"waitForCommand":true}"#,
    );
    sleep(250).await;
    assert_eq!(*sent.borrow(), ["false", "\r"]);
    t.write(format!("{}{PROMPT}", ran("false", "", 1)).into())
        .unwrap();
    let r = answer(pending).await;
    assert_eq!(get(&r, "ok"), true, "{}", json_of(&r));
    assert_eq!(get(&r, "typed"), 5);
    assert_eq!(get(&r, "submitted"), true);
    assert_eq!(get(&r, "command.command"), "false");
    assert_eq!(get(&r, "command.exitCode"), 1);
    assert_eq!(get(&r, "command.output"), "");
    // Right after, read_terminal waitForCommand answers that command at once (the line
    // submitted last started it).
    let r = execute_async("read_terminal", r#"{"waitForCommand":true}"#).await;
    assert_eq!(get(&r, "command.exitCode"), 1);

    // Long output: the first and last 200 rows (the core's bound), the rows between counted.
    let pending = call_tool(
        "type_in_terminal",
        r#"{"text":"seq 500","submit":true,"waitForCommand":true}"#,
    );
    sleep(250).await;
    let lines: String = (1..=500).map(|n| format!("{n}\r\n")).collect();
    t.write(format!("{}{PROMPT}", ran("seq 500", &lines, 0)).into())
        .unwrap();
    let r = answer(pending).await;
    assert_eq!(
        get(&r, "command.outputRows"),
        500,
        "{}",
        json_of(&get(&r, "command"))
    );
    assert_eq!(get(&r, "command.rowsLeftOut"), 100);
    let head = get(&r, "command.output").as_string().unwrap();
    let tail = get(&r, "command.outputTail").as_string().unwrap();
    assert_eq!(
        head,
        (1..=200)
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(
        tail,
        (301..=500)
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );

    // A wait that times out answers the running command so far, marked running.
    t.write("yes\r\n\x1b]633;E;yes\x07\x1b]133;C\x07y\r\ny\r\n".into())
        .unwrap();
    let r = execute_async("read_terminal", r#"{"waitForCommand":true,"timeoutMs":50}"#).await;
    assert_eq!(get(&r, "timedOut"), true);
    assert_eq!(get(&r, "command.running"), true);
    assert_eq!(get(&r, "command.output"), "y\ny");
    t.write(format!("^C\r\n\x1b]133;D;130\x07{PROMPT}").into())
        .unwrap();
    t.destroy().unwrap();
}

/// Polls `cond` every 10 ms, at most `ms` long; panics with `what` when it never holds.
async fn until(what: &str, ms: i32, cond: impl Fn() -> bool) {
    for _ in 0..ms / 10 {
        if cond() {
            return;
        }
        sleep(10).await;
    }
    panic!("{what}: not within {ms} ms");
}

/// A 40-column terminal with WebMCP on, initialised, and the log of what it sent.
async fn webmcp_term() -> (WTerm, Rc<RefCell<Vec<String>>>) {
    let (f, sent) = recorder();
    let t = WTerm::new(
        host(400, 200).into(),
        options(&[("cols", 40.into()), ("webmcp", true.into()), ("onData", f)]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    (t, sent)
}

#[wasm_bindgen_test]
async fn webmcp_waits_for_an_injected_shells_first_prompt() {
    install_navigator_provider();
    let (t, sent) = webmcp_term().await;
    assert!(
        t.set_injected_shell("yes".into()).is_err(),
        "a boolean only"
    );

    // The relay says its integration is coming: the call waits for the first prompt, typing
    // nothing before it, then runs as if made then.
    t.set_injected_shell(true.into()).unwrap();
    let pending = call_tool(
        "type_in_terminal",
        r#"{"text":"echo hi","submit":true,"waitForCommand":true}"#,
    );
    sleep(50).await;
    assert!(sent.borrow().is_empty(), "typed before the first prompt");
    t.write(PROMPT.into()).unwrap();
    until("the line and its Enter typed", 5000, || {
        sent.borrow().concat() == "echo hi\r"
    })
    .await;
    t.write(format!("{}{PROMPT}", ran("echo hi", "hi\r\n", 0)).into())
        .unwrap();
    let r = answer(pending).await;
    assert_eq!(get(&r, "command.exitCode"), 0, "{}", json_of(&r));
    assert_eq!(get(&r, "command.output"), "hi");
    t.destroy().unwrap();

    // The relay takes it back (another attach): a waiting call is answered the error at once.
    let (t, sent) = webmcp_term().await;
    t.set_injected_shell(true.into()).unwrap();
    let pending = call_tool(
        "press_terminal_keys",
        r#"{"keys":["Enter"],"waitForCommand":true}"#,
    );
    t.set_injected_shell(false.into()).unwrap();
    let r = answer(pending).await;
    let msg = get(&r, "error").as_string().unwrap();
    assert!(
        msg.contains("no shell integration") && msg.contains("nothing was pressed"),
        "{msg}"
    );
    assert!(sent.borrow().is_empty());
    t.destroy().unwrap();
}

#[wasm_bindgen_test]
async fn webmcp_new_output_only() {
    install_navigator_provider();
    let (f, sent) = recorder();
    let webmcp = Object::new();
    Reflect::set(&webmcp, &"name".into(), &"fresh".into()).unwrap();
    let t = WTerm::new(
        host(400, 200).into(),
        options(&[
            ("cols", 40.into()),
            ("rows", 10.into()),
            ("webmcp", webmcp.into()),
            ("onData", f),
        ]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();

    // Without integration: rows from the cursor's row down count; text above does not.
    t.write("Continue? earlier\r\n$ ".into()).unwrap();
    let r = execute("read_terminal", r#"{"waitFor":"Continue?"}"#);
    assert!(get(&r, "timedOut").is_undefined(), "already on screen");
    let pending = call_tool(
        "read_terminal",
        r#"{"waitFor":"Continue?","newOutputOnly":true,"timeoutMs":3000}"#,
    );
    sleep(40).await;
    t.write("x\r\nnothing yet\r\n".into()).unwrap();
    sleep(40).await;
    t.write("Continue? ".into()).unwrap();
    let r = answer(pending).await;
    assert!(get(&r, "timedOut").is_undefined(), "{}", json_of(&r));
    let r = execute_async(
        "read_terminal",
        r#"{"waitFor":"earlier","newOutputOnly":true,"timeoutMs":30}"#,
    )
    .await;
    assert_eq!(get(&r, "timedOut"), true);

    // With integration and a submitted line: only the command's own output counts, so the
    // echoed command line (which holds the text) never matches.
    t.write(format!("\r\n{PROMPT}").into()).unwrap();
    let pending = call_tool(
        "type_in_terminal",
        r#"{"text":"read -p \"Continue? \" x","submit":true,"waitFor":"Continue?","newOutputOnly":true,"timeoutMs":3000}"#,
    );
    sleep(250).await;
    assert_eq!(sent.borrow().len(), 2);
    // The echo of the line arrives, then (later) the command starts and prints its prompt.
    t.write("read -p \"Continue? \" x\r\n".into()).unwrap();
    sleep(40).await;
    t.write("\x1b]633;E;read -p \"Continue? \" x\x07\x1b]133;C\x07".into())
        .unwrap();
    sleep(40).await;
    let race = js_sys::Function::new_with_args(
        "p",
        "return Promise.race([p, Promise.resolve('pending')])",
    );
    let early: js_sys::Promise = race
        .call1(&JsValue::UNDEFINED, &pending)
        .unwrap()
        .unchecked_into();
    assert_eq!(
        JsFuture::from(early).await.unwrap(),
        "pending",
        "the echoed line must not match"
    );
    t.write("Continue? ".into()).unwrap();
    let r = answer(pending).await;
    assert!(get(&r, "timedOut").is_undefined(), "{}", json_of(&r));
    assert_eq!(get(&r, "submitted"), true);
    assert_eq!(
        get(&r, "runningCommand.command"),
        "read -p \"Continue? \" x"
    );
    t.destroy().unwrap();
}

/// A GitHub token's shape (`ghp_` and 36 letters and digits), built at run time so that no
/// token-shaped literal sits in the source.
fn fake_github_token() -> String {
    format!("ghp_{}", "aB3d".repeat(9))
}

#[wasm_bindgen_test]
async fn webmcp_redacts_secrets_from_agent_reads() {
    install_navigator_provider();
    let el = host(400, 200);
    let webmcp = Object::new();
    Reflect::set(&webmcp, &"name".into(), &"secrets".into()).unwrap();
    let t = WTerm::new(
        el.clone().into(),
        options(&[
            ("cols", 50.into()),
            ("rows", 6.into()),
            ("webmcp", webmcp.into()),
        ]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    let token = fake_github_token();
    let marker = "[redacted:github_token]";

    // On one row: the agent reads the marker, the person's screen shows the token.
    t.write(format!("id {token}\r\n").into()).unwrap();
    let r = execute("read_terminal", "{}");
    assert_eq!(get(&r, "text"), format!("id {marker}\n"), "{}", json_of(&r));
    assert_eq!(
        json_of(&get(&r, "redacted")),
        r#"{"count":1,"kinds":["github_token"]}"#
    );
    next_frame().await;
    assert_eq!(rows(&el)[0], format!("id {token}"));
    let state = js_sys::Array::from(&get(&execute("list_terminals", "{}"), "terminals")).get(0);
    assert_eq!(get(&state, "redact"), true, "{}", json_of(&state));

    // Across a soft wrap: 30 columns of filler (a token starts a word), the token wraps at
    // column 50.
    let filler = format!("{} ", "x".repeat(29));
    t.write(format!("{filler}{token} end\r\n").into()).unwrap();
    let r = execute("read_terminal", "{}");
    let text = get(&r, "text").as_string().unwrap();
    assert!(!text.contains("ghp_"), "{text}");
    assert_eq!(text, format!("id {marker}\n{filler}{marker}\n end\n"));
    assert_eq!(
        json_of(&get(&r, "redacted")),
        r#"{"count":2,"kinds":["github_token"]}"#
    );
    next_frame().await;
    let screen = rows(&el);
    assert_eq!(
        format!("{}{}", screen[1], screen[2]),
        format!("{filler}{token} end")
    );

    // The tail through scrollback too.
    t.write("\r\n".repeat(10).into()).unwrap();
    let r = execute("read_terminal", r#"{"lines":100}"#);
    let text = get(&r, "text").as_string().unwrap();
    assert!(!text.contains("ghp_") && text.contains(marker), "{text}");
    assert_eq!(get(&r, "redacted.count"), 2);

    // A wait sees what the agent reads: the token's text never matches, the marker does.
    let probe = format!(
        r#"{{"waitFor":"{}","lines":100,"timeoutMs":50}}"#,
        &token[..12]
    );
    let r = execute_async("read_terminal", &probe).await;
    assert_eq!(get(&r, "timedOut"), true, "{}", json_of(&r));
    let r = execute_async(
        "read_terminal",
        r#"{"waitFor":"[redacted:","lines":100,"timeoutMs":50}"#,
    )
    .await;
    assert!(get(&r, "timedOut").is_undefined(), "{}", json_of(&r));
    // And newOutputOnly's rows: a token written after the call started.
    let probe = format!(
        r#"{{"waitFor":"{}","newOutputOnly":true,"timeoutMs":300}}"#,
        &token[4..20]
    );
    let pending = call_tool("read_terminal", &probe);
    t.write(format!("{token}\r\n").into()).unwrap();
    let r = answer(pending).await;
    assert_eq!(get(&r, "timedOut"), true, "{}", json_of(&r));

    // An agent cannot turn it off: the tools take no such argument.
    let r = execute("read_terminal", r#"{"redact":false}"#);
    assert!(get(&r, "error")
        .as_string()
        .unwrap()
        .contains("unknown argument"));

    // The page's owner can: raw text, no `redacted`.
    let off = Object::new();
    Reflect::set(&off, &"redact".into(), &false.into()).unwrap();
    t.set_webmcp(off.into()).unwrap();
    let r = execute("read_terminal", r#"{"lines":100}"#);
    assert!(get(&r, "text").as_string().unwrap().contains(&token));
    assert!(get(&r, "redacted").is_undefined(), "{}", json_of(&r));
    assert_eq!(get(&r, "redact"), false);
    let r = execute_async(
        "read_terminal",
        &format!(r#"{{"waitFor":"{token}","lines":100,"timeoutMs":50}}"#),
    )
    .await;
    assert!(get(&r, "timedOut").is_undefined(), "{}", json_of(&r));

    // A bad value throws, naming the field and what is accepted, and changes nothing.
    let bad = Object::new();
    Reflect::set(&bad, &"name".into(), &"renamed".into()).unwrap();
    Reflect::set(&bad, &"redact".into(), &"yes".into()).unwrap();
    let err = t.set_webmcp(bad.into()).expect_err("a string is refused");
    let err: js_sys::Error = JsValue::from(err).unchecked_into();
    assert_eq!(
        String::from(err.message()),
        r#"options.redact must be a boolean; got "yes""#
    );
    let state = js_sys::Array::from(&get(&execute("list_terminals", "{}"), "terminals")).get(0);
    assert_eq!(get(&state, "name"), "secrets");
    assert_eq!(get(&state, "redact"), false);
    // null restores the default: on.
    let reset = Object::new();
    Reflect::set(&reset, &"redact".into(), &JsValue::NULL).unwrap();
    t.set_webmcp(reset.into()).unwrap();
    let r = execute("read_terminal", "{}");
    assert_eq!(get(&r, "redact"), true);
    t.destroy().unwrap();

    // The constructor checks it too.
    let bad = Object::new();
    Reflect::set(&bad, &"redact".into(), &1.into()).unwrap();
    let err = WTerm::new(host(400, 200).into(), options(&[("webmcp", bad.into())]))
        .err()
        .expect("a number is refused");
    let err: js_sys::Error = JsValue::from(err).unchecked_into();
    assert_eq!(
        String::from(err.message()),
        "webmcp.redact must be a boolean; got 1"
    );
}

#[wasm_bindgen_test]
async fn webmcp_redacts_commands_and_their_output() {
    install_navigator_provider();
    let webmcp = Object::new();
    Reflect::set(&webmcp, &"name".into(), &"secret-cmds".into()).unwrap();
    let (f, _sent) = recorder();
    let t = WTerm::new(
        host(400, 200).into(),
        options(&[
            ("cols", 60.into()),
            ("rows", 10.into()),
            ("webmcp", webmcp.into()),
            ("onData", f),
        ]),
    )
    .unwrap();
    JsFuture::from(t.init()).await.unwrap();
    let value = "s3cr3t".repeat(3);
    let cmd = format!("echo API_TOKEN={value}");
    let shown = "API_TOKEN=[redacted:secret_assignment]";

    // A running command's line in the state object.
    t.write(PROMPT.into()).unwrap();
    t.write(format!("{cmd}\r\n\x1b]633;E;{cmd}\x07\x1b]133;C\x07").into())
        .unwrap();
    let list = execute("list_terminals", "{}");
    let state = js_sys::Array::from(&get(&list, "terminals")).get(0);
    assert_eq!(
        get(&state, "runningCommand.command"),
        format!("echo {shown}")
    );
    assert_eq!(
        json_of(&get(&list, "redacted")),
        r#"{"count":1,"kinds":["secret_assignment"]}"#
    );

    // waitForCommand: the command line, its output, the screen and lastCommand.
    let pending = call_tool("read_terminal", r#"{"waitForCommand":true}"#);
    t.write(format!("API_TOKEN={value}\r\n\x1b]133;D;0\x07{PROMPT}").into())
        .unwrap();
    let r = answer(pending).await;
    let all = json_of(&r);
    assert!(!all.contains(&value), "{all}");
    assert_eq!(get(&r, "command.command"), format!("echo {shown}"));
    assert_eq!(get(&r, "command.output"), shown);
    assert_eq!(get(&r, "lastCommand.command"), format!("echo {shown}"));
    assert_eq!(get(&r, "text"), format!("$ echo {shown}\n{shown}\n$"));
    // Two on the screen, lastCommand, command.command, command.output.
    assert_eq!(
        json_of(&get(&r, "redacted")),
        r#"{"count":5,"kinds":["secret_assignment"]}"#
    );

    // Off: everything raw, no `redacted`.
    let off = Object::new();
    Reflect::set(&off, &"redact".into(), &false.into()).unwrap();
    t.set_webmcp(off.into()).unwrap();
    let list = execute("list_terminals", "{}");
    let state = js_sys::Array::from(&get(&list, "terminals")).get(0);
    assert_eq!(get(&state, "lastCommand.command"), cmd);
    assert!(get(&list, "redacted").is_undefined());
    t.destroy().unwrap();
}
