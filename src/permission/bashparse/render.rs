//! A simple command's words as one line, the text rules are matched against: literal
//! words unquoted when they need no quotes and single-quoted otherwise (so word boundaries
//! survive: `bash -c 'a b'` is not `bash -c a b`), run-time words as written.
use super::Word;

pub fn render(words: &[Word]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match w {
            Word::Dyn(raw) => out.push_str(raw),
            Word::Lit(s) if plain(s) => out.push_str(s),
            Word::Lit(s) => {
                out.push('\'');
                out.push_str(&s.replace('\'', r"'\''"));
                out.push('\'');
            }
        }
    }
    out
}

fn plain(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'-' | b'_'
                        | b'.'
                        | b'/'
                        | b'='
                        | b':'
                        | b','
                        | b'+'
                        | b'@'
                        | b'%'
                        | b'^'
                        | b'~'
                        | b'*'
                        | b'?'
                        | b'['
                        | b']'
                )
        })
}
