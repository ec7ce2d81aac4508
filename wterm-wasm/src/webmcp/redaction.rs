//! Secrets kept out of what the tools answer an agent (spec `webmcp-tools.md`, "Secrets are
//! redacted"): the core's [`Redactor`] applied to the rows read, the command facts and a
//! command's output, with a count of the markers one answer writes. The terminal's own screen,
//! copy and find bar are never redacted: only what the tools return.

use std::borrow::Cow;

use js_sys::{Array, Object};
use wterm_core::agent::redact::{Redactor, Report};
use wterm_core::{rows_contain, CommandOutput, TextRow};

use crate::js::set;
use crate::term::Inner;

/// The redaction of one answer, for one terminal: on unless the page's code set
/// `webmcp.redact: false`; what it replaced so far.
#[derive(Default)]
pub(crate) struct Redaction {
    redactor: Option<Redactor>,
    report: Report,
}

impl Redaction {
    /// The redaction `inner`'s terminal asks for (its `webmcp.redact`, default on).
    pub(crate) fn of(inner: &Inner) -> Redaction {
        let on = inner.webmcp.as_ref().is_none_or(|c| c.redact);
        Redaction {
            redactor: on.then(Redactor::new),
            report: Report::default(),
        }
    }

    /// Whether secrets are redacted (the state object's `redact`).
    pub(crate) fn on(&self) -> bool {
        self.redactor.is_some()
    }

    /// Redacts rows an answer carries, in place (a match may span a soft wrap).
    pub(crate) fn rows(&mut self, rows: &mut [TextRow]) {
        if let Some(r) = &self.redactor {
            self.report.add(&r.rows(rows));
        }
    }

    /// A string an answer carries (a command line, a title), redacted.
    pub(crate) fn text<'a>(&mut self, s: &'a str) -> Cow<'a, str> {
        let Some(r) = &self.redactor else {
            return Cow::Borrowed(s);
        };
        let out = r.text(s);
        self.report.add(&out.report);
        out.text
    }

    /// A command's output (head and tail) an answer carries, redacted.
    pub(crate) fn output(&mut self, out: CommandOutput) -> CommandOutput {
        let Some(r) = &self.redactor else { return out };
        let (out, report) = r.command_output(out);
        self.report.add(&report);
        out
    }

    /// Whether `needle` is in `rows` as an agent would read them (redacted), a match across a
    /// soft wrap included: a wait's predicate, so a wait cannot probe a secret's text. Not
    /// counted: the rows are not in the answer.
    pub(crate) fn rows_contain(&self, mut rows: Vec<TextRow>, needle: &str) -> bool {
        if let Some(r) = &self.redactor {
            r.rows(&mut rows);
        }
        rows_contain(&rows, needle)
    }

    /// Adds what `other` replaced (another terminal's part of the same answer).
    pub(crate) fn add(&mut self, other: &Redaction) {
        self.report.add(&other.report);
    }

    /// Sets `redacted: {count, kinds}` on `result` when this answer replaced anything.
    pub(crate) fn finish(&self, result: &Object) {
        if self.report.count == 0 {
            return;
        }
        let o = Object::new();
        set(&o, "count", self.report.count as f64);
        let kinds: Array = self
            .report
            .kinds
            .iter()
            .map(|k| js_sys::JsString::from(*k))
            .collect();
        set(&o, "kinds", kinds);
        set(result, "redacted", o);
    }
}
