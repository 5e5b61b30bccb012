//! Inline spans as markdown: emphasis and other wrapped text, code spans fenced by one
//! more backtick than the longest run inside, links (with their titles) and images, with
//! the white space around them kept outside the markers.
use super::parse::Element;
use super::render::{children, inline_text, Out};

/// The element's content on one line: whether it started with white space, the text, and
/// whether it ended with white space.
fn inline_parts(e: &Element) -> (bool, String, bool) {
    let mut o = Out::inline();
    children(e, &mut o);
    let s = o.s;
    (s.starts_with(' '), s.trim().to_string(), s.ends_with(' '))
}

/// `body` with `lead`/`trail` spaces around it; outer spaces stay outside markers (`**a **`
/// is not bold in markdown).
fn write_spaced(out: &mut Out, (lead, body, trail): (bool, &str, bool)) {
    if lead {
        out.space();
    }
    out.write(body);
    if trail {
        out.space();
    }
}

/// `open` + content + `close`.
pub(super) fn wrap(e: &Element, out: &mut Out, open: &str, close: &str) {
    let (lead, t, trail) = inline_parts(e);
    if t.is_empty() {
        if lead || trail {
            out.space();
        }
        return;
    }
    write_spaced(out, (lead, &format!("{open}{t}{close}"), trail));
}

pub(super) fn code_span(e: &Element, out: &mut Out) {
    let t = inline_text(e);
    if t.is_empty() {
        return;
    }
    let fence = "`".repeat(longest_run(&t, '`') + 1);
    let pad = if t.starts_with('`') || t.ends_with('`') {
        " "
    } else {
        ""
    };
    out.write(&format!("{fence}{pad}{t}{pad}{fence}"));
}

/// The longest run of `c` in `t`.
pub(super) fn longest_run(t: &str, c: char) -> usize {
    t.split(|x| x != c).map(str::len).max().unwrap_or(0)
}

pub(super) fn link(e: &Element, out: &mut Out) {
    let href = e.attr("href").unwrap_or("").trim();
    let (lead, text, trail) = inline_parts(e);
    if href.is_empty() || href.starts_with("javascript:") || text.is_empty() {
        return write_spaced(out, (lead, &text, trail));
    }
    let title = e
        .attr("title")
        .filter(|t| !t.is_empty())
        .map(|t| format!(" \"{}\"", t.replace('"', "\\\"")))
        .unwrap_or_default();
    let md = format!("[{text}]({}{title})", destination(href));
    write_spaced(out, (lead, &md, trail));
}

/// A link target as markdown takes it: no spaces or parentheses unescaped.
fn destination(href: &str) -> String {
    href.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

pub(super) fn image(e: &Element, out: &mut Out) {
    // A formula drawn as an image with its TeX as the alt text (Wikipedia shows these and
    // hides its MathML): the TeX, as `<math>` gives it.
    if let Some(tex) = super::math::image_tex(e) {
        return out.write(&tex);
    }
    let alt = e.attr("alt").unwrap_or("").trim().replace(['[', ']'], "");
    match e.attr("src").map(str::trim) {
        // Inline data is bytes for a browser, not for a reader.
        Some(src) if !src.is_empty() && !src.starts_with("data:") => {
            out.write(&format!("![{alt}]({})", destination(src)));
        }
        _ => out.text(&alt),
    }
}

/// The links inside a `<pre>` (whose fence shows text only) as `- [text](target)` lines, in
/// order, each target once; links within the page (`#…`) and scripts left out.
pub(super) fn pre_links(e: &Element) -> Vec<String> {
    let mut seen = Vec::new();
    let mut lines = Vec::new();
    collect_links(e, &mut seen, &mut lines);
    lines
}

fn collect_links(e: &Element, seen: &mut Vec<String>, lines: &mut Vec<String>) {
    for c in &e.children {
        let super::parse::Node::Element(x) = c else {
            continue;
        };
        if x.name != "a" {
            collect_links(x, seen, lines);
            continue;
        }
        let href = x.attr("href").unwrap_or("").trim();
        let text = inline_text(x);
        if href.is_empty()
            || href.starts_with('#')
            || href.starts_with("javascript:")
            || seen.iter().any(|s| s == href)
        {
            continue;
        }
        seen.push(href.to_string());
        let text = if text.is_empty() { href } else { text.as_str() };
        lines.push(format!(
            "- [{}]({})",
            text.replace(['[', ']'], ""),
            destination(href)
        ));
    }
}
