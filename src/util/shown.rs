//! Text from files and servers made safe to print (issue 42, docs/sandbox.md, "Trust"):
//! a folder name, an MCP server's name or a settings key comes from someone else, and a raw
//! ESC in it could rewrite what the terminal shows (the trust question's list of changes),
//! a CR or a newline could forge a line (`trust --list` entries). Every control character
//! is written as a visible escape instead, the way `ls -b` or Rust's `{:?}` would.
use std::borrow::Cow;
use std::fmt::Write;

/// `s` with every control character (C0, DEL, C1) escaped: `\e`, `\r`, `\n`, `\t`, else
/// `\x1f` / `\u{9b}`; a backslash stays as it is. Text without one is returned unchanged.
pub fn shown(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\x1b' => out.push_str("\\e"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A path as [`shown`] prints it (bytes that are not UTF-8 as U+FFFD).
pub fn path(p: &std::path::Path) -> String {
    shown(&p.to_string_lossy()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_is_escaped() {
        assert_eq!(shown("plain/ünï"), "plain/ünï");
        assert!(matches!(shown("plain"), Cow::Borrowed(_)));
        assert_eq!(
            shown("a\x1b[2Jb\rc\nd\te\x07f\x7fg\u{9b}h"),
            "a\\e[2Jb\\rc\\nd\\te\\x07f\\x7fg\\u{9b}h"
        );
        for c in (0u32..0x20).chain(0x7f..0xa0) {
            let c = char::from_u32(c).unwrap();
            let s = shown(&c.to_string()).into_owned();
            assert!(!s.chars().any(char::is_control), "{c:?} -> {s:?}");
        }
    }
}
