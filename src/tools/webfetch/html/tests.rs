//! Whole conversions: markup in, markdown out.
use super::to_markdown as md;

#[test]
fn headings_paragraphs_and_inline_marks() {
    assert_eq!(
        md("<h1>Title</h1><p>Some <b>bold</b>, <em> spaced </em>and <code>x()</code>.</p><h3>Sub <i>it</i></h3>"),
        "# Title\n\nSome **bold**, *spaced* and `x()`.\n\n### Sub *it*"
    );
    assert_eq!(md("<p>a\n   b\t c</p>\n\n<p>  d  </p>"), "a b c\n\nd");
    assert_eq!(md("<p>one<br>two<br/>three</p>"), "one  \ntwo  \nthree");
    assert_eq!(
        md("<s>old</s> <code>a`b</code> <code>`</code>"),
        "~~old~~ ``a`b`` `` ` ``"
    );
    assert_eq!(md("x<hr>y"), "x\n\n---\n\ny");
}

#[test]
fn links_and_images() {
    assert_eq!(
        md("<p>See <a href=\"/doc\" title=\"The doc\">the doc</a> and <a href='x y.html'> spaced </a>.</p>"),
        "See [the doc](/doc \"The doc\") and [spaced](x%20y.html) ."
    );
    assert_eq!(
        md("<a href=\"#\"></a><a>no href</a> <a href=\"javascript:void(0)\">js</a>"),
        "no href js"
    );
    assert_eq!(
        md("<img src=\"/p.png\" alt=\"A [cat]\"> <img src=\"data:image/png;base64,AAAA\" alt=\"inline\">"),
        "![A cat](/p.png) inline"
    );
    assert_eq!(
        md("<a href=\"/h\"><img src=\"i.png\" alt=\"logo\"></a>"),
        "[![logo](i.png)](/h)"
    );
}

#[test]
fn lists_nested_ordered_and_loose_markup() {
    assert_eq!(md("<ul><li>one<li>two</ul>"), "- one\n- two");
    assert_eq!(
        md("<ol start=\"3\"><li>three</li><li>four<ul><li>sub a</li><li>sub b</li></ul></li></ol><p>after</p>"),
        "3. three\n4. four\n   - sub a\n   - sub b\n\nafter"
    );
    assert_eq!(
        md("<ul><li><p>para one</p><p>para two</p></li></ul>"),
        "- para one\n  \n  para two".replace("\n  \n", "\n\n")
    );
    assert_eq!(
        md("<dl><dt>Term</dt><dd>Meaning</dd></dl>"),
        "**Term**\n: Meaning"
    );
}

#[test]
fn quotes_and_code_blocks() {
    assert_eq!(
        md("<blockquote><p>a</p><p>b</p></blockquote>"),
        "> a\n>\n> b"
    );
    assert_eq!(
        md("<pre><code class=\"language-rust\">fn main() {\n    let a = 1 &lt; 2;\n}\n</code></pre>"),
        "```rust\nfn main() {\n    let a = 1 < 2;\n}\n```"
    );
    assert_eq!(md("<pre>a ``` b</pre>"), "````\na ``` b\n````");
    assert_eq!(
        md("<ul><li>x<pre>code\n  more</pre></li></ul>"),
        "- x\n  \n  ```\n  code\n    more\n  ```".replace("\n  \n", "\n\n")
    );
}

#[test]
fn tables_data_and_layout() {
    assert_eq!(
        md("<table><caption>Prices</caption><tr><th>Name</th><th>Cost</th></tr><tr><td>a|b</td><td><b>1</b></td></tr><tr><td>c</td></tr></table>"),
        "Prices\n\n| Name | Cost |\n| --- | --- |\n| a\\|b | **1** |\n| c |  |"
    );
    assert_eq!(
        md("<table><tr><td><h2>Layout</h2><p>text</p></td></tr></table>"),
        "## Layout\n\ntext"
    );
}

#[test]
fn non_content_is_dropped_and_entities_decoded() {
    let page = "<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head><body>\
        <script>document.write('<p>no</p>')</script><noscript>enable js</noscript>\
        <p>Caf&eacute; &amp; cr&egrave;me &mdash; 5 &lt; 6&nbsp;!</p><div hidden>secret</div>\
        <svg><text>drawn</text></svg></body></html>";
    assert_eq!(md(page), "Café & crème — 5 < 6\u{a0}!");
}

#[test]
fn every_kind_of_named_reference_decodes() {
    // html5gum's entity table (upstream's, restored in the vendored copy): the first entry, the last, a name without its semicolon (longest match first: `&notin;`
    // over `&not`), two-character values and references the table does not hold.
    assert_eq!(
        md("<p>&AElig;|&zwnj;|&notin;|&not x|&ngE;|&fjlig;|&copy2024|&nosuch;|&#x41;&#66;</p>"),
        "Æ|\u{200c}|∉|¬ x|≧\u{338}|fj|©2024|&nosuch;|AB"
    );
}

