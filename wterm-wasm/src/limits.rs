//! Every limit of the WebMCP tools (spec `webmcp-tools.md`), with its unit and what happens at
//! it, and the renderer's frame pacing. The tools' input schemas and error messages are built
//! from these constants, so the schema an agent reads and the check that refuses it never
//! disagree.

/// Most rows `read_terminal` returns with `lines`, in rows (spec: `lines` 1..10000). A larger
/// `lines` is refused with an error, not lowered. The same limit as the core's tail reader.
pub(crate) const MAX_READ_LINES: u32 = wterm_core::limits::MAX_TAIL_LINES as u32;

/// Longest `waitForIdleMs`, in milliseconds (spec: 1..120000); a larger value is refused.
pub(crate) const MAX_IDLE_MS: u32 = 120_000;

/// Longest `timeoutMs`, in milliseconds (spec: 1..120000); a larger value is refused.
pub(crate) const MAX_TIMEOUT_MS: u32 = 120_000;

/// `timeoutMs` when a `read_terminal` wait does not give one, in milliseconds (spec).
pub(crate) const DEFAULT_TIMEOUT_MS: u32 = 10_000;

// The tools' schema states the core's bounds on a command answer as literals (tools.rs
// `WAIT_COMMAND`).
const _: () = assert!(wterm_core::agent::MAX_COMMAND_OUTPUT_ROWS == 400);
const _: () = assert!(wterm_core::agent::MAX_COMMAND_OUTPUT_BYTES == 20_000);

/// Longest `text` `type_in_terminal` accepts, in bytes of UTF-8 (spec: 1 MiB); longer text is
/// refused and nothing is typed.
pub(crate) const MAX_TYPE_BYTES: usize = 1 << 20;

/// Most keys one `press_terminal_keys` call accepts (spec: 1..64); more are refused and nothing
/// is pressed.
pub(crate) const MAX_KEYS: usize = 64;

/// Delay between the text and the Enter of `type_in_terminal` with `submit: true`, in
/// milliseconds (spec), so programs that detect pastes by input speed (agent CLIs) see a
/// separate key press rather than a pasted newline.
pub(crate) const SUBMIT_DELAY_MS: u32 = 150;

/// Most of the person's input held while an agent's Enter is pending, in bytes (spec
/// "Turn-taking"): more (a large paste in those 150 ms) cancels the agent's Enter and goes at
/// once, as a Ctrl+C does, rather than being held or dropped.
pub(crate) const PERSON_HOLD_MAX_BYTES: usize = 64 * 1024;

/// Most origins one terminal's `webmcp.exposedTo` lists (the registrations get the origins of
/// all the page's terminals); a longer list is refused with an error.
pub(crate) const MAX_EXPOSED_ORIGINS: usize = 16;

/// What agent hosts keep of a tool's description in their summary, in bytes of UTF-8
/// (agent-browser's 160): each description's first sentence, which says what the tool does,
/// ends within it (checked when compiling, `webmcp/tools.rs`).
pub(crate) const SUMMARY_BYTES: usize = 160;

/// Shortest time between two wait checks made right after output (in a microtask), in
/// milliseconds: about one animation frame. Output arriving sooner after such a check is
/// checked at the next frame instead, so a flood of output costs at most about two checks per
/// frame.
pub(crate) const EAGER_CHECK_INTERVAL_MS: f64 = 16.0;

/// After an output-driven wait check that took `d` ms, the next one waits at least this many
/// times `d` (a timer runs it then), so wait checks take at most about a quarter of the page's
/// main thread whatever the output rate. A check of the screen costs well under a millisecond
/// and is never delayed by this; a wait over 10000 rows of scrollback costs tens of
/// milliseconds per check and is then checked a few times a second during a flood of output.
pub(crate) const CHECK_COST_FACTOR: f64 = 3.0;

/// Delay of a wait check after output while the page is hidden (`document.hidden`), in
/// milliseconds (spec): hidden pages get no animation frames, so a timer stands in for one.
pub(crate) const HIDDEN_CHECK_MS: u32 = 20;

/// Longest the renderer waits for a program to end synchronized output (mode 2026), in
/// milliseconds; after it the screen is drawn anyway, so a program that never resets the mode
/// cannot freeze the display (contour's spec leaves the timeout to the terminal; xterm.js and
/// kitty use about a second).
pub const SYNC_OUTPUT_TIMEOUT_MS: f64 = 1000.0;

