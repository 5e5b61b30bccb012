//! Markdown for the terminal, rendered as the answer streams (docs/interactive.md,
//! "Markdown").
//!
//! Text arrives in small pieces; each *completed line* is rendered at once, so the answer
//! still streams: headings, emphasis, inline code, links, list items, quotes and rules are
//! per-line constructs for the parser (`pulldown-cmark`, the maintained CommonMark parser;
//! each line is parsed on its own). Two constructs span lines and are tracked here: a
//! fenced code block (its lines are shown as they come, tinted, fences dimmed with their
//! language) and a table (held until its last row, then laid out in aligned columns).
//! No line breaks are inserted: the terminal wraps long lines, so a copy gives the text.
use crate::ui::printer::width;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

const DIM: &str = "\x1b[90m";
const CODE: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

enum Block {
    Text,
    /// Inside a fenced code block opened by this run of backticks or tildes.
    Fence(String),
    /// Rows of a table seen so far.
    Table(Vec<String>),
}

/// The streaming renderer: feed text with [`Markdown::push`], get terminal text back.
pub struct Markdown {
    partial: String,
    block: Block,
}

impl Default for Markdown {
    fn default() -> Self {
        Markdown::new()
    }
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

impl Markdown {
    pub fn new() -> Markdown {
        Markdown {
            partial: String::new(),
            block: Block::Text,
        }
    }

    /// Streamed text in; the rendering of the lines it completed out (each ends with `\n`).
    pub fn push(&mut self, text: &str) -> String {
        self.partial.push_str(text);
        let mut out = String::new();
        while let Some(nl) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=nl).collect();
            let line = line.trim_end_matches('\n').trim_end_matches('\r');
            self.line(line, &mut out);
        }
        out
    }

    /// Something else is shown next (a tool call, an error, the end of the answer): the
    /// held partial line (rendered, without a newline) and a held table.
    pub fn flush(&mut self) -> String {
        let mut out = String::new();
        if let Block::Table(rows) = &self.block {
            out.push_str(&table(rows));
            self.block = Block::Text;
        }
        let rest = std::mem::take(&mut self.partial);
        if !rest.is_empty() {
            self.line(&rest, &mut out);
            if out.ends_with('\n') {
                out.pop();
            }
        }
        out
    }

    /// The pending partial line as it would render now (shown until it is complete).
    pub fn preview(&self) -> String {
        match &self.block {
            Block::Text if !self.partial.is_empty() => inline_line(&self.partial),
            Block::Fence(_) if !self.partial.is_empty() => format!("{CODE}{}{RESET}", self.partial),
            _ => String::new(),
        }
    }

    /// The answer ended: an unclosed code block ends with it.
    pub fn reset(&mut self) {
        self.partial.clear();
        self.block = Block::Text;
    }

    fn line(&mut self, line: &str, out: &mut String) {
        let t = line.trim_start();
        match &mut self.block {
            Block::Fence(marker) => {
                let closes = t.starts_with(marker.as_str())
                    && t.trim_end().chars().all(|c| marker.starts_with(c));
                if closes {
                    self.block = Block::Text;
                    out.push_str(&format!("{DIM}{line}{RESET}\n"));
                } else {
                    out.push_str(&format!("{CODE}{line}{RESET}\n"));
                }
                return;
            }
            Block::Table(rows) => {
                if t.starts_with('|') {
                    rows.push(line.to_string());
                    return;
                }
                out.push_str(&table(rows));
                self.block = Block::Text;
            }
            Block::Text => {}
        }
        if let Some(marker) = fence_marker(t) {
            self.block = Block::Fence(marker);
            out.push_str(&format!("{DIM}{line}{RESET}\n"));
        } else if t.starts_with('|') {
            self.block = Block::Table(vec![line.to_string()]);
        } else {
            out.push_str(&inline_line(line));
            out.push('\n');
        }
    }
}

/// The fence run (three or more backticks or tildes) opening a code block.
fn fence_marker(t: &str) -> Option<String> {
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run: String = t.chars().take_while(|&d| d == c).collect();
    (run.len() >= 3).then_some(run)
}

/// One line of text, its leading indentation kept (nested list items).
pub fn inline_line(line: &str) -> String {
    let body = line.trim_start();
    if body.is_empty() {
        return String::new();
    }
    let indent = &line[..line.len() - body.len()];
    let r = render(body);
    if r.trim().is_empty() {
        // A link reference definition and the like render to nothing: keep the text.
        return line.to_string();
    }
    format!("{indent}{r}")
}

