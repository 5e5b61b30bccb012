//! HTML to markdown with the `htmd` crate (a turndown.js port on html5ever, the HTML
//! parser of Servo: real-world markup, broken or not, parses as a browser would).
//! Scripts, styles and other non-content elements are dropped.

/// Elements whose content is not text for a reader.
const SKIP: [&str; 8] = [
    "script", "style", "noscript", "template", "svg", "iframe", "head", "canvas",
];

/// The page as markdown; a conversion error (htmd reports none for bad markup, only for
/// I/O inside the parser) falls back to the raw text.
pub fn html_to_markdown(html: &str) -> String {
    let conv = htmd::HtmlToMarkdown::builder()
        .skip_tags(SKIP.to_vec())
        .build();
    match conv.convert(html) {
        Ok(md) => md,
        Err(_) => html.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_go_links_stay() {
        let md = html_to_markdown(
            "<html><head><title>t</title><script>var x=1</script></head><body><h2>Sub</h2><a href=\"/a\">link</a><style>p{}</style><ul><li>one</li></ul></body></html>",
        );
        assert!(md.contains("## Sub"), "{md}");
        assert!(md.contains("[link](/a)"), "{md}");
        assert!(!md.contains("var x"), "{md}");
        assert!(!md.contains("p{}"), "{md}");
        assert!(md.contains("one"), "{md}");
    }
}
