//! The tree as CommonMark/GFM markdown: headings, paragraphs, emphasis, links and images,
//! lists (nested, ordered with their start), block quotes, fenced code with its language,
//! tables, definition lists and hard breaks. White space collapses as a browser shows it.
//!
//! Output goes through [`Out`], which writes blank lines lazily (never at the start or the
//! end, never more than one in a row) and starts every line with the prefixes of the open
//! block quotes and list items, so nesting is a stack of prefixes rather than re-indented
//! strings.
use super::budget::within_budget;
use super::parse::{Element, Node};
use super::spans::{code_span, image, link, longest_run, wrap};

/// Elements whose content is not text for a reader (`noembed` and `noframes` hold markup a
/// browser never shows: their raw text leaked as HTML).
const SKIP: [&str; 13] = [
    "script", "style", "noscript", "template", "svg", "iframe", "head", "canvas", "select",
    "object", "button", "noembed", "noframes",
];

/// Elements shown as blocks of their own (a blank line before and after).
const BLOCKS: [&str; 22] = [
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "aside",
    "figure",
    "figcaption",
    "address",
    "details",
    "summary",
    "form",
    "fieldset",
    "center",
    "body",
    "html",
    "hgroup",
    "dialog",
    "caption",
];

struct Level {
    /// Written at the start of each line inside this level ("> ", or spaces under a list item).
    indent: String,
    /// A list item's marker, written instead of `indent` on its first line.
    marker: Option<String>,
}

#[derive(Default)]
pub struct Out {
    pub(super) s: String,
    /// Line breaks owed before the next text (0, 1 or 2).
    pending: usize,
    levels: Vec<Level>,
    /// Inside a heading, link, emphasis or table cell: block breaks become spaces.
    inline: bool,
}

impl Out {
    pub(super) fn inline() -> Out {
        Out {
            inline: true,
            ..Out::default()
        }
    }

    /// Text as it stands, after any owed line breaks.
    pub(super) fn write(&mut self, t: &str) {
        if t.is_empty() {
            return;
        }
        self.flush();
        self.s.push_str(t);
    }

    /// Text with its white space collapsed (one space, none at a line's start).
    pub(super) fn text(&mut self, t: &str) {
        let mut words = t.split_ascii_whitespace().peekable();
        let lead = t.starts_with(|c: char| c.is_ascii_whitespace());
        let trail = t.ends_with(|c: char| c.is_ascii_whitespace());
        if words.peek().is_none() {
            if lead {
                self.space();
            }
            return;
        }
        if lead {
            self.space();
        }
        let mut first = true;
        for w in words {
            if !first {
                self.s.push(' ');
            }
            self.write(w);
            first = false;
        }
        if trail {
            self.space();
        }
    }

    /// One space, unless a line is starting or a space or break is already there. (An inline
    /// buffer keeps a leading space: its caller moves it outside the markers it adds.)
    pub(super) fn space(&mut self) {
        let after_text = self.pending == 0 && !self.s.ends_with([' ', '\n']);
        if (self.inline && self.s.is_empty()) || (!self.s.is_empty() && after_text) {
            self.s.push(' ');
        }
    }

    /// `n` line breaks before what comes next (2: a blank line).
    fn block(&mut self, n: usize) {
        if self.inline {
            return self.space();
        }
        self.pending = self.pending.max(n);
    }

    /// A hard line break.
    fn hard_break(&mut self) {
        if self.inline {
            return self.space();
        }
        if !self.s.is_empty() && self.pending == 0 {
            self.trim_end();
            self.s.push_str("  ");
            self.pending = 1;
        }
    }

    fn trim_end(&mut self) {
        let keep = self.s.trim_end_matches(' ').len();
        if !self.s.ends_with("  ") || self.s[..keep].ends_with('\n') {
            self.s.truncate(keep);
        }
    }

