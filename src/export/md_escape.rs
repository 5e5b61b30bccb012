//! Escaping for the markdown transcript. Every string a session holds is input: a path
//! with blank lines in it, a command with backticks, a prompt with raw HTML. Nothing from
//! a session may leave the place the transcript puts it in (an inline code span, a fenced
//! block, a paragraph of prose) or start a block of its own (a heading, raw HTML).
//!
//! - [`code_span`]: literal text on one line (tool labels, the project): control
//!   characters are shown as escapes (`\n`), so a code span never spans lines (a blank line
//!   would end the paragraph it is in and the rest would be read as markdown), and the span
//!   is delimited by more backticks than any run inside it (CommonMark's rule).
//! - [`inline_text`]: literal text in running text, never at the start of a line (the
//!   session id in the title): every character that opens markdown inline (emphasis, code,
//!   links, HTML, entities) backslash-escaped, control characters as escapes.
//! - [`prose`]: prompts, answers and thinking, whose markdown is kept: pulldown-cmark (the
//!   parser the HTML export renders with) finds raw HTML, which is escaped so it shows as
//!   text, images, which become links (nothing is fetched when the file is viewed), and a
//!   fenced code block left open, which is closed so it cannot swallow the rest.
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

/// `c` as a visible escape when it is a control character (`\n`, `\t`, `\u{1b}`).
fn visible(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
            out.push_str(&format!("\\u{{{:x}}}", c as u32))
        }
        c => out.push(c),
    }
}

/// `s` as one inline code span.
pub fn code_span(s: &str) -> String {
    let mut text = String::with_capacity(s.len());
    for c in s.chars() {
        visible(c, &mut text);
    }
    let (mut longest, mut run) = (0, 0);
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let ticks = "`".repeat(longest + 1);
    // A span that starts or ends with a backtick (or is all spaces) needs a space of
    // padding, which the reader strips again.
    let pad = if text.starts_with('`') || text.ends_with('`') || text.starts_with(' ') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// `s` as literal text inside a line of markdown.
pub fn inline_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\`*_[]()<>#!|~&{}".contains(c) {
            out.push('\\');
            out.push(c);
        } else {
            visible(c, &mut out);
        }
    }
    out
}

/// Markdown from a session (a prompt, an answer) made safe to embed: its markdown kept, raw
/// HTML shown as text, images as links, an open fenced block closed.
pub fn prose(s: &str) -> String {
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut open_fence: Option<String> = None;
    let parser = Parser::new_ext(s, Options::all()).into_offset_iter();
    for (ev, range) in parser {
        match ev {
            Event::Html(_) | Event::InlineHtml(_) => {
                let raw = &s[range.clone()];
                let esc = raw.replace('&', "&amp;").replace('<', "&lt;");
                edits.push((range.start, range.end, esc));
            }
            Event::Start(Tag::Image { .. }) => {
                // `![alt](url)` as `\!` + a link: shown, never fetched.
                edits.push((range.start, range.start, "\\".into()));
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => {
                open_fence = unclosed_fence(&s[range]);
            }
            _ => {}
        }
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(s.len() + 16);
    let mut at = 0;
    for (start, end, text) in edits {
        if start < at {
            continue; // nested in an edit already made (HTML inside HTML)
        }
        out.push_str(&s[at..start]);
        out.push_str(&text);
        at = end;
    }
    out.push_str(&s[at..]);
    if let Some(f) = open_fence {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&f);
    }
    out
}

/// The fence that closes `block` (a fenced code block's source) when its last line does
/// not; None when it is closed. Only the last fenced block can be open.
fn unclosed_fence(block: &str) -> Option<String> {
    let mut lines = block.lines();
    let first = lines.next()?.trim_start();
    let ch = first.chars().next()?;
    let n = first.chars().take_while(|&c| c == ch).count();
    let last = block.lines().skip(1).last().map(str::trim).unwrap_or("");
    let closed = last.len() >= n && last.chars().all(|c| c == ch);
    (!closed).then(|| ch.to_string().repeat(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_stay_on_one_line_and_closed() {
        assert_eq!(code_span("Bash(ls)"), "`Bash(ls)`");
        assert_eq!(code_span("a``b"), "```a``b```");
        assert_eq!(code_span("`x"), "`` `x ``");
        let s = code_span("Write(p\n\n<img src=x onerror=alert(1)>\n\n# h)");
        assert!(!s.contains('\n'), "{s}");
        assert_eq!(s, "`Write(p\\n\\n<img src=x onerror=alert(1)>\\n\\n# h)`");
    }

    #[test]
    fn prose_keeps_markdown_and_defuses_html_images_and_open_fences() {
        assert_eq!(prose("Fix **this**"), "Fix **this**");
        assert_eq!(
            prose("a <script>alert(1)</script> b"),
            "a &lt;script>alert(1)&lt;/script> b"
        );
        assert_eq!(
            prose("<img src=x onerror=alert(1)>\n\nnext"),
            "&lt;img src=x onerror=alert(1)>\n\nnext"
        );
        assert_eq!(
            prose("see ![x](http://e/x.png)"),
            "see \\![x](http://e/x.png)"
        );
        assert_eq!(
            prose("`<b>` and\n```\n<b>\n```\n"),
            "`<b>` and\n```\n<b>\n```\n"
        );
        assert_eq!(prose("text\n````rust\nfn x"), "text\n````rust\nfn x\n````");
        assert_eq!(prose("</details>"), "&lt;/details>");
    }
}
