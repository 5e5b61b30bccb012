//! Tables as GFM pipe tables: the first row is the header (markdown needs one), every row
//! padded to the widest. A table used for page layout (one column, one row, a table inside a
//! cell, or text outside the cells) is not data: its parts are rendered as blocks, in order.
use super::parse::{Element, Node};
use super::render::{children, inline_text, Out};

pub fn table(e: &Element, out: &mut Out) {
    let mut rows: Vec<&Element> = Vec::new();
    let mut caption = None;
    for c in elements(e) {
        match c.name.as_str() {
            "tr" => rows.push(c),
            "thead" | "tbody" | "tfoot" => rows.extend(elements(c).filter(|r| r.name == "tr")),
            "caption" => caption = Some(inline_text(c)),
            _ => {}
        }
    }
    let width = rows.iter().map(|r| cells(r).len()).max().unwrap_or(0);
    // One row is no data table (markdown would make it a header over nothing): it lays out
    // a page, often the whole article in a cell, lists and all.
    let layout = width <= 1
        || rows.len() <= 1
        || rows.iter().flat_map(|r| cells(r)).any(has_table)
        || stray_content(
            e,
            &[
                "tr", "thead", "tbody", "tfoot", "caption", "colgroup", "col",
            ],
        )
        || rows.iter().any(|r| stray_content(r, &["td", "th"]));
    if out.is_inline() || layout {
        // Not data: every part in document order, cells as blocks (render.rs).
        return children(e, out);
    }
    let line = |texts: Vec<String>| format!("| {} |", texts.join(" | "));
    let mut lines = Vec::with_capacity(rows.len() + 2);
    if let Some(c) = caption.filter(|c| !c.is_empty()) {
        out.write_lines(&[c]);
    }
    for (k, r) in rows.iter().enumerate() {
        let mut texts: Vec<String> = cells(r)
            .iter()
            .map(|c| inline_text(c).replace('|', "\\|"))
            .collect();
        texts.resize(width, String::new());
        lines.push(line(texts));
        if k == 0 {
            lines.push(line(vec!["---".to_string(); width]));
        }
    }
    out.write_lines(&lines);
}

fn elements(e: &Element) -> impl Iterator<Item = &Element> {
    e.children.iter().filter_map(|c| match c {
        Node::Element(x) => Some(x),
        Node::Text(_) => None,
    })
}

fn cells(row: &Element) -> Vec<&Element> {
    elements(row)
        .filter(|c| c.name == "td" || c.name == "th")
        .collect()
}

/// Whether `e` holds text or elements other than `allowed` (a row section's rows included):
/// content a browser would show outside the grid.
fn stray_content(e: &Element, allowed: &[&str]) -> bool {
    e.children.iter().any(|c| match c {
        Node::Text(t) => !t.trim_ascii().is_empty(),
        Node::Element(x) if ["thead", "tbody", "tfoot"].contains(&x.name.as_str()) => {
            stray_content(x, &["tr"])
        }
        Node::Element(x) => !allowed.contains(&x.name.as_str()),
    })
}

fn has_table(e: &Element) -> bool {
    elements(e).any(|c| c.name == "table" || has_table(c))
}