    fn flush(&mut self) {
        if self.s.is_empty() {
            self.pending = 0;
            self.prefix(true);
            return;
        }
        if self.pending == 0 {
            return;
        }
        if !self.s.ends_with("  ") {
            self.trim_end();
        }
        for k in 0..self.pending {
            self.s.push('\n');
            self.prefix(k + 1 == self.pending);
        }
        self.pending = 0;
    }

    /// The line's prefix; a blank line (`content` false) gets it without trailing spaces and
    /// leaves list markers for the line that has text.
    fn prefix(&mut self, content: bool) {
        let start = self.s.len();
        for l in &mut self.levels {
            match l.marker.take_if(|_| content) {
                Some(m) => self.s.push_str(&m),
                None => self.s.push_str(&l.indent),
            }
        }
        if !content {
            let keep = start + self.s[start..].trim_end().len();
            self.s.truncate(keep);
        }
    }

    pub fn finish(self) -> String {
        let mut s = self.s;
        s.truncate(s.trim_end_matches(|c: char| c.is_ascii_whitespace()).len());
        s
    }
}

/// Render `el`'s children into `out`.
pub fn children(el: &Element, out: &mut Out) {
    if !within_budget() {
        return;
    }
    for c in &el.children {
        match c {
            Node::Text(t) => out.text(t),
            Node::Element(e) => element(e, out),
        }
    }
}

fn element(e: &Element, out: &mut Out) {
    let name = e.name.as_str();
    if SKIP.contains(&name) || !shown(e) {
        return;
    }
    match name {
        "math" => super::math::math(e, out),
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
            let t = inline_text(e);
            if !t.is_empty() {
                let level = usize::from(name.as_bytes()[1] - b'0');
                out.block(2);
                out.write(&format!("{} {t}", "#".repeat(level)));
                out.block(2);
            }
        }
        "br" => out.hard_break(),
        "hr" => {
            out.block(2);
            out.write("---");
            out.block(2);
        }
        "strong" | "b" => wrap(e, out, "**", "**"),
        "em" | "i" | "cite" | "dfn" => wrap(e, out, "*", "*"),
        "del" | "s" | "strike" => wrap(e, out, "~~", "~~"),
        "code" | "kbd" | "samp" | "tt" => code_span(e, out),
        "a" => link(e, out),
        "img" => image(e, out),
        "pre" => code_block(e, out),
        "blockquote" => {
            out.block(2);
            nested(out, "> ", None, |out| children(e, out));
            out.block(2);
        }
        "ul" | "ol" | "menu" => list(e, out),
        "dl" => {
            out.block(2);
            children(e, out);
            out.block(2);
        }
        "dt" => {
            out.block(1);
            wrap(e, out, "**", "**");
            out.block(1);
        }
        "dd" => {
            out.block(1);
            nested(out, "  ", Some(": ".into()), |out| children(e, out));
            out.block(1);
        }
        "table" => super::table::table(e, out),
        // Parts of a table that is not a grid (table.rs): each row and cell a block.
        "tr" | "td" | "th" | "thead" | "tbody" | "tfoot" => {
            out.block(1);
            children(e, out);
            out.block(1);
        }
        "li" => {
            // A list item outside a list: a list of one.
            out.block(1);
            nested(out, "  ", Some("- ".into()), |out| children(e, out));
            out.block(1);
        }
        _ if BLOCKS.contains(&name) => {
            out.block(2);
            children(e, out);
            out.block(2);
        }
        _ => children(e, out),
    }
}

/// Whether a browser shows `e`: not `hidden`, and no `display: none` in its inline style.
/// (Style sheets are not read: a class that hides is not known here.)
fn shown(e: &Element) -> bool {
    if e.attr("hidden").is_some() {
        return false;
    }
    let Some(style) = e.attr("style") else {
        return true;
    };
    !style.split(';').any(|decl| {
        let Some((prop, value)) = decl.split_once(':') else {
            return false;
        };
        prop.trim().eq_ignore_ascii_case("display")
            && value
                .trim()
                .trim_end_matches("!important")
                .trim()
                .eq_ignore_ascii_case("none")
    })
}

