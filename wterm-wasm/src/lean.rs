//! The core build (`--no-default-features`, the package's `wterm-wasm` entry): search, plain-text
//! links, the find bar and `serialize` are left out, as xterm.js leaves them to its search,
//! web-links and serialize addons. The methods stay, with the same types, and throw
//! [`FULL_BUILD_ONLY`]; the options that would turn the features on are refused, so nothing is
//! silently missing. The full build (feature `full`, the `wterm-wasm/full` entry) has them.

/// What a call of a left-out feature throws: what it needs and how to get it.
pub(crate) const FULL_BUILD_ONLY: &str = "is in the full build of wterm-wasm: import init, { WTerm } from \"wterm-wasm/full\" (init and WTerm both from it), or give the bindings `full`; this core build leaves out search, plain-text links, the find bar and serialize";

/// Search and links, left out: the state is the `"search"` listeners alone (which never fire).
pub(crate) mod find {
    use wasm_bindgen::prelude::*;
    use web_sys::{HtmlElement, KeyboardEvent};

    use super::FULL_BUILD_ONLY;
    use crate::dom::Listener;
    use crate::js::{absent, is_plain_object, prop};
    use crate::term::{Inner, Shared};

    /// The options only the full build accepts, and the values that leave them off.
    const FULL_OPTIONS: [&str; 4] = ["links", "onLink", "findBar", "onSearch"];

    /// Nothing: search is left out.
    #[derive(Default)]
    pub(crate) struct Find {}

    /// Refuses `links` (unless `false`), `onLink`, `findBar` (unless `false`) and `onSearch`.
    pub(crate) fn parse_options(v: &JsValue) -> Result<Find, JsError> {
        if absent(v) || !is_plain_object(v) {
            return Ok(Find {});
        }
        for name in FULL_OPTIONS {
            let value = prop(v, name, name)?;
            if !absent(&value) && value.as_bool() != Some(false) {
                return Err(JsError::new(&format!(
                    "the option {name} {FULL_BUILD_ONLY}"
                )));
            }
        }
        Ok(Find {})
    }

    /// `findNext`/`findPrevious`: throws [`FULL_BUILD_ONLY`].
    pub(crate) fn search(
        _inner: &mut Inner,
        _query: Option<&JsValue>,
        _options: &JsValue,
        _backwards: Option<bool>,
    ) -> Result<(JsValue, crate::js::Outbox), JsError> {
        Err(JsError::new(&format!("search {FULL_BUILD_ONLY}")))
    }

    /// `clearSearch`: throws [`FULL_BUILD_ONLY`], as the other search methods.
    pub(crate) fn clear(_inner: &mut Inner) -> Result<(), JsError> {
        Err(JsError::new(&format!("clearSearch {FULL_BUILD_ONLY}")))
    }

    /// `addListener("search")`: throws [`FULL_BUILD_ONLY`] (it would never be called).
    pub(crate) fn search_listeners(find: &mut Find) -> Result<&mut crate::js::Listeners, JsError> {
        let _ = find;
        Err(JsError::new(&format!(
            "the \"search\" event {FULL_BUILD_ONLY}"
        )))
    }

    /// No highlights to draw.
    pub(crate) fn draw(_inner: &mut Inner) {}

    /// Ctrl+Shift+F is the program's.
    pub(crate) fn find_key(_shared: &Shared, _ev: &KeyboardEvent) -> bool {
        false
    }

    /// No pointer listeners.
    pub(crate) fn attach(
        _root: &HtmlElement,
        _weak: &std::rc::Weak<std::cell::RefCell<Inner>>,
    ) -> Result<Vec<Listener>, JsValue> {
        Ok(Vec::new())
    }

    /// Nothing to keep.
    pub(crate) fn set_listeners(_inner: &mut Inner, _listeners: Vec<Listener>) {}
}

/// `serialize`, left out.
pub(crate) mod export {
    use wasm_bindgen::prelude::*;

    use super::FULL_BUILD_ONLY;
    use crate::term::Inner;

    /// Throws [`FULL_BUILD_ONLY`].
    pub(crate) fn serialize(_inner: &mut Inner, _options: &JsValue) -> Result<String, JsError> {
        Err(JsError::new(&format!("serialize {FULL_BUILD_ONLY}")))
    }
}
