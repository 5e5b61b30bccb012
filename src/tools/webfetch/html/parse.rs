//! HTML into a tree for the markdown writer. The tokens come from html5gum, a maintained
//! WHATWG tokenizer (fuzzed; character references, raw-text elements, comments, every
//! tokenizer state as the standard has them); the tree is built here, keeping what a reader
//! of the page sees (text, structure, links): the end tags real pages leave out (`<p>`,
//! `<li>`, `<td>`, ...) are implied, a stray end tag is dropped, an unclosed element ends
//! with its parent, and nesting deeper than [`MAX_DEPTH`] is flattened.
//!
//! Hostile pages are bounded: at most [`MAX_ATTRS`] attributes of a tag are kept (the rest are
//! never stored, so a tag with 300,000 of them costs no more than its bytes), at most
//! [`MAX_ELEMENTS`] elements are built (later tags are dropped, their text kept), and the
//! [`Budget`] (deadline and cancel flag) is looked at every few hundred tokens.
use super::Budget;
use html5gum::emitters::callback::{CallbackEmitter, CallbackEvent};
use html5gum::{Span, Tokenizer};

/// Open elements at most; deeper ones become siblings (the renderer recurses per level).
pub const MAX_DEPTH: usize = 200;
/// Attributes of one tag kept at most (the first ones; a repeated name keeps its first value).
pub const MAX_ATTRS: usize = 32;
/// Elements built at most: about 200 bytes each, so a page of small tags stays within a small
/// multiple of its size.
pub const MAX_ELEMENTS: usize = 100_000;
/// Tokens between two looks at the budget.
const CHECK_EVERY: u32 = 256;

#[derive(Debug)]
pub enum Node {
    Element(Element),
    Text(String),
}

#[derive(Debug, Default)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Node>,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Elements that never have content.
const VOID: [&str; 15] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen",
];

/// Starting one of these ends an open `<p>`.
const CLOSES_P: [&str; 30] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "dialog",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
];

/// Raw-text elements whose text is not for a reader (the renderer skips them).
const NOT_TEXT: [&str; 5] = ["script", "style", "iframe", "noembed", "noframes"];

/// One token as the tree builder takes it (owned: the tokenizer's buffers are reused).
enum Ev {
    Open(String),
    AttrName(String),
    AttrValue(String),
    Close(bool),
    End(String),
    Text(String),
}

fn text_of(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The whole document as one root element (name ""), or `None` when the budget ran out.
pub fn parse(html: &str, budget: &Budget) -> Option<Element> {
    // Attributes seen in the current tag: past MAX_ATTRS they are not even copied out.
    let mut attrs_in_tag = 0usize;
    let mut emitter = CallbackEmitter::new(move |ev: CallbackEvent<'_>, _: Span<()>| match ev {
        CallbackEvent::OpenStartTag { name } => {
            attrs_in_tag = 0;
            Some(Ev::Open(text_of(name).to_ascii_lowercase()))
        }
        CallbackEvent::AttributeName { name } => {
            attrs_in_tag += 1;
            (attrs_in_tag <= MAX_ATTRS).then(|| Ev::AttrName(text_of(name).to_ascii_lowercase()))
        }
        CallbackEvent::AttributeValue { value } => {
            (attrs_in_tag <= MAX_ATTRS).then(|| Ev::AttrValue(text_of(value)))
        }
        CallbackEvent::CloseStartTag { self_closing } => Some(Ev::Close(self_closing)),
        CallbackEvent::EndTag { name } => Some(Ev::End(text_of(name).to_ascii_lowercase())),
        CallbackEvent::String { value } => Some(Ev::Text(text_of(value))),
        _ => None,
    });
    // Script, style, title, textarea, ... switch the tokenizer to their raw-text states.
    emitter.naively_switch_states(true);
    let mut b = Builder {
        stack: vec![Element::default()],
        elements: 0,
        dropped_raw: None,
    };
    // The start tag being read: its name, its attributes, whether the last one has a value.
    let mut tag: Option<(String, Vec<(String, String)>)> = None;
    let mut n = 0u32;
    for ev in Tokenizer::new_with_emitter(html, emitter) {
        n = n.wrapping_add(1);
        if n.is_multiple_of(CHECK_EVERY) && budget.exhausted() {
            return None;
        }
        let Ok(ev) = ev;
        match ev {
            Ev::Open(name) => tag = Some((name, Vec::new())),
            Ev::AttrName(a) => {
                if let Some((_, attrs)) = tag.as_mut() {
                    attrs.push((a, String::new()));
                }
            }
            Ev::AttrValue(v) => {
                if let Some((_, attrs)) = tag.as_mut() {
                    if let Some(last) = attrs.last_mut() {
                        last.1 = v;
                    }
                }
            }
            Ev::Close(self_closing) => {
                if let Some((name, mut attrs)) = tag.take() {
                    dedup_first(&mut attrs);
                    b.start(name, attrs, self_closing);
                }
            }
            Ev::End(name) => {
                tag = None;
                b.end(&name);
            }
            Ev::Text(t) => {
                tag = None;
                b.text(&t);
            }
        }
    }
    Some(b.finish())
}

/// Keep the first of attributes with the same name (as browsers do); at most MAX_ATTRS.
fn dedup_first(attrs: &mut Vec<(String, String)>) {
    let mut k = 0;
    while k < attrs.len() {
        if attrs[..k].iter().any(|(n, _)| *n == attrs[k].0) {
            attrs.remove(k);
        } else {
            k += 1;
        }
    }
}

