//! Inputs the `terminal` fuzz target found failing, minimized with `cargo fuzz tmin` and saved
//! in `fuzz/regressions/`, replayed through the target's decoder and oracle (`fuzz/ops.rs`).
//! Those the current engine still fails are listed with the reason in
//! `fuzz/known_failures.txt`; a listed input that starts passing fails this test, so the list
//! only shrinks.

mod fuzz_support;

#[test]
fn regressions_replay() {
    fuzz_support::replay_dir("regressions");
}
