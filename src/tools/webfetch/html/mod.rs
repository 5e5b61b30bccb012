//! HTML to markdown for WebFetch: a forgiving reader ([`parse`]) and a CommonMark/GFM
//! writer ([`render`], [`table`]).
//!
//! Written here rather than taken from a crate: the converters on crates.io sit on html5ever,
//! whose tables of named entities and element names are tables of pointers that the dynamic
//! loader rewrites at the start of every run of the agent, about a third of the relocations
//! of the whole binary, for a tool most runs never call (docs/performance.md, "Start-up").
//! This one keeps its entity table as text, read when a page first needs it.
mod entities;
mod parse;
mod render;
mod table;

/// The page as markdown: scripts, styles, `<head>` and other non-content elements dropped.
pub fn to_markdown(html: &str) -> String {
    let doc = parse::parse(html);
    let mut out = render::Out::default();
    render::children(&doc, &mut out);
    out.finish()
}

#[cfg(test)]
mod tests;
