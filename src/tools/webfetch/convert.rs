//! The page's markdown with its links made absolute (the conversion itself is `super::html`).

/// The page as markdown (see `super::html`).
pub fn html_to_markdown(html: &str) -> String {
    super::html::to_markdown(html)
}

/// Relative link and image targets (`](/a)`, `](b.html)`) made absolute against the page's
/// URL, so the model can fetch a link it reads; absolute, `#fragment` and `mailto:` targets
/// stay as they are.
pub fn absolute_links(md: &str, base: &url::Url) -> String {
    static LINK: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let Some(re) = LINK
        .get_or_init(|| regex::Regex::new(r"\]\(([^()\s]+)((?:\s+\x22[^\x22]*\x22)?)\)").ok())
        .as_ref()
    else {
        return md.to_string();
    };
    re.replace_all(md, |c: &regex::Captures| {
        let target = &c[1];
        let keep = target.starts_with('#') || url::Url::parse(target).is_ok();
        match base.join(target) {
            Ok(abs) if !keep => format!("]({abs}{})", &c[2]),
            _ => c[0].to_string(),
        }
    })
    .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links_become_absolute() {
        let base = url::Url::parse("http://h.org/docs/page.html").unwrap();
        let md = "[a](/x) [b](y.html \"t\") [c](https://o.org/z) [d](#top) ![i](img/p.png)";
        assert_eq!(
            absolute_links(md, &base),
            "[a](http://h.org/x) [b](http://h.org/docs/y.html \"t\") [c](https://o.org/z) [d](#top) ![i](http://h.org/docs/img/p.png)"
        );
    }

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
