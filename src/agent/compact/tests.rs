//! The `auto` check before every call: the size bound never says "under" for a session
//! whose estimate is over, a session far under is answered from its size, one near the
//! limit still compacts.
use super::*;
use std::path::Path;

/// What [`decide`] estimates for the file, as [`compact`] reads it.
fn estimate(p: &Path) -> u64 {
    let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    raw_lines(&text).iter().map(|l| line_tokens(l)).sum()
}

#[test]
fn three_times_the_size_bounds_the_estimate() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("conversation.jsonl");
    let cases: Vec<Vec<u8>> = vec![
        b"x\ny\nz".to_vec(),
        b"{}\r\n{}\r\n".to_vec(),
        vec![0xff; 1],
        b"\xff\n\xfe\n\x80\x80\x80\n".to_vec(),
        b"  \n\t\n{\"role\":\"user\",\"content\":\"hi\"}\n".to_vec(),
        "é\n€\n\u{1F600}\n".as_bytes().to_vec(),
        b"a\n".repeat(1000),
    ];
    for c in cases {
        std::fs::write(&p, &c).unwrap();
        assert!(estimate(&p) <= 3 * c.len() as u64, "{c:?}");
    }
}

#[test]
fn far_under_skips_near_the_limit_compacts() {
    let d = tempfile::tempdir().unwrap();
    let (conv, stats) = (
        d.path().join("conversation.jsonl"),
        d.path().join("stats.json"),
    );
    let line = format!(
        "{{\"role\":\"user\",\"content\":\"{}\"}}\n",
        "w".repeat(400)
    );
    std::fs::write(&conv, line.repeat(100)).unwrap();
    let size = std::fs::metadata(&conv).unwrap().len();
    let est = estimate(&conv);
    // Far under: 3 × size is under 90 % of the limit, answered from the size.
    assert!(surely_under_limit(&conv, &stats, size * 4));
    // Within 3× of the limit but under it: the scan says under.
    let between = est * 100 / 90 + 100;
    assert!(3 * size > between * 90 / 100);
    assert!(surely_under_limit(&conv, &stats, between));
    // Near the limit (the estimate above 90 % of it): not under, and decide compacts.
    let near = est;
    assert!(!surely_under_limit(&conv, &stats, near));
    let text = std::fs::read_to_string(&conv).unwrap();
    let lines = raw_lines(&text);
    let st = Stats::default();
    let keep = decide(&lines, "auto", false, &st, &DpParams::from_env(), near);
    assert!(keep.is_some_and(|k| k > 0 && k < lines.len()), "{keep:?}");
    // The last call's real count above the limit counts too, whatever the size.
    std::fs::write(&stats, r#"{"current_context_tokens":999999}"#).unwrap();
    assert!(!surely_under_limit(&conv, &stats, size * 4));
}
