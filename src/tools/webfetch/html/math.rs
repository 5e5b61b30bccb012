//! MathML (`<math>`) as TeX between dollar signs, the form a model reads and writes: the TeX
//! the page carries (`<annotation encoding="application/x-tex">`, as Wikipedia and MathJax
//! emit it, else the `alttext` attribute), or else TeX written from the MathML itself
//! (scripts, fractions, roots, under/over, tables; the symbols as they are). `display="block"`
//! is a `$$…$$` block. Dropping the element made the equations vanish from the text.
use super::parse::{Element, Node};
use super::render::Out;

pub(super) fn math(e: &Element, out: &mut Out) {
    let tex = annotation(e)
        .or_else(|| e.attr("alttext").map(str::to_string))
        .map(|t| collapse(&t))
        .filter(|t| !t.is_empty());
    let Some(tex) = tex.or_else(|| Some(from_mathml(e)).filter(|t| !t.is_empty())) else {
        return;
    };
    let tex = tex.replace('$', "\\$");
    if e.attr("display") == Some("block") && !out.is_inline() {
        out.write_lines(&[format!("$${tex}$$")]);
    } else {
        out.write(&format!("${tex}$"));
    }
}

/// `$TeX$` for an image of a formula whose alt text is its TeX: MediaWiki's fallback
/// images (`mwe-math-fallback-image-*`, alt `{\displaystyle …}`).
pub(super) fn image_tex(e: &Element) -> Option<String> {
    let alt = e.attr("alt")?.trim();
    let fallback = e
        .attr("class")
        .is_some_and(|c| c.contains("mwe-math-fallback-image"));
    if !(fallback || alt.starts_with("{\\displaystyle")) {
        return None;
    }
    let tex = collapse(alt).replace('$', "\\$");
    (!tex.is_empty()).then(|| format!("${tex}$"))
}

/// The TeX annotation's text, if the formula has one.
fn annotation(e: &Element) -> Option<String> {
    e.children.iter().find_map(|c| match c {
        Node::Element(x) if x.name == "annotation" => {
            let enc = x.attr("encoding").unwrap_or("").to_ascii_lowercase();
            (enc == "application/x-tex" || enc == "tex").then(|| text(x))
        }
        Node::Element(x) => annotation(x),
        Node::Text(_) => None,
    })
}

fn text(e: &Element) -> String {
    let mut s = String::new();
    for c in &e.children {
        match c {
            Node::Text(t) => s.push_str(t),
            Node::Element(x) => s.push_str(&text(x)),
        }
    }
    s
}

/// TeX from presentation MathML, enough to read a formula: `x^{2}`, `\\frac{a}{b}`,
/// `\\sqrt{x}`, `\\sum_{k=1}^{n}`; other elements are their parts in order.
fn from_mathml(e: &Element) -> String {
    let parts: Vec<String> = e
        .children
        .iter()
        .filter_map(|c| match c {
            Node::Element(x) if x.name.starts_with("annotation") => None,
            Node::Element(x) => Some(from_mathml(x)),
            Node::Text(t) => Some(collapse(t)),
        })
        .filter(|p| !p.is_empty())
        .collect();
    let arg = |k: usize| parts.get(k).map_or("", String::as_str);
    match e.name.as_str() {
        "msup" => format!("{}^{{{}}}", arg(0), arg(1)),
        "msub" => format!("{}_{{{}}}", arg(0), arg(1)),
        "msubsup" | "munderover" => format!("{}_{{{}}}^{{{}}}", arg(0), arg(1), arg(2)),
        "munder" => format!("{}_{{{}}}", arg(0), arg(1)),
        "mover" => format!("\\overset{{{}}}{{{}}}", arg(1), arg(0)),
        "mfrac" => format!("\\frac{{{}}}{{{}}}", arg(0), arg(1)),
        "msqrt" => format!("\\sqrt{{{}}}", parts.join(" ")),
        "mroot" => format!("\\sqrt[{}]{{{}}}", arg(1), arg(0)),
        "mtable" => parts.join(" \\\\ "),
        "mtr" | "mlabeledtr" => parts.join(" & "),
        _ => parts.join(" "),
    }
}

/// White space runs as one space; a `{\displaystyle …}` wrapper (Wikipedia's) removed.
fn collapse(t: &str) -> String {
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    match t
        .strip_prefix("{\\displaystyle ")
        .and_then(|r| r.strip_suffix('}'))
    {
        Some(inner) => inner.trim().to_string(),
        None => t,
    }
}
