//! The quick read of a stored conversation line (`line_meta.rs` asks it first): one pass
//! over the bytes that validates the JSON and takes the facts, with strings found by
//! `memchr` rather than byte by byte. It answers only for what it is sure of: any escape
//! other than the one-letter ones, a number, a duplicate or non-string `role`/`type`/`id`,
//! a block that is not an object, deep nesting — anything unusual — gives `None`, and the
//! serde read decides. So an answer is always the one serde would give (a test holds the
//! two side by side); the stored lines of our own shapes never need the fallback.
use super::line_meta::LineMeta;

/// The facts of `line` when it is surely a JSON object this read understands.
pub fn quick(line: &str) -> Option<LineMeta> {
    let mut c = Cur {
        s: line,
        b: line.as_bytes(),
        i: 0,
    };
    c.ws();
    let mut role: Option<&str> = None;
    let mut content: Option<Content> = None;
    let mut m = LineMeta::default();
    let mut blocks: Vec<Block> = Vec::new();
    c.object(|c, key| {
        match key {
            "role" if role.is_none() => role = Some(c.plain_string()?),
            "content" if content.is_none() => {
                content = Some(match c.peek()? {
                    b'"' => {
                        c.string()?;
                        Content::Text
                    }
                    b'[' => {
                        // Only the blocks with facts are kept (no allocation for the rest).
                        c.array(|c| {
                            let b = c.block()?;
                            if matches!(b.ty, Some("tool_use" | "tool_result")) {
                                blocks.push(b);
                            }
                            Some(())
                        })?;
                        Content::Blocks
                    }
                    _ => return None,
                })
            }
            "role" | "content" => return None,
            _ => c.value(0)?,
        }
        Some(())
    })?;
    c.ws();
    if c.i != c.b.len() {
        return None;
    }
    match content {
        Some(Content::Text) => m.user_turn = role == Some("user"),
        Some(Content::Blocks) => {
            for b in blocks {
                match (b.ty, b.id, b.tool_use_id) {
                    (Some("tool_use"), Some(id), _) if role == Some("assistant") => {
                        m.tool_uses.push(id.to_string())
                    }
                    (Some("tool_result"), _, Some(id)) => m.tool_results.push(id.to_string()),
                    _ => {}
                }
            }
        }
        None => {}
    }
    Some(m)
}

enum Content {
    Text,
    Blocks,
}

#[derive(Default)]
struct Block<'a> {
    ty: Option<&'a str>,
    id: Option<&'a str>,
    tool_use_id: Option<&'a str>,
}

/// Whether a byte below 0x20 occurs, 32 bytes at a time (a fold the compiler turns into
/// vector minimums; a byte at a time was most of this read's cost).
fn has_control(s: &[u8]) -> bool {
    let mut chunks = s.chunks_exact(32);
    for c in &mut chunks {
        if c.iter().fold(0xff, |a: u8, &x| a.min(x)) < 0x20 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&x| x < 0x20)
}

/// Nesting this read follows (serde's own limit is 128).
const MAX_DEPTH: usize = 64;

