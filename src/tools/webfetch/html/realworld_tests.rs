//! The converter on Mozilla Readability's test pages (`../shared/realworld/readability-pages`,
//! PROVENANCE.txt there: real sites saved by Readability's maintainers). Read in place, never
//! copied; without the folder each test says so on stderr and passes.
use super::to_markdown as md;
use std::path::PathBuf;

/// The page's `source.html`, or `None` (said loudly) when the shared folder is absent.
fn page(name: &str) -> Option<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/realworld/readability-pages")
        .join(name);
    match std::fs::read_to_string(dir.join("source.html")) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!(
                "SKIPPED: {} not readable ({e}): the Readability pages are not here",
                dir.display()
            );
            None
        }
    }
}

#[test]
fn wikipedia_equations_stay_as_tex() {
    let Some(html) = page("wikipedia-3") else {
        return;
    };
    let m = md(&html);
    // Its formulas are images whose alt text is TeX (the MathML beside them is hidden with
    // `display: none`): each becomes `$…$`, none is an image of TeX or vanishes.
    assert!(
        m.matches('$').count() >= 2 * 30,
        "{}",
        m.matches('$').count()
    );
    assert!(
        m.contains("$A{\\text{ Hermitian}}\\quad \\iff \\quad a_{ij}={\\overline {a_{ji}}}$"),
        "{m}"
    );
    assert!(!m.contains("{\\displaystyle") && !m.contains("media/math/render"));
}

#[test]
fn mathjax_formulas_are_kept() {
    let Some(html) = page("mathjax") else {
        return;
    };
    let m = md(&html);
    // MathJax's assistive MathML has no TeX: the formula's symbols in order.
    assert!(m.contains("$a ≠ 0$"), "{m}");
    assert!(m.contains("a x^{2} + b x + c = 0"), "{m}");
}

#[test]
fn buzzfeeds_noembed_template_does_not_leak() {
    let Some(html) = page("buzzfeed-1") else {
        return;
    };
    let m = md(&html);
    assert!(!m.contains("#{img_src}") && !m.contains("pin_img"), "{m}");
}

#[test]
fn jwzs_one_row_table_is_an_article_with_its_list() {
    let Some(html) = page("table-style-attributes") else {
        return;
    };
    let m = md(&html);
    assert!(
        m.contains("\n- \"Right on! I had exactly the same experience!"),
        "{m}"
    );
    assert!(!m.lines().any(|l| l.starts_with("| ")), "{m}");
}

#[test]
fn ietf_preformatted_links_keep_their_targets() {
    let Some(html) = page("ietf-1") else {
        return;
    };
    let m = md(&html);
    assert!(
        m.contains("](http://datatracker.ietf.org/drafts/current/)"),
        "{m}"
    );
}

#[test]
fn nytimes_display_none_campaign_text_is_dropped() {
    let Some(html) = page("nytimes-1") else {
        return;
    };
    let m = md(&html);
    assert!(!m.contains("Campaign ID: 285217"), "{m}");
}