#[test]
fn broken_markup_still_reads() {
    assert_eq!(
        md("<p>unclosed <b>bold<p>next</div></span>"),
        "unclosed **bold**\n\nnext"
    );
    assert_eq!(md("a < b > c <3 <!-- gone --> d"), "a < b > c <3 d");
    assert_eq!(md(""), "");
    let deep = "<div><ul><li>".repeat(3000) + "deep";
    assert!(md(&deep).ends_with("deep"));
    let _ = md("<table><td>x<tr><th>");
    let _ = md("<pre>");
}

#[test]
fn text_outside_the_cells_makes_a_table_layout() {
    // Found by the fuzz loop: a grid would have dropped the words that are not in a cell.
    assert_eq!(
        md("<table>before <tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"),
        "before\na\nb\nc\nd"
    );
}

#[test]
fn a_spent_budget_stops_the_conversion() {
    use super::{to_markdown_within, Budget};
    use crate::util::cancel::Cancel;
    let page = "<p>words</p>".repeat(2000);
    let ok = to_markdown_within(&page, &Budget::default());
    assert!(ok.is_some_and(|m| m.starts_with("words")));
    let past = Budget {
        deadline: Some(std::time::Instant::now()),
        cancel: None,
    };
    assert_eq!(to_markdown_within(&page, &past), None);
    let c = Cancel::new();
    c.cancel();
    let cancelled = Budget {
        deadline: None,
        cancel: Some(c),
    };
    assert_eq!(to_markdown_within(&page, &cancelled), None);
}

#[test]
fn many_attributes_and_deep_lists_stay_cheap() {
    let mut p = String::from("<p");
    for i in 0..50_000 {
        p.push_str(&format!(" a{i}=\"v\" b{i}=w"));
    }
    p.push_str(" href=x>after</p>");
    assert_eq!(md(&p), "after");
    let d = super::parse::parse(&"<ul><li>x".repeat(150_000), &Default::default()).unwrap();
    fn count(e: &super::parse::Element) -> usize {
        1 + e
            .children
            .iter()
            .map(|c| match c {
                super::parse::Node::Element(x) => count(x),
                super::parse::Node::Text(_) => 0,
            })
            .sum::<usize>()
    }
    assert!(count(&d) <= super::parse::MAX_ELEMENTS + 1);
    // Past the cap, a script's text is still not content.
    let page = "<i>".repeat(super::parse::MAX_ELEMENTS) + "a<script>var x</script>b";
    let out = md(&page);
    assert!(
        out.contains("ab") && !out.contains("var"),
        "{}",
        &out[out.len() - 50..]
    );
}

#[test]
fn math_reads_as_tex() {
    assert_eq!(
        md("<p>Area <math alttext=\"\\pi r^2\"><mi>π</mi><msup><mi>r</mi><mn>2</mn></msup></math> ok</p>"),
        "Area $\\pi r^2$ ok"
    );
    // The TeX annotation wins over the alttext; Wikipedia's {\displaystyle …} is unwrapped.
    assert_eq!(
        md("<p>E <math alttext=\"x\"><semantics><mrow><mi>E</mi></mrow><annotation encoding=\"application/x-tex\">{\\displaystyle E=mc^2}</annotation></semantics></math>.</p>"),
        "E $E=mc^2$."
    );
    assert_eq!(
        md("<p>a</p><math display=\"block\" alttext=\"a+b\"><mi>a</mi></math><p>b</p>"),
        "a\n\n$$a+b$$\n\nb"
    );
    // No TeX in the page: written from the MathML.
    assert_eq!(
        md("<p>so <math><mi>x</mi><mo>=</mo><mfrac><mrow><mo>-</mo><mi>b</mi></mrow><msqrt><msup><mi>b</mi><mn>2</mn></msup></msqrt></mfrac></math>.</p>"),
        "so $x = \\frac{- b}{\\sqrt{b^{2}}}$."
    );
}

#[test]
fn noembed_and_hidden_content_is_dropped() {
    assert_eq!(
        md("<p>a</p><noembed><p>inner <b>x</b></p></noembed><noframes>f<b>r</b></noframes><p>b</p>"),
        "a\n\nb"
    );
    assert_eq!(
        md("<p>a</p><div style=\"display: none\">h1</div><p hidden>h2</p><span style='color:red; DISPLAY : NONE !important'>h3</span><span style=\"display:inline\">c</span>"),
        "a\n\nc"
    );
}

#[test]
fn a_one_row_layout_table_is_its_content() {
    assert_eq!(
        md("<table><tr><td class=nav>menu</td><td><h1>T</h1><p>para</p><ul><li>one</li><li>two</li></ul></td></tr></table>"),
        "menu\n\n# T\n\npara\n\n- one\n- two"
    );
    // Two rows of two cells are still data.
    assert_eq!(
        md("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"),
        "| a | b |\n| --- | --- |\n| 1 | 2 |"
    );
}

#[test]
fn links_inside_pre_keep_their_targets() {
    assert_eq!(
        md("<pre>see <a href=\"http://x.y/z\">this</a> and <a href=\"#s1\">1</a>, <a href=\"http://x.y/z\">again</a></pre>"),
        "```\nsee this and 1, again\n```\n\n- [this](http://x.y/z)"
    );
}
