//! Colour themes: the `theme` option and `setTheme`, with named presets or a custom object.
//!
//! A theme is applied as inline CSS custom properties on the terminal element (`div.wterm`):
//! `--wterm-fg`, `--wterm-bg`, `--wterm-cursor`, `--wterm-selection` and `--wterm-c0` ..
//! `--wterm-c15`, the same variables the stylesheet's defaults and a page's own CSS set. Inline
//! declarations beat any stylesheet rule, so a colour the theme gives wins over the page's CSS;
//! a colour it leaves out (a custom object may give any subset) still comes from the CSS (whose
//! defaults are the `dark` preset). Rows and cursor refer to the variables, so a change shows at
//! the next paint without redrawing rows, and the screen, history and selection stay.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use wterm_core::parse_hex_color as parse_hex;

use crate::js::describe;

/// The fields of a custom theme (xterm.js's `ITheme` names), each with the CSS variable it sets.
const FIELDS: [(&str, &str); 20] = [
    ("foreground", "--wterm-fg"),
    ("background", "--wterm-bg"),
    ("cursor", "--wterm-cursor"),
    ("selectionBackground", "--wterm-selection"),
    ("black", "--wterm-c0"),
    ("red", "--wterm-c1"),
    ("green", "--wterm-c2"),
    ("yellow", "--wterm-c3"),
    ("blue", "--wterm-c4"),
    ("magenta", "--wterm-c5"),
    ("cyan", "--wterm-c6"),
    ("white", "--wterm-c7"),
    ("brightBlack", "--wterm-c8"),
    ("brightRed", "--wterm-c9"),
    ("brightGreen", "--wterm-c10"),
    ("brightYellow", "--wterm-c11"),
    ("brightBlue", "--wterm-c12"),
    ("brightMagenta", "--wterm-c13"),
    ("brightCyan", "--wterm-c14"),
    ("brightWhite", "--wterm-c15"),
];

/// The names of [`FIELDS`], for error messages.
const FIELD_NAMES: &str = "foreground, background, cursor, selectionBackground, black, red, \
                           green, yellow, blue, magenta, cyan, white, brightBlack, brightRed, \
                           brightGreen, brightYellow, brightBlue, brightMagenta, brightCyan, \
                           brightWhite";

/// Index of `selectionBackground` in [`FIELDS`]: the one field that may be translucent.
const SELECTION: usize = 3;

/// The named presets, each colour `0xRRGGBB` in [`FIELDS`] order.
///
/// - `dark`: the stylesheet's defaults (VS Code's dark terminal background and foreground with
///   xterm's 16 colours), the cursor in the foreground colour, VS Code's dark selection colour.
/// - `light`: dark text on white; the 16 colours of VS Code's light terminal theme.
/// - `solarized-dark`, `solarized-light`: Ethan Schoonover's published Solarized values and
///   its 16-colour terminal mapping (black base02, bright black base03, bright green base01,
///   bright yellow base00, bright blue base0, bright magenta violet, bright cyan base1, white
///   base2, bright white base3, bright red orange); background base03 / base3, body text base0
///   / base00, cursor base1 / base01, selection base02 / base2 ("background highlights").
const PRESETS: [(&str, [u32; 20]); 4] = [
    (
        "dark",
        [
            0xd4d4d4, 0x1e1e1e, 0xd4d4d4, 0x264f78, 0x000000, 0xcd0000, 0x00cd00, 0xcdcd00,
            0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00,
            0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
        ],
    ),
    (
        "light",
        [
            0x333333, 0xffffff, 0x000000, 0xadd6ff, 0x000000, 0xcd3131, 0x00bc00, 0x949800,
            0x0451a5, 0xbc05bc, 0x0598bc, 0x555555, 0x666666, 0xcd3131, 0x14ce14, 0xb5ba00,
            0x0451a5, 0xbc05bc, 0x0598bc, 0xa5a5a5,
        ],
    ),
    (
        "solarized-dark",
        [
            0x839496, 0x002b36, 0x93a1a1, 0x073642, 0x073642, 0xdc322f, 0x859900, 0xb58900,
            0x268bd2, 0xd33682, 0x2aa198, 0xeee8d5, 0x002b36, 0xcb4b16, 0x586e75, 0x657b83,
            0x839496, 0x6c71c4, 0x93a1a1, 0xfdf6e3,
        ],
    ),
    (
        "solarized-light",
        [
            0x657b83, 0xfdf6e3, 0x586e75, 0xeee8d5, 0x073642, 0xdc322f, 0x859900, 0xb58900,
            0x268bd2, 0xd33682, 0x2aa198, 0xeee8d5, 0x002b36, 0xcb4b16, 0x586e75, 0x657b83,
            0x839496, 0x6c71c4, 0x93a1a1, 0xfdf6e3,
        ],
    ),
];

/// What a theme argument may be, for error messages.
const ACCEPTED: &str = "a preset name (\"dark\", \"light\", \"solarized-dark\", \
                        \"solarized-light\"), an object of colours, or null for the CSS variables";

