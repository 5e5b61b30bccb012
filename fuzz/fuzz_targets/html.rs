//! WebFetch's HTML to markdown conversion. Invariants: no panic (nor hang: libFuzzer's
//! timeout), and text without `<` or `&` comes out as its words with single spaces.
#![no_main]
use bash_agent::tools::webfetch::html_to_markdown;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    let md = html_to_markdown(&html);
    if !html.contains(['<', '&']) {
        let words: Vec<&str> = html.split_ascii_whitespace().collect();
        assert_eq!(md, words.join(" "));
    }
});