struct Builder {
    /// Open elements, the root first.
    stack: Vec<Element>,
    /// Elements built so far (see [`MAX_ELEMENTS`]).
    elements: usize,
    /// Past the element cap, the raw-text element (script, style) whose start was dropped:
    /// its text is not content and is dropped up to its end tag.
    dropped_raw: Option<String>,
}

impl Builder {
    fn text(&mut self, t: &str) {
        if t.is_empty() || self.dropped_raw.is_some() {
            return;
        }
        let top = self.top();
        if let Some(Node::Text(prev)) = top.children.last_mut() {
            prev.push_str(t);
        } else {
            top.children.push(Node::Text(t.to_string()));
        }
    }

    fn top(&mut self) -> &mut Element {
        let n = self.stack.len();
        &mut self.stack[n - 1]
    }

    fn open(&self, name: &str) -> bool {
        self.stack.iter().any(|e| e.name == name)
    }

    fn start(&mut self, name: String, attrs: Vec<(String, String)>, self_closing: bool) {
        if self.elements >= MAX_ELEMENTS {
            if !self_closing && NOT_TEXT.contains(&name.as_str()) {
                self.dropped_raw = Some(name);
            }
            return;
        }
        self.elements += 1;
        self.imply_ends(&name);
        let el = Element {
            name,
            attrs,
            children: Vec::new(),
        };
        if VOID.contains(&el.name.as_str()) || self_closing || self.stack.len() > MAX_DEPTH {
            self.top().children.push(Node::Element(el));
        } else {
            self.stack.push(el);
        }
    }

    /// The end tags a page may leave out, implied by the start of `name`.
    fn imply_ends(&mut self, name: &str) {
        let close_within = |s: &mut Self, targets: &[&str], bounds: &[&str]| {
            for k in (1..s.stack.len()).rev() {
                let n = s.stack[k].name.as_str();
                if targets.contains(&n) {
                    s.pop_to(k);
                    return;
                }
                if bounds.contains(&n) {
                    return;
                }
            }
        };
        const BLOCKS: [&str; 8] = [
            "table",
            "td",
            "th",
            "li",
            "dd",
            "dt",
            "button",
            "blockquote",
        ];
        if CLOSES_P.contains(&name) {
            close_within(self, &["p"], &BLOCKS);
        }
        match name {
            "li" => close_within(self, &["li"], &["ul", "ol", "menu", "table"]),
            "dt" | "dd" => close_within(self, &["dt", "dd"], &["dl", "table"]),
            "tr" => close_within(self, &["tr"], &["table"]),
            "td" | "th" => close_within(self, &["td", "th"], &["tr", "table"]),
            "thead" | "tbody" | "tfoot" => {
                close_within(self, &["thead", "tbody", "tfoot"], &["table"])
            }
            "option" | "optgroup" => close_within(self, &["option"], &["select"]),
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        if let Some(raw) = &self.dropped_raw {
            if raw == name {
                self.dropped_raw = None;
            }
            return;
        }
        if name == "br" {
            return self.start("br".into(), Vec::new(), true);
        }
        if !self.open(name) {
            return;
        }
        if let Some(k) = (1..self.stack.len())
            .rev()
            .find(|&k| self.stack[k].name == name)
        {
            self.pop_to(k);
        }
    }

    /// Close the element at `k` and everything opened inside it.
    fn pop_to(&mut self, k: usize) {
        while self.stack.len() > k {
            if let Some(el) = self.stack.pop() {
                self.top().children.push(Node::Element(el));
            }
        }
    }

    fn finish(mut self) -> Element {
        self.pop_to(1);
        self.stack.pop().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(html: &str) -> Element {
        parse(html, &Budget::default()).unwrap()
    }

    fn shape(e: &Element) -> String {
        let mut s = String::new();
        for c in &e.children {
            match c {
                Node::Text(t) => s.push_str(t),
                Node::Element(el) => {
                    s.push_str(&format!("<{}>{}</{}>", el.name, shape(el), el.name));
                }
            }
        }
        s
    }

    #[test]
    fn implied_ends_and_stray_tags() {
        let d = parse_all("<P>one<p>two<ul><li>a<li>b</ul></div>three</b>");
        assert_eq!(
            shape(&d),
            "<p>one</p><p>two</p><ul><li>a</li><li>b</li></ul>three"
        );
        let d = parse_all("<table><tr><td>1<td>2<tr><td>3</table>");
        assert_eq!(
            shape(&d),
            "<table><tr><td>1</td><td>2</td></tr><tr><td>3</td></tr></table>"
        );
    }

    #[test]
    fn attributes_raw_text_and_comments() {
        let d = parse_all("<!doctype html><!-- <b>x</b> --><a HREF='/a?b=1&amp;c=2' title=t data-x>l</a><script>if (a<b) {}</script><br/>ok &lt; 3 < 4");
        let Node::Element(a) = &d.children[0] else {
            panic!("{d:?}")
        };
        assert_eq!(a.attr("href"), Some("/a?b=1&c=2"));
        assert_eq!(a.attr("title"), Some("t"));
        assert_eq!(a.attr("data-x"), Some(""));
        assert_eq!(
            shape(&d),
            "<a>l</a><script>if (a<b) {}</script><br></br>ok < 3 < 4"
        );
    }

    #[test]
    fn unclosed_and_deep_markup_never_fails() {
        let deep = "<div>".repeat(10_000) + "x";
        assert!(shape(&parse_all(&deep)).contains('x'));
        for s in [
            "<",
            "<a",
            "<a href='",
            "<!--",
            "</",
            "<script>",
            "<textarea>a<b>",
            "&",
            "<a =x>",
        ] {
            let _ = parse_all(s);
        }
    }
}
