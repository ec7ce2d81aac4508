//! Fuzz target `terminal`: a [`Script`] of operations on one `wterm_core::Terminal`, checked by
//! the oracle in `ops.rs` (shared with the stable replay tests in `wterm-core/tests/`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../ops.rs"]
#[allow(dead_code)]
mod ops;

fuzz_target!(|script: ops::Script| {
    ops::run(&script);
});