/// A validated theme: the colour of each of [`FIELDS`] it sets as `0xRRGGBBAA`, `None` for
/// one left to the page's CSS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Theme {
    colors: [Option<u32>; 20],
}

/// Lowercase hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// `0xRRGGBBAA` as CSS: `#rrggbb`, or `#rrggbbaa` when not opaque.
pub(crate) fn css(c: u32) -> String {
    let digits = if c & 0xff == 0xff { 6 } else { 8 };
    let mut s = String::with_capacity(9);
    s.push('#');
    for i in 0..digits {
        s.push(char::from(HEX[((c >> (28 - 4 * i)) & 0xf) as usize]));
    }
    s
}

impl Theme {
    /// Parses a `theme` option or `setTheme` argument named `name` in errors: a preset name, an
    /// object of colours (any of [`FIELDS`], each `#RGB` or `#RRGGBB`, the selection also
    /// `#RRGGBBAA`), or `undefined`/`null` (`None`: no theme, the CSS variables decide).
    ///
    /// Errors name the bad field and the accepted forms, e.g. `theme.background must be a
    /// colour "#RGB" or "#RRGGBB"; got "blue"`, or `theme has unknown keys forground; accepted:
    /// foreground, ...`. Nothing is applied by parsing, so a bad theme changes nothing.
    pub(crate) fn parse(v: &JsValue, name: &str) -> Result<Option<Theme>, JsError> {
        Theme::parse_inner(v, name).map_err(|e| JsError::new(&e))
    }

    /// [`Theme::parse`] with the error as text: one `JsError` site for all of them.
    fn parse_inner(v: &JsValue, name: &str) -> Result<Option<Theme>, String> {
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        if let Some(preset) = v.as_string() {
            return match PRESETS.iter().find(|(n, _)| *n == preset) {
                Some((_, colors)) => {
                    let mut theme = Theme { colors: [None; 20] };
                    for (slot, c) in theme.colors.iter_mut().zip(colors) {
                        *slot = Some(c << 8 | 0xff);
                    }
                    Ok(Some(theme))
                }
                None => Err(format!(
                    "{name} {} is not a preset; accepted: {ACCEPTED}",
                    describe(v)
                )),
            };
        }
        if !v.is_object() || v.is_function() || js_sys::Array::is_array(v) {
            return Err(format!("{name} must be {ACCEPTED}; got {}", describe(v)));
        }
        for key in js_sys::Object::keys(v.unchecked_ref::<js_sys::Object>()).iter() {
            let key = key.as_string().unwrap_or_default();
            if !FIELDS.iter().any(|(f, _)| *f == key) {
                return Err(format!(
                    "{name} has an unknown key {}; accepted: {FIELD_NAMES}",
                    describe(&JsValue::from_str(&key))
                ));
            }
        }
        let mut colors = [None; 20];
        for (i, (field, _)) in FIELDS.iter().enumerate() {
            let value = js_sys::Reflect::get(v, &JsValue::from_str(field)).unwrap_or_default();
            if value.is_undefined() || value.is_null() {
                continue;
            }
            let alpha = i == SELECTION;
            colors[i] = value.as_string().and_then(|s| parse_hex(&s, alpha));
            if colors[i].is_none() {
                return Err(format!(
                    "{name}.{field} must be a colour \"#RGB\" or \"#RRGGBB\"{}; got {}",
                    if alpha { " or \"#RRGGBBAA\"" } else { "" },
                    describe(&value)
                ));
            }
        }
        Ok(Some(Theme { colors }))
    }
}

/// Sets `theme`'s variables on the terminal element `root`, first removing those of the theme
/// before (all of [`FIELDS`]), so a colour the new theme leaves out falls back to the CSS;
/// `None` removes them all.
pub(crate) fn apply(root: &HtmlElement, theme: Option<&Theme>) {
    let style = root.style();
    for (i, (_, var)) in FIELDS.iter().enumerate() {
        match theme.and_then(|t| t.colors[i]) {
            Some(c) => {
                let _ = style.set_property(var, &css(c));
            }
            None => {
                let _ = style.remove_property(var);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The hex parsing itself is wterm-core's (color.rs), tested there.
    #[test]
    fn colours_parse_in_the_accepted_forms_only() {
        assert_eq!(css(0x002b36ff), "#002b36");
        assert_eq!(css(0x0451a580), "#0451a580");
        let names: Vec<&str> = FIELDS.iter().map(|(f, _)| *f).collect();
        assert_eq!(FIELD_NAMES, names.join(", "));
    }

    #[test]
    fn the_dark_preset_is_the_stylesheet_default() {
        // The same values as the `:where(:root)` defaults in dom.rs.
        let css = crate::dom::STYLE_CSS;
        let dark = PRESETS[0].1;
        for (i, (_, var)) in FIELDS.iter().enumerate() {
            if i == 2 || i == SELECTION {
                continue; // cursor and selection have no default variable (see dom.rs)
            }
            assert!(
                css.contains(&format!("{var}:{};", super::css(dark[i] << 8 | 0xff)))
                    || css.contains(&format!("{var}:{}}}", super::css(dark[i] << 8 | 0xff))),
                "{var}"
            );
        }
    }
}