struct Cur<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    /// JSON whitespace, as serde skips it.
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, want: u8) -> Option<()> {
        (self.peek()? == want).then(|| self.i += 1)
    }

    /// A string; its text as stored (escapes left in). Only one-letter escapes are taken.
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        loop {
            let at = self.i + memchr::memchr2(b'"', b'\\', &self.b[self.i..])?;
            // Control characters are not allowed inside a JSON string.
            if has_control(&self.b[self.i..at]) {
                return None;
            }
            if self.b[at] == b'"' {
                self.i = at + 1;
                // Both ends are ASCII quotes, so char boundaries.
                return self.s.get(start..at);
            }
            match self.b.get(at + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i = at + 2,
                _ => return None,
            }
        }
    }

    /// A string without escapes (a key, a role, a block's type or id).
    fn plain_string(&mut self) -> Option<&'a str> {
        let s = self.string()?;
        (!s.as_bytes().contains(&b'\\')).then_some(s)
    }

    /// `{ "key": value, … }`, each value read by `each` (a duplicate key is its business).
    fn object(&mut self, mut each: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            let key = self.plain_string()?;
            self.eat(b':')?;
            each(self, key)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self, mut each: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            each(self)?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// One content block: an object whose `type`, `id` and `tool_use_id` are strings.
    fn block(&mut self) -> Option<Block<'a>> {
        let mut b = Block::default();
        let mut seen = [false; 3];
        self.object(|c, key| {
            let slot = match key {
                "type" => 0,
                "id" => 1,
                "tool_use_id" => 2,
                _ => return c.value(1),
            };
            if std::mem::replace(&mut seen[slot], true) {
                return None;
            }
            let v = Some(c.plain_string()?);
            match slot {
                0 => b.ty = v,
                1 => b.id = v,
                _ => b.tool_use_id = v,
            }
            Some(())
        })?;
        Some(b)
    }

    /// Any value but a number (those go to serde), validated and skipped.
    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' => self.object(|c, _| c.value(depth + 1)),
            b'[' => self.array(|c| c.value(depth + 1)),
            b't' => self.lit(b"true"),
            b'f' => self.lit(b"false"),
            b'n' => self.lit(b"null"),
            _ => None,
        }
    }

    fn lit(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::line_meta::slow;
    use super::*;

    /// Whenever the quick read answers, it is serde's answer.
    fn agrees(l: &str) -> bool {
        match quick(l) {
            Some(m) => {
                assert_eq!(Some(m), slow(l), "{l}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn answers_our_shapes_as_serde_does() {
        for l in [
            r#"{"role":"user","content":"hi"}"#,
            r#"{"role":"user","content":"h\"i\\ \n\t/\/é€"}"#,
            r#" { "role" : "user" , "content" : "x" } "#,
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text":"x"},{"type":"tool_use","id":"a","name":"Bash","input":{"command":"ls","deep":[[{"a":true}],null,false]}},{"type":"tool_use","id":"b","name":"R","input":{}}]}"#,
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"},{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"y"}]}]}"#,
            r#"{"role":"user","content":[{"type":"tool_use","id":"z"}]}"#,
            r#"{"role":"assistant","content":[]}"#,
            r#"{"content":"x","role":"user","extra":{"k":[]}}"#,
            r#"{"role":"user"}"#,
            r#"{}"#,
        ] {
            assert!(agrees(l), "quick read declined {l}");
        }
    }

    /// Lines the quick read must leave to serde (the line_meta tests hold them against
    /// the full parse too).
    pub(in crate::session) const DECLINED: &[&str] = &[
        r#"{"role":7,"content":"x"}"#,
        r#"{"role":"assistant","content":["str",{"type":"tool_use","id":"q"}]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":5}]}"#,
        r#"{"role":"user","role":"assistant","content":"dup"}"#,
        r#"{"content":{"a":1},"role":"user"}"#,
        r#"{"role":"user","content":null}"#,
        r#"{"role":"user","content":"\u00e9"}"#,
        r#"{"role":"user","content":"a\qb"}"#,
        "{\"role\":\"user\",\"content\":\"tab\there\"}",
        r#"{"role":"us\"er","content":"x"}"#,
        r#"{"role":"user","content":"x","n":1}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","type":"text","id":"a"}]}"#,
        r#"{"role":"user","content":"x"} x"#,
        r#"{"role":"user","content":"x""#,
        r#"{"role":"user","content":"x",}"#,
        r#"{"role":"user" "content":"x"}"#,
        r#"{"a":tru}"#,
        r#"["role","user"]"#,
        "\u{a0}{}",
    ];

    #[test]
    fn declines_what_it_is_not_sure_of() {
        for l in DECLINED {
            assert!(!agrees(l), "quick read answered {l}");
        }
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(!agrees(&deep));
    }

    #[test]
    fn truncated_lines_never_pass() {
        let l = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"a\"b"},{"type":"text","text":"x"},{"type":"tool_use","id":"a","name":"Bash","input":{"c":[true,null]}}]}"#;
        for cut in 0..l.len() {
            if l.is_char_boundary(cut) {
                agrees(&l[..cut]);
            }
        }
        assert!(agrees(l));
    }
}
