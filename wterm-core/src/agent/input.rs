//! The input sequence (spec `webmcp-tools.md`, "Input sequence"; `mcp-server.md`, "Input
//! sequence"): each terminal numbers the agent input calls it sends, from 1, so an agent whose
//! call ended without an answer can tell from the state alone whether it went out. Agent hosts
//! never retry a call whose outcome is unknown: the action may already have happened.
//!
//! A call takes its number as it sends its first byte; a call refused before that, or one that
//! sends nothing, takes none. Each surface keeps its own sequence per terminal (the page for
//! its WebMCP tools, the relay for its MCP and broker clients); a person's keys are not counted.

/// Where the Enter of a submitting call is (`type_in_terminal` with `submit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enter {
    /// Not pressed yet (the page presses it a moment after the text).
    Pending,
    /// Pressed.
    Pressed,
    /// Never pressed: the call was cancelled, or the terminal withdrawn, destroyed or made
    /// read-only, before it.
    Cancelled,
}

impl Enter {
    /// The wire name: `"pending"`, `"pressed"`, `"cancelled"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Enter::Pending => "pending",
            Enter::Pressed => "pressed",
            Enter::Cancelled => "cancelled",
        }
    }
}

/// The newest numbered input call of a terminal (`lastInput` / `last_input`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastInput {
    /// Its number, from 1.
    pub seq: u64,
    /// The tool that sent it, by its name on the surface that numbered it.
    pub tool: &'static str,
    /// Bytes sent so far (an Enter pressed later included).
    pub bytes: usize,
    /// For a call that submits with a separate Enter: where that Enter is.
    pub enter: Option<Enter>,
}

/// One terminal's input sequence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InputSequence {
    seq: u64,
    last: Option<LastInput>,
}

impl InputSequence {
    /// The newest number taken, 0 before any (`inputSeq` / `input_seq`).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The newest numbered call.
    pub fn last(&self) -> Option<LastInput> {
        self.last
    }

    /// Numbers a call of `tool` that has just sent its first `bytes` (with `enter`: its Enter
    /// is still to come); returns its number.
    pub fn sent(&mut self, tool: &'static str, bytes: usize, enter: bool) -> u64 {
        self.seq += 1;
        self.last = Some(LastInput {
            seq: self.seq,
            tool,
            bytes,
            enter: enter.then_some(Enter::Pending),
        });
        self.seq
    }

    /// Call `seq` sent `bytes` more (the next key of a key list). Ignored once a newer call
    /// took a number.
    pub fn more(&mut self, seq: u64, bytes: usize) {
        if let Some(last) = self.last.as_mut().filter(|l| l.seq == seq) {
            last.bytes += bytes;
        }
    }

    /// The pending Enter of call `seq` was pressed (`Some(bytes)` it sent) or never will be
    /// (`None`). Ignored once a newer call took a number.
    pub fn enter_done(&mut self, seq: u64, pressed: Option<usize>) {
        if let Some(last) = self.last.as_mut().filter(|l| l.seq == seq) {
            last.bytes += pressed.unwrap_or(0);
            last.enter = Some(if pressed.is_some() {
                Enter::Pressed
            } else {
                Enter::Cancelled
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_numbered_from_one_and_the_last_is_kept() {
        let mut s = InputSequence::default();
        assert_eq!((s.seq(), s.last()), (0, None));
        assert_eq!(s.sent("send_input", 3, false), 1);
        let seq = s.sent("type_in_terminal", 4, true);
        assert_eq!(seq, 2);
        assert_eq!(s.last().unwrap().enter, Some(Enter::Pending));
        s.enter_done(seq, Some(1));
        let last = s.last().unwrap();
        assert_eq!((last.bytes, last.enter), (5, Some(Enter::Pressed)));
        let keys = s.sent("send_keys", 1, false);
        s.more(keys, 3);
        // An older call's late Enter changes nothing.
        s.enter_done(seq, None);
        s.more(seq, 9);
        let last = s.last().unwrap();
        assert_eq!(
            (last.seq, last.tool, last.bytes, last.enter),
            (3, "send_keys", 4, None)
        );
    }
}
