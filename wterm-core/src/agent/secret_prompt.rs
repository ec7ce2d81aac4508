//! Secret prompts (spec `broker-api.md` and `webmcp-tools.md`, "Secret prompts"): a terminal
//! whose PTY's line discipline has canonical mode on and echo off is waiting for a secret, the
//! way `getpass(3)`, `sudo`, `ssh`, `passwd` and bash's `read -s` ask for one. Only a person
//! types there: agent input is refused with [`CODE`], on both surfaces, unless the window's
//! owner allowed it (a per-window switch an agent cannot set). A lone Ctrl-C
//! ([`INTERRUPT`]) still passes, so an agent can cancel a prompt it started.
//!
//! Who knows the line discipline: the relay reads the slave's termios through the PTY master
//! and tells its pages; a page without a relay has no PTY and never sees a secret prompt.

/// The refusal code, the same on both surfaces (`409` on the relay's routes).
pub const CODE: &str = "secret_prompt";

/// The one input an agent may send to a secret prompt: Ctrl-C (ETX), which ends it.
pub const INTERRUPT: &[u8] = b"\x03";

/// Whether a line discipline with these `c_lflag` bits is waiting for a secret: canonical
/// (`ICANON`) with echo (`ECHO`) off. Raw-mode programs (editors, line editors such as
/// readline at a shell prompt) turn both off and are not secret prompts.
pub fn is_secret_prompt(canonical: bool, echo: bool) -> bool {
    canonical && !echo
}

/// Whether agent input `bytes` may go to a terminal in this state: always when no secret prompt
/// is shown or the owner `allowed` agent input there; otherwise only [`INTERRUPT`] (and nothing,
/// which sends nothing).
pub fn admits(prompt: bool, allowed: bool, bytes: &[u8]) -> bool {
    !prompt || allowed || bytes.is_empty() || bytes == INTERRUPT
}

/// How the person lets agents type at a window's secret prompts, the same words on both
/// surfaces: only the person can, and no agent tool does it.
pub const ALLOW: &str = "the person can allow it for this window in the relay page's settings \
     (\"Agents may type at password prompts\"); no agent tool can";

/// The refusal's detail: what is wrong and what is accepted, naming the surface's key tool
/// (`send_keys` on the relay, `press_terminal_keys` on the page) and how the person allows it.
pub fn detail(keys_tool: &str) -> String {
    format!(
        "the terminal is waiting for a secret (its echo is off, as at a password prompt from \
         sudo, ssh, passwd, read -s or getpass): a person must type it at the terminal, and \
         nothing was sent; tell your user. Accepted meanwhile: {keys_tool} with only Ctrl-C \
         (\"C-c\") to cancel the prompt; {ALLOW}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_without_echo_is_a_secret_prompt() {
        assert!(is_secret_prompt(true, false));
        assert!(
            !is_secret_prompt(true, true),
            "cooked mode: cat, a plain read"
        );
        assert!(
            !is_secret_prompt(false, false),
            "raw mode: vim, readline at a prompt"
        );
        assert!(!is_secret_prompt(false, true));
    }

    #[test]
    fn only_ctrl_c_passes_a_secret_prompt_unless_allowed() {
        assert!(admits(false, false, b"ls\r"));
        assert!(!admits(true, false, b"hunter2\r"));
        assert!(!admits(true, false, b"\x03\x03"));
        assert!(admits(true, false, b""), "sends nothing");
        assert!(admits(true, false, INTERRUPT));
        assert!(admits(true, true, b"hunter2\r"));
    }
}
