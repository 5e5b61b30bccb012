//! Character references (`&amp;`, `&#8212;`, `&#x1F600;`, `&notin;`) in HTML text and
//! attribute values.
//!
//! The 2,231 named references are one text file (assets/html_entities.tsv) read into a map
//! the first time a page needs one. A table of `&str` pairs in the binary would be a table of
//! pointers, which the dynamic loader rewrites at the start of every run of the agent,
//! WebFetch or not (docs/performance.md, "Start-up"); a string constant costs nothing then.
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../../../assets/html_entities.tsv");

/// The longest name in the table (`CounterClockwiseContourIntegral;`).
const LONGEST: usize = 32;

/// name (with its `;` when it has one) → the text it stands for.
fn named() -> &'static HashMap<&'static str, String> {
    static MAP: OnceLock<HashMap<&'static str, String>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut m = HashMap::with_capacity(2300);
        for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
            let Some((name, cps)) = line.split_once('\t') else {
                continue;
            };
            let text: String = cps
                .split(',')
                .filter_map(|h| u32::from_str_radix(h, 16).ok())
                .filter_map(char::from_u32)
                .collect();
            m.insert(name, text);
        }
        m
    })
}

/// `s` with its character references replaced. In an attribute value a legacy reference
/// without `;` followed by a letter, digit or `=` stays as written (`?a=1&copy=2` is a URL,
/// not a copyright sign), as the HTML standard says.
pub fn decode(s: &str, in_attribute: bool) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match reference(after, in_attribute) {
            Some((text, used)) => {
                out.push_str(&text);
                rest = &after[used..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The reference at the start of `s` (just after its `&`): its text and how many bytes of
/// `s` it used; `None` when `s` does not start one.
fn reference(s: &str, in_attribute: bool) -> Option<(Cow<'static, str>, usize)> {
    let b = s.as_bytes();
    if b.first() == Some(&b'#') {
        let (hex, start) = match b.get(1) {
            Some(b'x' | b'X') => (true, 2),
            _ => (false, 1),
        };
        let digits = b[start..]
            .iter()
            .take_while(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
            .count();
        if digits == 0 {
            return None;
        }
        let mut used = start + digits;
        let value = u32::from_str_radix(&s[start..used], if hex { 16 } else { 10 }).ok();
        if b.get(used) == Some(&b';') {
            used += 1;
        }
        let c = value
            .filter(|&v| v != 0)
            .and_then(char::from_u32)
            .unwrap_or('\u{FFFD}');
        return Some((Cow::Owned(c.to_string()), used));
    }
    let run = b
        .iter()
        .take(LONGEST)
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    if run == 0 {
        return None;
    }
    let map = named();
    if b.get(run) == Some(&b';') {
        if let Some(t) = map.get(&s[..=run]) {
            return Some((Cow::Borrowed(t.as_str()), run + 1));
        }
    }
    // A legacy name without `;`: the longest one the text starts with.
    (2..=run.min(6)).rev().find_map(|n| {
        let t = map.get(&s[..n])?;
        let next = b.get(n).copied();
        if in_attribute && next.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'=') {
            return None;
        }
        Some((Cow::Borrowed(t.as_str()), n))
    })
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn named_numeric_and_legacy() {
        assert_eq!(decode("a &amp; b", false), "a & b");
        assert_eq!(
            decode("&lt;p&gt; &quot;x&quot; &#39;", false),
            "<p> \"x\" '"
        );
        assert_eq!(decode("&mdash;&#8212;&#x2014;&#X2014", false), "————");
        assert_eq!(decode("&notin; &notit; &copy2026", false), "∉ ¬it; ©2026");
        assert_eq!(decode("&NotEqualTilde;", false), "\u{2242}\u{338}");
        assert_eq!(decode("&CounterClockwiseContourIntegral;", false), "∳");
        assert_eq!(
            decode("&nosuch; & &; &#; &#0; &#x110000;", false),
            "&nosuch; & &; &#; \u{FFFD} \u{FFFD}"
        );
        assert_eq!(decode("plain", false), "plain");
    }

    #[test]
    fn attributes_keep_query_strings() {
        assert_eq!(decode("/a?x=1&copy=2&amp;y", true), "/a?x=1&copy=2&y");
        assert_eq!(decode("&copy 2026", true), "© 2026");
        assert_eq!(decode("/a?x=1&copy=2", false), "/a?x=1©=2");
    }

    #[test]
    fn the_table_is_whole() {
        assert_eq!(super::named().len(), 2231);
        let longest = super::TABLE.lines().filter(|l| !l.starts_with('#'));
        let longest = longest
            .filter_map(|l| l.split_once('\t'))
            .map(|(n, _)| n.len())
            .max();
        assert_eq!(longest, Some(super::LONGEST));
    }
}
