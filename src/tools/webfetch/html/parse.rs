//! A forgiving HTML reader: tags, attributes, text, comments and raw-text elements, built
//! into a tree with the end tags real pages leave out (`<p>`, `<li>`, `<td>`, ...) implied.
//! It is not the HTML standard's tree builder: it keeps what a reader of the page sees
//! (text, structure, links) and never fails; a stray end tag is dropped, an unclosed element
//! ends with its parent, and nesting deeper than [`MAX_DEPTH`] is flattened.
use super::entities::decode;

/// Open elements at most; deeper ones become siblings (the renderer recurses per level).
pub const MAX_DEPTH: usize = 200;

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

/// Elements whose content is text up to their end tag (markup inside is not markup).
const RAW: [&str; 9] = [
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
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

/// The whole document as one root element (name "").
pub fn parse(html: &str) -> Element {
    let mut b = Builder {
        stack: vec![Element::default()],
    };
    let bytes = html.as_bytes();
    let mut i = 0;
    let mut text_start = 0;
    while let Some(off) = memchr::memchr(b'<', &bytes[i..]) {
        let lt = i + off;
        let Some((tag, end)) = read_markup(html, lt) else {
            i = lt + 1;
            continue;
        };
        b.text(&html[text_start..lt]);
        i = end;
        match tag {
            Markup::Start {
                name,
                attrs,
                self_closing,
            } => {
                let raw = RAW.contains(&name.as_str()) && !self_closing;
                let name_for_raw = name.clone();
                b.start(name, attrs, self_closing);
                if raw {
                    let close = find_end_tag(html, i, &name_for_raw);
                    let body = &html[i..close.unwrap_or(html.len())];
                    if name_for_raw == "textarea" || name_for_raw == "title" {
                        b.text(body);
                    } else if !body.is_empty() {
                        b.raw_text(body);
                    }
                    b.end(&name_for_raw);
                    i = match close {
                        Some(c) => html[c..].find('>').map_or(html.len(), |k| c + k + 1),
                        None => html.len(),
                    };
                }
            }
            Markup::End(name) => b.end(&name),
            Markup::Other => {}
        }
        text_start = i;
    }
    b.text(&html[text_start..]);
    b.finish()
}

enum Markup {
    Start {
        name: String,
        attrs: Vec<(String, String)>,
        self_closing: bool,
    },
    End(String),
    /// A comment, doctype or processing instruction: dropped.
    Other,
}

/// The markup starting at `lt` (a `<`) and the offset just after it; `None` when this `<`
/// starts no markup (it is text).
fn read_markup(html: &str, lt: usize) -> Option<(Markup, usize)> {
    let b = html.as_bytes();
    let next = *b.get(lt + 1)?;
    if html[lt..].starts_with("<!--") {
        let end = html[lt + 4..]
            .find("-->")
            .map_or(html.len(), |k| lt + 4 + k + 3);
        return Some((Markup::Other, end));
    }
    if next == b'!' || next == b'?' {
        let end = html[lt..].find('>').map_or(html.len(), |k| lt + k + 1);
        return Some((Markup::Other, end));
    }
    let (closing, name_at) = if next == b'/' {
        (true, lt + 2)
    } else {
        (false, lt + 1)
    };
    if !b.get(name_at)?.is_ascii_alphabetic() {
        return None;
    }
    let name_len = b[name_at..]
        .iter()
        .take_while(|c| !c.is_ascii_whitespace() && !matches!(c, b'/' | b'>'))
        .count();
    let name = html[name_at..name_at + name_len].to_ascii_lowercase();
    let (attrs, self_closing, end) = read_attrs(html, name_at + name_len);
    let m = if closing {
        Markup::End(name)
    } else {
        Markup::Start {
            name,
            attrs,
            self_closing,
        }
    };
    Some((m, end))
}

/// Attributes from `i` to the tag's `>`: the list, whether it ended `/>`, and the offset
/// after the `>` (the end of the text when there is none).
fn read_attrs(html: &str, mut i: usize) -> (Vec<(String, String)>, bool, usize) {
    let b = html.as_bytes();
    let mut attrs = Vec::new();
    loop {
        while b
            .get(i)
            .is_some_and(|c| c.is_ascii_whitespace() || *c == b'/')
        {
            i += 1;
        }
        match b.get(i) {
            None => return (attrs, false, b.len()),
            Some(b'>') => return (attrs, i > 0 && b[i - 1] == b'/', i + 1),
            _ => {}
        }
        let start = i;
        while b
            .get(i)
            .is_some_and(|c| !c.is_ascii_whitespace() && !matches!(c, b'/' | b'>' | b'='))
            || i == start && b.get(i) == Some(&b'=')
        {
            i += 1;
        }
        let name = html[start..i].to_ascii_lowercase();
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let mut value = String::new();
        if b.get(i) == Some(&b'=') {
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            let (v, next) = match b.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let close = memchr::memchr(q, &b[i + 1..]).map_or(b.len(), |k| i + 1 + k);
                    (&html[i + 1..close], (close + 1).min(b.len()))
                }
                _ => {
                    let len = b[i..]
                        .iter()
                        .take_while(|c| !c.is_ascii_whitespace() && **c != b'>')
                        .count();
                    (&html[i..i + len], i + len)
                }
            };
            value = decode(v, true).into_owned();
            i = next;
        }
        if !name.is_empty() && !attrs.iter().any(|(k, _)| *k == name) {
            attrs.push((name, value));
        }
    }
}

/// Where `</name` starts at or after `from` (any case), if anywhere.
fn find_end_tag(html: &str, from: usize, name: &str) -> Option<usize> {
    let b = html.as_bytes();
    let mut i = from;
    while let Some(k) = memchr::memmem::find(&b[i..], b"</") {
        let at = i + k;
        let n = &b[at + 2..];
        if n.len() >= name.len()
            && n[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            && n.get(name.len())
                .is_none_or(|c| c.is_ascii_whitespace() || matches!(c, b'>' | b'/'))
        {
            return Some(at);
        }
        i = at + 2;
    }
    None
}

struct Builder {
    /// Open elements, the root first.
    stack: Vec<Element>,
}

impl Builder {
    fn text(&mut self, t: &str) {
        if !t.is_empty() {
            self.raw_text(&decode(t, false));
        }
    }

    fn raw_text(&mut self, t: &str) {
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
        let d = parse("<P>one<p>two<ul><li>a<li>b</ul></div>three</b>");
        assert_eq!(
            shape(&d),
            "<p>one</p><p>two</p><ul><li>a</li><li>b</li></ul>three"
        );
        let d = parse("<table><tr><td>1<td>2<tr><td>3</table>");
        assert_eq!(
            shape(&d),
            "<table><tr><td>1</td><td>2</td></tr><tr><td>3</td></tr></table>"
        );
    }

    #[test]
    fn attributes_raw_text_and_comments() {
        let d = parse("<!doctype html><!-- <b>x</b> --><a HREF='/a?b=1&amp;c=2' title=t data-x>l</a><script>if (a<b) {}</script><br/>ok &lt; 3 < 4");
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
        assert!(shape(&parse(&deep)).contains('x'));
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
            let _ = parse(s);
        }
    }
}
