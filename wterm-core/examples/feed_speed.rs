//! Quick feed throughput check: `cargo run --release -p wterm-core --example feed_speed`.
use std::time::Instant;
use wterm_core::{Size, Terminal};

fn main() {
    let mut corpora: Vec<(&str, Vec<u8>)> = Vec::new();
    corpora.push(("yes", b"y\r\n".repeat(3_500_000)));
    let mut ls = Vec::new();
    for i in 0..200_000u32 {
        ls.extend_from_slice(format!("-rw-r--r-- 1 user group {:>8} Nov 30 06:43 file_{i:06}.txt\r\n", i * 37).as_bytes());
    }
    corpora.push(("ls", ls));
    let mut sgr = Vec::new();
    for i in 0..400_000u32 {
        sgr.extend_from_slice(format!("\x1b[38;5;{}m{:04}\x1b[1;4m#\x1b[0m ", i % 256, i).as_bytes());
        if i % 8 == 7 { sgr.extend_from_slice(b"\r\n"); }
    }
    corpora.push(("sgr", sgr));
    let mut cjk = Vec::new();
    for i in 0..200_000u32 {
        cjk.extend_from_slice(format!("{i} 你好世界 こんにちは 👩\u{200d}💻 🇫🇷 e\u{301}\r\n").as_bytes());
    }
    corpora.push(("cjk", cjk));
    let mut vim = Vec::new();
    for i in 0..20_000u32 {
        for r in 1..=24 {
            vim.extend_from_slice(format!("\x1b[{r};1H\x1b[K\x1b[34m{:>4}\x1b[m line {i} text text text text", r).as_bytes());
        }
    }
    corpora.push(("vim", vim));
    let only = std::env::var("WTERM_CORPUS").ok();
    for (name, data) in &corpora {
        if only.as_deref().is_some_and(|o| o != *name) {
            continue;
        }
        let mut t = Terminal::new(Size::new(24, 80), 10_000);
        let start = Instant::now();
        for chunk in data.chunks(65536) {
            t.feed(chunk);
        }
        let s = start.elapsed().as_secs_f64();
        println!("{name:>5}: {:.1} MB in {:.3} s = {:.1} MB/s", data.len() as f64 / 1e6, s, data.len() as f64 / 1e6 / s);
    }
}
