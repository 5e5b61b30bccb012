//! The tool schemas as compact JSON, made at compile time: every request carries the tools
//! array, and parsing the 10 KB assets/tools.json into a tree to print it again cost a
//! one-shot run about half a million instructions (docs/performance.md, "Start-up"). The
//! provider inserts text without whitespace outside strings as it is, so this constant
//! goes into the body untouched; the test below holds it byte-identical to serde_json's
//! printing of the file (what the body carried before).

/// `src` without the whitespace outside strings, in an array of the same length; the second
/// value is the length used. Only for JSON text we ship (escapes are copied as they are).
const fn minify<const N: usize>(src: &[u8]) -> ([u8; N], usize) {
    let mut out = [0u8; N];
    let (mut i, mut n) = (0, 0);
    let (mut in_str, mut escaped) = (false, false);
    while i < src.len() {
        let b = src[i];
        i += 1;
        if in_str {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
        } else if b == b'"' {
            in_str = true;
        } else if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
            continue;
        }
        out[n] = b;
        n += 1;
    }
    (out, n)
}

const LEN: usize = super::TOOLS_JSON.len();
static MINIFIED: ([u8; LEN], usize) = minify::<LEN>(super::TOOLS_JSON.as_bytes());

/// assets/tools.json as compact JSON text.
pub static TOOLS_JSON_COMPACT: &str = match std::str::from_utf8(MINIFIED.0.split_at(MINIFIED.1).0) {
    Ok(s) => s,
    Err(_) => panic!("assets/tools.json is not UTF-8"),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_tools_are_serde_json_printing_of_the_file() {
        let v: serde_json::Value = serde_json::from_str(super::super::TOOLS_JSON).unwrap();
        assert_eq!(TOOLS_JSON_COMPACT, v.to_string());
    }

    #[test]
    fn minify_keeps_strings() {
        let (a, n) = minify::<32>(br#"[ {"a b": "x \" y", "c" : [1, 2] } ]"#);
        assert_eq!(&a[..n], br#"[{"a b":"x \" y","c":[1,2]}]"#);
    }
}