/// Frames that took longer than this to draw are paced while output keeps arriving, in
/// milliseconds (the renderer's own time for the frame, including the layout of the rows it
/// rewrote, which it does within the frame: view.rs `Dom::render`): a whole frame at 60 Hz.
/// A frame that redraws a few rows (typing, a prompt) or a screen of ASCII costs well under
/// it and is never delayed; pacing a cheap frame would gain little and can show the end of a
/// flood a frame later.
pub(crate) const PACED_FRAME_MIN_MS: f64 = 16.0;

/// After a paced frame that took `d` ms, the next frame is drawn no sooner than this many times
/// `d` after it ended, as long as output keeps arriving; so during a flood of output that is
/// expensive to draw (CJK and emoji text, large terminals) our drawing takes at most about a
/// sixth of the main thread. The browser's style, paint and glyph rasterisation after each
/// frame cost several times what the frame callback itself measures (new CJK glyphs above
/// all), which is why the factor is 5 rather than 2: the browser bench's CJK floods went from
/// a median 11.0 to 17.4 MB/s at 80x24 and 19.0 to 29.3 at 200x50 (three A/B pairs). A frame
/// of new CJK rows costs 15 to 35 ms with their layout, so the screen is still redrawn about
/// every 100 ms. (Until the layout was counted, an 80x24 CJK frame measured 2 to 6 ms once the
/// scrollback was full and was never paced: 13.4 MB/s median, 23.0 with it.) An animation
/// frame with no output since the previous one always draws, so the screen shows the end of a
/// flood at the first frame after it.
pub(crate) const FRAME_COST_FACTOR: f64 = 5.0;

/// Longest a paced frame waits, in milliseconds: during a flood the screen is redrawn at least
/// about four times a second, however expensive a frame is.
pub(crate) const MAX_FRAME_PACE_MS: f64 = 250.0;

/// Quiet time after the last new line of output before the screen-reader live region announces
/// it, in milliseconds (a11y.rs): a command's output is announced once it stops, not line by
/// line.
pub(crate) const ANNOUNCE_SETTLE_MS: f64 = 150.0;

/// Longest new output waits to be announced while output keeps coming, in milliseconds: a
/// flood gets one announcement (a summary) every 2 s at most, so assistive tech is never
/// handed more than that.
pub(crate) const ANNOUNCE_MAX_DELAY_MS: f64 = 2000.0;

/// Most characters one announcement reads out; more new output is announced as a summary,
/// "N lines of output", which the rows can then be read for.
pub(crate) const MAX_ANNOUNCE_CHARS: usize = 500;

/// Most rows one announcement reads out (and fetches from the terminal); more is summarized as
/// for [`MAX_ANNOUNCE_CHARS`].
pub(crate) const MAX_ANNOUNCE_ROWS: u64 = 24;

/// A touch that moves less than this from where it started is still a press (a tap or a
/// long-press), in CSS px; past it, it is a swipe.
pub(crate) const TOUCH_SLOP_PX: f64 = 10.0;

/// A touch held this long without moving past [`TOUCH_SLOP_PX`] selects the word under it, in
/// milliseconds (Android's long-press timeout is 400 to 500 ms).
pub(crate) const LONG_PRESS_MS: f64 = 500.0;

/// After a swipe the history keeps scrolling (momentum) at the finger's last speed, which
/// decays by this factor per millisecond (UIKit's normal deceleration rate,
/// `UIScrollView.DecelerationRate.normal`): it halves about every 350 ms, and a fling at speed
/// `v` px/ms travels about `500 v` px.
pub(crate) const MOMENTUM_DECAY_PER_MS: f64 = 0.998;

/// Momentum stops below this speed, in CSS px per millisecond (and never starts below it).
pub(crate) const MOMENTUM_MIN_PX_PER_MS: f64 = 0.05;

/// The finger's speed is measured over its moves of the last this many milliseconds before
/// it lifted (at least its last two moves); a finger still for longer before lifting leaves no
/// momentum.
pub(crate) const VELOCITY_WINDOW_MS: f64 = 100.0;

/// Moves of a swipe kept to measure the finger's speed (the newest ones).
pub(crate) const VELOCITY_SAMPLES: usize = 8;

/// The longest query `search` takes, in characters. V8 refuses a pattern of some 50,000
/// characters ("Regular expression too large", measured at 60,000 with the `i` flag) and the
/// longest line a person searches for is far shorter.
#[cfg(feature = "full")]
pub(crate) const MAX_SEARCH_QUERY_CHARS: usize = 10_000;
