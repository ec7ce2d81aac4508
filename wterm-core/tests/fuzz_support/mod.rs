//! Shared by `fuzz_corpus.rs` and `fuzz_regressions.rs`: the fuzz target's decoder and oracle
//! (`fuzz/ops.rs`), the seed scripts (`fuzz/seeds.rs`), and the replay of saved inputs against
//! the checked-in known-failures list (`fuzz/known_failures.txt`).
#![allow(dead_code)]

#[path = "../../fuzz/ops.rs"]
pub mod ops;
#[path = "../../fuzz/seeds.rs"]
pub mod seeds;

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// `wterm-core/fuzz`.
pub fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The inputs the current engine is known to fail, as paths relative to `fuzz/` mapped to the
/// reason. Format: one `path reason…` per line; `#` starts a comment line.
pub fn known_failures() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(fuzz_dir().join("known_failures.txt"))
        .expect("fuzz/known_failures.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((path, reason)) => (path.to_string(), reason.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

/// Decodes `data` as the fuzz target does and runs it; `Err` carries the panic message (an
/// engine panic or a failed oracle check) or the decoding error.
pub fn replay(data: &[u8]) -> Result<(), String> {
    let script = ops::Script::from_bytes(data).map_err(|e| format!("does not decode: {e}"))?;
    catch_unwind(AssertUnwindSafe(|| ops::run(&script))).map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic with a non-string payload".to_string())
    })
}

/// The input files of `fuzz/<dir>`, sorted (documentation files skipped).
pub fn inputs(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fuzz_dir().join(dir))
        .unwrap_or_else(|e| panic!("fuzz/{dir}: {e}"))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|x| x != "md"))
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    files.sort();
    files
}

/// Replays every input of `fuzz/<dir>` and fails, listing them all, when one fails that is not
/// in the known-failures list or one listed there passes (remove it from the list: the engine
/// was fixed). Returns how many inputs ran.
pub fn replay_dir(dir: &str) -> usize {
    let known = known_failures();
    let files = inputs(dir);
    let mut problems = Vec::new();
    for path in &files {
        let rel = format!(
            "{dir}/{}",
            path.file_name()
                .and_then(|n| n.to_str())
                .expect("UTF-8 file name")
        );
        let data = std::fs::read(path).expect("readable input");
        match (replay(&data), known.get(&rel)) {
            (Ok(()), Some(_)) => problems.push(format!(
                "{rel}: passes now; remove it from fuzz/known_failures.txt"
            )),
            (Err(msg), None) => problems.push(format!("{rel}: {msg}")),
            _ => {}
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} inputs in fuzz/{dir}:\n{}",
        problems.len(),
        files.len(),
        problems.join("\n")
    );
    files.len()
}