fn render(src: &str) -> String {
    let mut out = String::new();
    let mut lists: Vec<Option<u64>> = Vec::new();
    let mut links: Vec<(String, usize)> = Vec::new();
    for ev in Parser::new_ext(src, options()) {
        match ev {
            Event::Start(Tag::Heading { level, .. }) => {
                out.push_str(if level == HeadingLevel::H1 {
                    "\x1b[1;4m"
                } else {
                    "\x1b[1m"
                })
            }
            Event::End(TagEnd::Heading(_)) => out.push_str(RESET),
            Event::Start(Tag::Emphasis) => out.push_str("\x1b[3m"),
            Event::End(TagEnd::Emphasis) => out.push_str("\x1b[23m"),
            Event::Start(Tag::Strong) => out.push_str("\x1b[1m"),
            Event::End(TagEnd::Strong) => out.push_str("\x1b[22m"),
            Event::Start(Tag::Strikethrough) => out.push_str("\x1b[9m"),
            Event::End(TagEnd::Strikethrough) => out.push_str("\x1b[29m"),
            Event::Start(Tag::BlockQuote(_)) => out.push_str(&format!("{DIM}│{RESET} ")),
            Event::Start(Tag::List(start)) => lists.push(start),
            Event::End(TagEnd::List(_)) => {
                lists.pop();
            }
            Event::Start(Tag::Item) => match lists.last_mut() {
                Some(Some(n)) => {
                    out.push_str(&format!("{n}. "));
                    *n += 1;
                }
                _ => out.push_str("• "),
            },
            Event::Start(Tag::Link { dest_url, .. }) => {
                out.push_str("\x1b[34;4m");
                links.push((dest_url.to_string(), out.len()));
            }
            Event::End(TagEnd::Link) => {
                out.push_str("\x1b[24;39m");
                if let Some((dest, at)) = links.pop() {
                    if !out[at..].contains(dest.as_str()) {
                        out.push_str(&format!(" {DIM}({dest}){RESET}"));
                    }
                }
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                out.push_str(&format!("{DIM}[image {dest_url}: "));
            }
            Event::End(TagEnd::Image) => out.push_str(&format!("]{RESET}")),
            Event::Code(c) => out.push_str(&format!("{CODE}{c}\x1b[39m")),
            Event::Text(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            Event::Html(h) | Event::InlineHtml(h) => out.push_str(&h),
            Event::Rule => out.push_str(&format!("{DIM}{}{RESET}", "─".repeat(40))),
            Event::TaskListMarker(done) => out.push_str(if done { "☑ " } else { "☐ " }),
            Event::FootnoteReference(f) => out.push_str(&format!("[^{f}]")),
            Event::InlineMath(m) | Event::DisplayMath(m) => out.push_str(&m),
            _ => {}
        }
    }
    out
}

/// A table's rows laid out in aligned columns (header bold, a rule under it); rows that do
/// not make a table are rendered as lines.
fn table(rows: &[String]) -> String {
    let src = rows.join("\n");
    let mut cells: Vec<Vec<String>> = Vec::new();
    let mut head_rows = 0;
    let mut in_cell = false;
    let mut seen = false;
    for ev in Parser::new_ext(&src, options()) {
        match ev {
            Event::Start(Tag::Table(_)) => seen = true,
            Event::Start(Tag::TableHead) | Event::Start(Tag::TableRow) => cells.push(Vec::new()),
            Event::End(TagEnd::TableHead) => head_rows = cells.len(),
            Event::Start(Tag::TableCell) => {
                in_cell = true;
                if let Some(r) = cells.last_mut() {
                    r.push(String::new());
                }
            }
            Event::End(TagEnd::TableCell) => in_cell = false,
            Event::Text(t) | Event::Code(t) if in_cell => {
                if let Some(c) = cells.last_mut().and_then(|r| r.last_mut()) {
                    c.push_str(&t);
                }
            }
            _ => {}
        }
    }
    if !seen {
        return rows.iter().map(|l| inline_line(l) + "\n").collect();
    }
    let ncol = cells.iter().map(Vec::len).max().unwrap_or(0);
    let mut w = vec![0usize; ncol];
    for r in &cells {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(width(c));
        }
    }
    let mut out = String::new();
    for (ri, r) in cells.iter().enumerate() {
        let line: Vec<String> = (0..ncol)
            .map(|i| {
                let c = r.get(i).map(String::as_str).unwrap_or("");
                let pad = " ".repeat(w[i] - width(c));
                if ri < head_rows {
                    format!("\x1b[1m{c}\x1b[22m{pad}")
                } else {
                    format!("{c}{pad}")
                }
            })
            .collect();
        out.push_str(line.join(&format!(" {DIM}│{RESET} ")).trim_end());
        out.push('\n');
        if ri + 1 == head_rows {
            let rule: Vec<String> = w.iter().map(|n| "─".repeat(*n)).collect();
            out.push_str(&format!("{DIM}{}{RESET}\n", rule.join("─┼─")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> String {
        String::from_utf8_lossy(&crate::ui::display::strip_escapes(s.as_bytes(), false))
            .into_owned()
    }

    #[test]
    fn lines_render_as_they_complete() {
        let mut m = Markdown::new();
        assert_eq!(m.push("# Title\nSome **bo"), "\x1b[1;4mTitle\x1b[0m\n");
        assert_eq!(m.push("ld** and `code`"), "");
        assert_eq!(
            m.flush(),
            "Some \x1b[1mbold\x1b[22m and \x1b[36mcode\x1b[39m"
        );
        let out = m.push("- one\n  2. two\n> quoted\n[site](http://x.y)\n");
        assert_eq!(
            plain(&out),
            "• one\n  2. two\n│ quoted\nsite (http://x.y)\n"
        );
    }

    #[test]
    fn entities_in_markdown_decode() {
        // pulldown-cmark's entity table (the crates.io release): the first and last names, a two-character value, an unknown name kept as text.
        assert_eq!(
            plain(&inline_line("&AElig; &zwnj; &ngE; &copy; &nosuch; &#65;")),
            "Æ \u{200c} ≧\u{338} © &nosuch; A"
        );
    }

    #[test]
    fn fences_and_tables() {
        let mut m = Markdown::new();
        let out = m.push("```rust\nlet a = *b*;\n```\n| a | bb |\n|---|---|\n| 1 | 2 |\nafter\n");
        assert_eq!(
            plain(&out),
            "```rust\nlet a = *b*;\n```\na │ bb\n──┼───\n1 │ 2\nafter\n"
        );
        assert!(out.contains("\x1b[36mlet a = *b*;"));
    }
}
