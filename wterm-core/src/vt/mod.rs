//! Private: the parser boundary. `perform.rs` maps vte's raw actions onto named
//! [`crate::screen::Screen`] operations and query replies; `osc.rs` decodes OSC payloads.

pub(crate) mod osc;
pub(crate) mod perform;

/// Length in bytes of the UTF-8 sequence `lead` starts, or 0 for a byte that starts none
/// (ASCII, a continuation byte, C0/C1/F5–FF, which UTF-8 never uses as a lead).
pub(crate) fn utf8_len(lead: u8) -> usize {
    match lead {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 0,
    }
}

/// How many bytes (0–3) at the end of `bytes` begin a UTF-8 character without finishing it.
pub(crate) fn incomplete_utf8_suffix(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let b = bytes[len - back];
        if b & 0xc0 != 0x80 {
            let incomplete = back < utf8_len(b)
                && matches!(core::str::from_utf8(&bytes[len - back..]), Err(e) if e.error_len().is_none());
            return if incomplete { back } else { 0 };
        }
    }
    0
}

/// Reads a CSI sequence whose parameter bytes are only digits and `;`, from the byte after
/// `ESC [` to its final byte (0x40..=0x7E), as vte would collect it: a missing parameter is 0,
/// values saturate at 65535, the last parameter is kept even when empty (`CSI m` has one
/// parameter, 0). Returns the parameters, the final byte and the bytes taken, or `None` for
/// anything else (an intermediate, a private marker, a subparameter, a control inside, more
/// than [`perform::CSI_MAX_VALUES`] values, or the end of `bytes` first), which vte parses.
#[inline]
pub(crate) fn scan_csi(bytes: &[u8]) -> Option<(perform::CsiParams, u8, usize)> {
    let mut params = perform::CsiParams::EMPTY;
    let mut value: u16 = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => value = value.saturating_mul(10).saturating_add(u16::from(b - b'0')),
            b';' => {
                if !params.push(value) {
                    return None;
                }
                value = 0;
            }
            0x40..=0x7e => return params.push(value).then_some((params, b, i + 1)),
            _ => return None,
        }
    }
    None
}