/// Run `f` one level deeper: every line it writes starts with `indent`, the first with
/// `marker` instead when there is one.
fn nested(out: &mut Out, indent: &str, marker: Option<String>, f: impl FnOnce(&mut Out)) {
    if out.inline {
        return f(out);
    }
    out.levels.push(Level {
        indent: indent.to_string(),
        marker,
    });
    f(out);
    out.levels.pop();
}

/// The element's content on one line, white space collapsed.
pub fn inline_text(e: &Element) -> String {
    let mut o = Out::inline();
    children(e, &mut o);
    o.finish().trim().to_string()
}

fn code_block(e: &Element, out: &mut Out) {
    let mut text = String::new();
    raw_text(e, &mut text);
    let text = text.strip_prefix('\n').unwrap_or(&text).trim_end();
    if out.inline {
        return out.text(text);
    }
    let lang = language(e).unwrap_or_default();
    let fence = "`".repeat(longest_run(text, '`').max(2) + 1);
    out.block(2);
    out.write(&format!("{fence}{lang}"));
    for line in text.split('\n') {
        out.block(1);
        out.flush();
        out.s.push_str(line);
    }
    out.block(1);
    out.write(&fence);
    out.block(2);
    // Links keep their targets: a fence shows no markup, so they follow the block.
    let links = super::spans::pre_links(e);
    if !links.is_empty() {
        out.write_lines(&links);
    }
}

/// The text under `e` as it stands (`<br>` as a line break), for `<pre>`.
fn raw_text(e: &Element, into: &mut String) {
    for c in &e.children {
        match c {
            Node::Text(t) => into.push_str(&t.replace("\r\n", "\n")),
            Node::Element(x) if x.name == "br" => into.push('\n'),
            Node::Element(x) if !SKIP.contains(&x.name.as_str()) => raw_text(x, into),
            Node::Element(_) => {}
        }
    }
}

/// A code block's language from a `language-x`/`lang-x` class on the `<pre>` or its `<code>`.
fn language(e: &Element) -> Option<String> {
    let code = e.children.iter().find_map(|c| match c {
        Node::Element(x) if x.name == "code" => Some(x),
        _ => None,
    });
    [Some(e), code].into_iter().flatten().find_map(|x| {
        x.attr("class")?.split_ascii_whitespace().find_map(|c| {
            let l = c
                .strip_prefix("language-")
                .or_else(|| c.strip_prefix("lang-"))?;
            l.chars()
                .all(|ch| ch.is_ascii_alphanumeric() || "+-_#.".contains(ch))
                .then(|| l.to_string())
        })
    })
}

fn list(e: &Element, out: &mut Out) {
    let ordered = e.name == "ol";
    let mut n: i64 = e
        .attr("start")
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(1);
    let tight_inside_item = out.levels.last().is_some_and(|l| l.indent.starts_with(' '));
    out.block(if tight_inside_item { 1 } else { 2 });
    for c in &e.children {
        match c {
            Node::Element(li) if li.name == "li" => {
                let marker = if ordered {
                    format!("{n}. ")
                } else {
                    "- ".to_string()
                };
                n += 1;
                let indent = " ".repeat(marker.len());
                out.block(1);
                nested(out, &indent, Some(marker), |out| children(li, out));
                out.block(1);
            }
            Node::Element(x) => element(x, out),
            Node::Text(t) => out.text(t),
        }
    }
    out.block(if tight_inside_item { 1 } else { 2 });
}

/// What the table module needs besides `children` and `inline_text`.
impl Out {
    pub fn is_inline(&self) -> bool {
        self.inline
    }

    pub fn write_lines(&mut self, lines: &[String]) {
        self.block(2);
        for (k, l) in lines.iter().enumerate() {
            if k > 0 {
                self.block(1);
            }
            self.write(l);
        }
        self.block(2);
    }
}
