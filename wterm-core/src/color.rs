//! CSS hex colours, as themes and pages give them (`#rgb`, `#rrggbb`, `#rrggbbaa`): parsed once
//! here for the page's `theme` option and the relay's `colors` message.

/// `#rgb`, `#rrggbb` or (when `alpha`) `#rrggbbaa`, any case, as `0xRRGGBBAA` (`AA` = `ff`
/// without alpha); `None` for anything else. Bytes by hand: `from_str_radix` and `str` helpers
/// cost the wasm more.
pub fn parse_hex_color(s: &str, alpha: bool) -> Option<u32> {
    let digits = s.as_bytes().strip_prefix(b"#")?;
    let short = digits.len() == 3;
    if !(short || digits.len() == 6 || (alpha && digits.len() == 8)) {
        return None;
    }
    let mut v = 0u32;
    for &b in digits {
        let d = u32::from(nibble(b)?);
        v = if short {
            v << 8 | d << 4 | d
        } else {
            v << 4 | d
        };
    }
    Some(if digits.len() == 8 { v } else { v << 8 | 0xff })
}

/// `#rgb` or `#rrggbb` as `[r, g, b]` ([`parse_hex_color`] without alpha).
pub fn hex_rgb(s: &str) -> Option<[u8; 3]> {
    let [r, g, b, _] = parse_hex_color(s, false)?.to_be_bytes();
    Some([r, g, b])
}

/// The value of a hex digit.
fn nibble(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_colors() {
        assert_eq!(parse_hex_color("#fdf6e3", false), Some(0xfdf6e3ff));
        assert_eq!(parse_hex_color("#26F", false), Some(0x2266ffff));
        assert_eq!(parse_hex_color("#11223344", true), Some(0x11223344));
        assert_eq!(parse_hex_color("#11223344", false), None);
        assert_eq!(parse_hex_color("#002B36", false), Some(0x002b36ff));
        assert_eq!(hex_rgb("#fdf6e3"), Some([0xfd, 0xf6, 0xe3]));
        for bad in [
            "",
            "#",
            "fdf6e3",
            "#fdf6e",
            "#ggg",
            "rgb(1, 2, 3)",
            "#fdf6e3 ",
            "#00000080",
            "#12",
            "#12345",
            "red",
        ] {
            assert_eq!(hex_rgb(bad), None, "{bad:?}");
        }
    }
}
