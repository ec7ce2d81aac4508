//! Stable-toolchain replay of the fuzz corpus (no libFuzzer): every saved input of
//! `fuzz/corpus/terminal/` goes through the fuzz target's decoder and oracle (`fuzz/ops.rs`),
//! so a regression shows up under `cargo test` without nightly. The seeds' files are checked
//! against the readable scripts in `fuzz/seeds.rs`; `WTERM_WRITE_FUZZ_SEEDS=1` rewrites them.

mod fuzz_support;

use fuzz_support::{fuzz_dir, ops, replay_dir, seeds};

const CORPUS: &str = "corpus/terminal";

#[test]
fn decoder_inverts_the_seed_encoder() {
    for (name, script) in seeds::seeds() {
        let bytes = ops::encode::script(&script);
        let back = ops::Script::from_bytes(&bytes)
            .unwrap_or_else(|e| panic!("seed {name} does not decode: {e}"));
        assert_eq!(back, script, "seed {name} decodes to another script");
    }
}

#[test]
fn seed_files_are_their_scripts() {
    let dir = fuzz_dir().join(CORPUS);
    let write = std::env::var_os("WTERM_WRITE_FUZZ_SEEDS").is_some_and(|v| v == "1");
    for (name, script) in seeds::seeds() {
        let bytes = ops::encode::script(&script);
        let path = dir.join(name);
        if write {
            std::fs::write(&path, &bytes).expect("write seed");
        }
        let on_disk = std::fs::read(&path).unwrap_or_else(|e| {
            panic!("{}: {e}; run with WTERM_WRITE_FUZZ_SEEDS=1", path.display())
        });
        assert!(
            on_disk == bytes,
            "{} differs from its script in fuzz/seeds.rs; run with WTERM_WRITE_FUZZ_SEEDS=1",
            path.display()
        );
    }
}

#[test]
fn every_fragment_is_encodable() {
    // The encoder numbers fragments by their position in FRAGS; a fragment missing from it
    // would make the derive's numbering and ours disagree.
    for (i, &f) in ops::encode::FRAGS.iter().enumerate() {
        let mut bytes = Vec::new();
        ops::encode::piece(&mut bytes, &ops::Piece::Frag(f));
        let script = ops::Script {
            rows: ops::Dim::One,
            cols: ops::Dim::One,
            scrollback: 0,
            ops: vec![ops::Op::Feed(vec![ops::Piece::Frag(f)], 0)],
        };
        let back = ops::Script::from_bytes(&ops::encode::script(&script)).expect("decodes");
        assert_eq!(back, script, "fragment #{i} {f:?}");
    }
}

#[test]
fn corpus_replays() {
    let n = replay_dir(CORPUS);
    assert!(
        n >= seeds::seeds().len(),
        "the corpus holds at least the seeds"
    );
}
