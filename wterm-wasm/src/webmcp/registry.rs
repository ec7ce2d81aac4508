//! The page's WebMCP terminals: names (unique per page, spec "Enabling WebMCP") and the choice
//! of terminal for a call (spec "Choosing the terminal"). No JS here, so it runs under native
//! tests.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::js::{quote, WebMcpConfig};
use crate::term::Inner;

/// Name of a terminal whose options give none (spec).
pub(crate) const DEFAULT_NAME: &str = "terminal";

/// One terminal with WebMCP on.
pub(crate) struct Entry {
    /// The terminal's id (`Calls::id`), stable for its life.
    pub(crate) id: u64,
    /// The name agents use: `requested`, or it with a suffix when that was taken.
    pub(crate) name: String,
    /// The name the options asked for.
    pub(crate) requested: String,
    pub(crate) description: Option<String>,
    pub(crate) read_only: bool,
    /// Typing here has real consequences (the `consequential` option).
    pub(crate) consequential: bool,
    /// Origins that may see the tools (the `exposedTo` option).
    pub(crate) exposed_to: Vec<String>,
    /// The terminal; the registry never keeps it alive.
    pub(crate) term: Weak<RefCell<Inner>>,
}

/// What a tool call needs to know of its terminal, copied out of the registry so that no
/// registry borrow is held while the terminal works.
#[derive(Clone)]
pub(crate) struct Target {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) read_only: bool,
    pub(crate) term: Rc<RefCell<Inner>>,
}

/// The terminals with WebMCP on, in the order they joined.
#[derive(Default)]
pub(crate) struct Entries(Vec<Entry>);

/// `name`, or `name-2`, `name-3`, ... : the first that `taken` does not claim.
pub(crate) fn unique_name(name: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(name) {
        return name.to_string();
    }
    (2u32..)
        .map(|n| format!("{name}-{n}"))
        .find(|candidate| !taken(candidate))
        .unwrap_or_else(|| name.to_string())
}

/// Quoted names for error messages: `"terminal", "terminal-2"`.
pub(crate) fn quoted_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.map(quote).collect::<Vec<_>>().join(", ")
}

/// Which terminal a call means (spec "Choosing the terminal"), as an index into `terms`
/// (`(name, focused)` pairs): the one named `requested`; without a name, the only terminal, or
/// else the only focused one.
///
/// Errors (the message lists the available names): no terminal; unknown name; no name while
/// several terminals exist and not exactly one has focus.
pub(crate) fn choose(requested: Option<&str>, terms: &[(&str, bool)]) -> Result<usize, String> {
    let names = || quoted_names(terms.iter().map(|(n, _)| *n));
    if terms.is_empty() {
        return Err("no terminal on this page has WebMCP on".into());
    }
    if let Some(want) = requested {
        return terms.iter().position(|(n, _)| *n == want).ok_or_else(|| {
            format!(
                "unknown terminal {}; available: {} (see list_terminals)",
                quote(want),
                names()
            )
        });
    }
    if terms.len() == 1 {
        return Ok(0);
    }
    let mut focused = terms.iter().enumerate().filter(|(_, (_, f))| *f);
    match (focused.next(), focused.next()) {
        (Some((i, _)), None) => Ok(i),
        _ => Err(format!(
            "this page has {} terminals and none has focus: pass terminal, one of {}",
            terms.len(),
            names()
        )),
    }
}

impl Entries {
    /// Drops entries whose terminal is gone (freed without `destroy()`); true if any was.
    pub(crate) fn prune(&mut self) -> bool {
        let before = self.0.len();
        self.0.retain(|e| e.term.strong_count() > 0);
        self.0.len() != before
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether some terminal accepts input (is not read-only).
    pub(crate) fn any_writable(&self) -> bool {
        self.0.iter().any(|e| !e.read_only)
    }

    /// Whether typing has real consequences on some terminal that accepts input: the typing
    /// tools, shared by all terminals, then carry `consequentialHint: true`.
    pub(crate) fn any_consequential(&self) -> bool {
        self.0.iter().any(|e| !e.read_only && e.consequential)
    }

    /// The `exposedTo` origins of all terminals, each once, in the order first given: the
    /// shared registrations serve every terminal.
    pub(crate) fn exposed_to(&self) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for origin in self.0.iter().flat_map(|e| &e.exposed_to) {
            if !all.contains(origin) {
                all.push(origin.clone());
            }
        }
        all
    }

    pub(crate) fn get(&self, id: u64) -> Option<&Entry> {
        self.0.iter().find(|e| e.id == id)
    }

    fn taken_by_other(&self, id: u64, name: &str) -> bool {
        self.0.iter().any(|e| e.id != id && e.name == name)
    }

