//! A byte-level JSON scanner for event lines, mirroring `awk/event_replay.awk` exactly.
//!
//! Replay must reproduce the awk's frames byte for byte, including the raw text of
//! non-string values (`{"path": "a"}` keeps its spaces) and lines that are not valid
//! UTF-8 (the reference cuts tool output by bytes). So instead of a DOM parser this
//! scanner validates the structure strictly (objects, arrays, numbers, literals, escapes)
//! while accepting any byte inside strings, and records where each value lies.
//! Nesting deeper than [`MAX_DEPTH`] containers makes the line invalid (as in the awk).

/// Most containers a line may nest (the top-level object counts as one).
pub const MAX_DEPTH: usize = 100;

/// The kind of a scanned value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Str,
    Num,
    Obj,
    Arr,
    /// `true`, `false` or `null`.
    Lit,
}

/// A value's position in the scanned bytes (`start..end`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

/// One object member: the decoded key and the value's span.
pub type Member = (Vec<u8>, Span);

struct Scanner<'a> {
    s: &'a [u8],
    p: usize,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'a> Scanner<'a> {
    fn ws(&mut self) {
        while self.p < self.s.len() && is_ws(self.s[self.p]) {
            self.p += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.p).copied()
    }

    /// A string token at `p` (which holds `"`); returns its end.
    fn string(&mut self) -> Option<usize> {
        let s = self.s;
        let mut i = self.p + 1;
        loop {
            match *s.get(i)? {
                b'"' => {
                    self.p = i + 1;
                    return Some(self.p);
                }
                b'\\' => {
                    match *s.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                        b'u' => {
                            let hex = s.get(i + 2..i + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            i += 6;
                        }
                        _ => return None,
                    };
                }
                _ => i += 1,
            }
        }
    }

    fn number(&mut self) -> Option<()> {
        let s = self.s;
        let mut i = self.p;
        let digits = |i: &mut usize| {
            let st = *i;
            while s.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > st
        };
        if s.get(i) == Some(&b'-') {
            i += 1;
        }
        match s.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                digits(&mut i);
            }
            _ => return None,
        }
        // Fraction and exponent are optional: a bad one simply ends the number here.
        if s.get(i) == Some(&b'.') {
            let mut j = i + 1;
            if digits(&mut j) {
                i = j;
            }
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(s.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if digits(&mut j) {
                i = j;
            }
        }
        self.p = i;
        Some(())
    }

    /// Scan one value; `depth` = containers already open around it.
    fn value(&mut self, depth: usize) -> Option<Span> {
        self.ws();
        let start = self.p;
        let kind = match self.peek()? {
            b'"' => {
                self.string()?;
                Kind::Str
            }
            b'{' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.members(depth + 1, None)?;
                Kind::Obj
            }
            b'[' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.array(depth + 1)?;
                Kind::Arr
            }
            b't' | b'n'
                if self.s[self.p..].starts_with(b"true")
                    || self.s[self.p..].starts_with(b"null") =>
            {
                self.p += 4;
                Kind::Lit
            }
            b'f' if self.s[self.p..].starts_with(b"false") => {
                self.p += 5;
                Kind::Lit
            }
            _ => {
                self.number()?;
                Kind::Num
            }
        };
        Some(Span {
            kind,
            start,
            end: self.p,
        })
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        self.p += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.p += 1;
            return Some(());
        }
        loop {
            self.value(depth)?;
            self.ws();
            match self.peek()? {
                b',' => self.p += 1,
                b']' => {
                    self.p += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The object at `p`; members are recorded into `out` when given.
    fn members(&mut self, depth: usize, mut out: Option<&mut Vec<Member>>) -> Option<()> {
        self.p += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.p += 1;
            return Some(());
        }
        loop {
            self.ws();
            if self.peek()? != b'"' {
                return None;
            }
            let ks = self.p;
            let ke = self.string()?;
            self.ws();
            if self.peek()? != b':' {
                return None;
            }
            self.p += 1;
            let v = self.value(depth)?;
            if let Some(o) = out.as_deref_mut() {
                o.push((decode(&self.s[ks..ke]), v));
            }
            self.ws();
            match self.peek()? {
                b',' => self.p += 1,
                b'}' => {
                    self.p += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

/// Scan a whole line as one JSON object (surrounding whitespace allowed) and return its
/// top-level members in order; `None` when the line is not one valid object.
pub fn object_line(line: &[u8]) -> Option<Vec<Member>> {
    let mut sc = Scanner { s: line, p: 0 };
    sc.ws();
    if sc.peek()? != b'{' {
        return None;
    }
    let mut out = Vec::new();
    sc.members(1, Some(&mut out))?;
    sc.ws();
    if sc.p < line.len() {
        return None;
    }
    Some(out)
}

/// The members of the object spanning `span` in `s` (empty if it is not an object).
pub fn object_members(s: &[u8], span: Span) -> Vec<Member> {
    let mut out = Vec::new();
    if span.kind == Kind::Obj {
        let mut sc = Scanner {
            s: &s[..span.end],
            p: span.start,
        };
        if sc.members(1, Some(&mut out)).is_none() {
            out.clear();
        }
    }
    out
}

/// The elements of the array spanning `span` in `s`.
pub fn array_items(s: &[u8], span: Span) -> Vec<Span> {
    let mut out = Vec::new();
    if span.kind != Kind::Arr {
        return out;
    }
    let mut sc = Scanner {
        s: &s[..span.end],
        p: span.start + 1,
    };
    loop {
        sc.ws();
        if sc.peek() == Some(b']') || sc.peek().is_none() {
            return out;
        }
        match sc.value(1) {
            Some(v) => out.push(v),
            None => return out,
        }
        sc.ws();
        if sc.peek() == Some(b',') {
            sc.p += 1;
        }
    }
}

fn hex4(h: &[u8]) -> u32 {
    h.iter().fold(0, |acc, &b| {
        acc * 16 + (b as char).to_digit(16).unwrap_or(0)
    })
}

fn push_utf8(out: &mut Vec<u8>, cp: u32) {
    // Lone surrogates are encoded like any other code point (as the awk does).
    match cp {
        0 => {}
        1..=0x7f => out.push(cp as u8),
        0x80..=0x7ff => out.extend_from_slice(&[0xc0 | (cp >> 6) as u8, 0x80 | (cp & 0x3f) as u8]),
        0x800..=0xffff => out.extend_from_slice(&[
            0xe0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3f) as u8,
            0x80 | (cp & 0x3f) as u8,
        ]),
        _ => out.extend_from_slice(&[
            0xf0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3f) as u8,
            0x80 | ((cp >> 6) & 0x3f) as u8,
            0x80 | (cp & 0x3f) as u8,
        ]),
    }
}

/// Decode a scanned string token (with its quotes) to bytes. `\u0000` is dropped (RESP
/// fields handled by awk cannot carry NUL).
pub fn decode(raw: &[u8]) -> Vec<u8> {
    let t = if raw.len() >= 2 {
        &raw[1..raw.len() - 1]
    } else {
        &[][..]
    };
    let mut out = Vec::with_capacity(t.len());
    let mut i = 0;
    while i < t.len() {
        let b = t[i];
        if b != b'\\' || i + 1 >= t.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let c = t[i + 1];
        i += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'u' if i + 4 <= t.len() => {
                let mut cp = hex4(&t[i..i + 4]);
                i += 4;
                if (0xd800..0xdc00).contains(&cp) && t[i..].starts_with(b"\\u") && i + 6 <= t.len()
                {
                    let lo = hex4(&t[i + 2..i + 6]);
                    if (0xdc00..0xe000).contains(&lo) {
                        cp = 0x10000 + (cp - 0xd800) * 0x400 + (lo - 0xdc00);
                        i += 6;
                    }
                }
                push_utf8(&mut out, cp);
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(m: &'a [Member], k: &str) -> Option<&'a Span> {
        m.iter()
            .find(|(key, _)| key == k.as_bytes())
            .map(|(_, v)| v)
    }

    #[test]
    fn scans_members_with_raw_spans() {
        let line = br#"{"type":"tool_call","input":{"a" : 1.5e3 , "b":[1,{"c":"d"}]}}"#;
        let m = object_line(line).expect("valid");
        let input = *get(&m, "input").expect("input");
        let inner = object_members(line, input);
        assert_eq!(inner.len(), 2);
        assert_eq!(&line[inner[0].1.start..inner[0].1.end], b"1.5e3");
        assert_eq!(&line[inner[1].1.start..inner[1].1.end], br#"[1,{"c":"d"}]"#);
    }

    #[test]
    fn rejects_corrupt_lines() {
        for bad in [
            &br#"{"type":"text","content":"trunc"#[..],
            br#"{"type":"text" "content":"x"}"#,
            br#"{"type":"text"} x"#,
            br#"{"a":01}"#,
            br#"{"a":"x\q"}"#,
            br#"[1]"#,
            b"",
        ] {
            assert!(
                object_line(bad).is_none(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(object_line(b"  {\"a\":true}\r").is_some());
    }

    #[test]
    fn depth_limit_matches_the_awk() {
        let deep = |n: usize| format!("{{\"x\":{}{}}}", "[".repeat(n), "]".repeat(n));
        assert!(object_line(deep(99).as_bytes()).is_some());
        assert!(object_line(deep(100).as_bytes()).is_none());
    }

    #[test]
    fn decodes_escapes_and_surrogates() {
        let raw = br#""caf\u00e9 \ud83d\ude00 \ud800x \\n\"\/\u0000!""#;
        let mut want = "café 😀 ".as_bytes().to_vec();
        want.extend_from_slice(&[0xed, 0xa0, 0x80]);
        want.extend_from_slice(b"x \\n\"/!");
        assert_eq!(decode(raw), want);
        assert_eq!(
            decode(br#""\ud800\\udc00""#),
            b"\xed\xa0\x80\\udc00".to_vec()
        );
    }
}
