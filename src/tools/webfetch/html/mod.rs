//! HTML to markdown for WebFetch: a tree built from html5gum's tokens ([`parse`]) and a
//! CommonMark/GFM writer ([`render`], [`table`]).
//!
//! html5gum rather than html5ever: it is a maintained, fuzzed WHATWG tokenizer without
//! dependencies, and its emitter hands over attributes one by one, so a tag with 300,000 of
//! them is read in linear time with only the first few kept (html5ever checks each new
//! attribute against all earlier ones: quadratic), and the tokens come one at a time, so the
//! conversion looks at its time limit and the cancel flag as it goes. html5ever's entity and
//! element-name tables were also a third of the binary's relocations at every start
//! (docs/performance.md, "Start-up"); html5gum's is upstream's (vendor/README.md).
mod budget;
mod math;
mod parse;
mod render;
mod spans;
mod table;

pub use budget::Budget;

/// The page as markdown: scripts, styles, `<head>` and other non-content elements dropped.
pub fn to_markdown(html: &str) -> String {
    to_markdown_within(html, &Budget::default()).unwrap_or_default()
}

/// [`to_markdown`], stopped (`None`) when `budget` runs out.
pub fn to_markdown_within(html: &str, budget: &Budget) -> Option<String> {
    let doc = parse::parse(html, budget)?;
    budget::document(&doc, budget)
}

#[cfg(test)]
mod realworld_tests;
#[cfg(test)]
mod tests;