    /// Adds terminal `id` or updates its options. A new terminal, or one whose requested name
    /// changed, gets the requested name or, when another terminal has it, the first free
    /// suffixed one. Returns `Some((requested, given))` when a suffix was added, for the
    /// console warning.
    pub(crate) fn set(
        &mut self,
        id: u64,
        term: Weak<RefCell<Inner>>,
        cfg: &WebMcpConfig,
    ) -> Option<(String, String)> {
        let requested = cfg.name.clone().unwrap_or_else(|| DEFAULT_NAME.to_string());
        if let Some(e) = self
            .0
            .iter_mut()
            .find(|e| e.id == id && e.requested == requested)
        {
            // Same name asked for: keep the one given (suffixed or not), warn no more.
            e.description = cfg.description.clone();
            e.read_only = cfg.read_only;
            e.consequential = cfg.consequential;
            e.exposed_to = cfg.exposed_to.clone();
            e.term = term;
            return None;
        }
        let name = unique_name(&requested, |n| self.taken_by_other(id, n));
        let renamed = (name != requested).then(|| (requested.clone(), name.clone()));
        let entry = Entry {
            id,
            name,
            requested,
            description: cfg.description.clone(),
            read_only: cfg.read_only,
            consequential: cfg.consequential,
            exposed_to: cfg.exposed_to.clone(),
            term,
        };
        match self.0.iter_mut().find(|e| e.id == id) {
            Some(e) => *e = entry,
            None => self.0.push(entry),
        }
        renamed
    }

    /// Removes terminal `id`; its name is free again. True if it was there.
    pub(crate) fn remove(&mut self, id: u64) -> bool {
        let before = self.0.len();
        self.0.retain(|e| e.id != id);
        self.0.len() != before
    }

    /// The live terminals, in order.
    pub(crate) fn targets(&self) -> Vec<Target> {
        self.0
            .iter()
            .filter_map(|e| {
                Some(Target {
                    name: e.name.clone(),
                    description: e.description.clone(),
                    read_only: e.read_only,
                    term: e.term.upgrade()?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(name: Option<&str>, read_only: bool) -> WebMcpConfig {
        WebMcpConfig {
            name: name.map(str::to_string),
            read_only,
            ..WebMcpConfig::default()
        }
    }

    fn names(e: &Entries) -> Vec<&str> {
        e.0.iter().map(|e| e.name.as_str()).collect()
    }

    #[test]
    fn names_get_suffixes_and_are_freed() {
        let mut e = Entries::default();
        assert_eq!(e.set(1, Weak::new(), &cfg(None, false)), None);
        assert_eq!(
            e.set(2, Weak::new(), &cfg(None, false)),
            Some(("terminal".into(), "terminal-2".into()))
        );
        assert_eq!(
            e.set(3, Weak::new(), &cfg(Some("terminal"), false)),
            Some(("terminal".into(), "terminal-3".into()))
        );
        assert_eq!(names(&e), ["terminal", "terminal-2", "terminal-3"]);
        // Changing another option keeps the name and does not warn again.
        assert_eq!(e.set(2, Weak::new(), &cfg(None, true)), None);
        assert_eq!(names(&e), ["terminal", "terminal-2", "terminal-3"]);
        assert!(e.remove(1));
        assert_eq!(e.set(4, Weak::new(), &cfg(None, false)), None);
        assert_eq!(names(&e), ["terminal-2", "terminal-3", "terminal"]);
        // A rename to a free name takes it as is.
        assert_eq!(e.set(3, Weak::new(), &cfg(Some("logs"), false)), None);
        assert_eq!(names(&e), ["terminal-2", "logs", "terminal"]);
    }

    #[test]
    fn writable_and_prune() {
        let mut e = Entries::default();
        e.set(1, Weak::new(), &cfg(None, true));
        assert!(!e.any_writable());
        e.set(2, Weak::new(), &cfg(Some("b"), false));
        assert!(e.any_writable());
        // Entries with dead handles are dropped.
        assert!(e.prune());
        assert!(e.is_empty());
    }

    #[test]
    fn consequential_while_any_writable_terminal_is() {
        let mut e = Entries::default();
        assert!(!e.any_consequential());
        let harmless = WebMcpConfig {
            consequential: false,
            exposed_to: vec!["https://a.example".into()],
            ..cfg(None, false)
        };
        e.set(1, Weak::new(), &harmless);
        assert!(!e.any_consequential());
        let shell = WebMcpConfig {
            exposed_to: vec!["https://b.example".into(), "https://a.example".into()],
            ..cfg(Some("b"), false)
        };
        e.set(2, Weak::new(), &shell);
        assert!(e.any_consequential());
        assert_eq!(e.exposed_to(), ["https://a.example", "https://b.example"]);
        // A read-only terminal cannot be typed into: its default does not count.
        e.set(
            2,
            Weak::new(),
            &WebMcpConfig {
                read_only: true,
                ..shell
            },
        );
        assert!(!e.any_consequential());
    }

    #[test]
    fn choosing_a_terminal() {
        let one = [("terminal", false)];
        assert_eq!(choose(None, &one), Ok(0));
        assert_eq!(choose(Some("terminal"), &one), Ok(0));
        assert_eq!(
            choose(Some("x"), &one).unwrap_err(),
            "unknown terminal \"x\"; available: \"terminal\" (see list_terminals)"
        );
        let two = [("a", false), ("b", true)];
        assert_eq!(choose(None, &two), Ok(1));
        let none_focused = [("a", false), ("b", false)];
        assert_eq!(
            choose(None, &none_focused).unwrap_err(),
            "this page has 2 terminals and none has focus: pass terminal, one of \"a\", \"b\""
        );
        assert!(choose(None, &[]).is_err());
    }
}
