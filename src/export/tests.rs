use super::*;

fn transcript(lines: &[&str]) -> Transcript {
    let mut t = Transcript {
        session: "s<1>".into(),
        project: "-tmp-p".into(),
        exported_at: "2026-01-01T00:00:00Z".into(),
        ..Transcript::default()
    };
    for l in lines {
        add_message(&mut t.turns, &serde_json::from_str(l).unwrap());
    }
    t
}

const LINES: [&str; 5] = [
    r#"{"role":"user","content":"Fix **this** <script>alert(1)</script>"}"#,
    r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Running `ls`."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}"#,
    r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb"}]}"#,
    r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text":"Done: see ![x](http://evil/x.png) and [y](javascript:alert(1))"}]}"#,
    r#"{"role":"user","content":"second"}"#,
];

#[test]
fn messages_become_turns_with_results_attached() {
    let t = transcript(&LINES);
    assert_eq!(t.turns.len(), 2);
    assert_eq!(t.turns[0].n, 1);
    assert_eq!(t.turns[1].n, 2);
    let c = &t.turns[0].replies[0].calls[0];
    assert_eq!(c.name, "Bash");
    assert_eq!(c.result.as_deref(), Some("a\nb"));
    assert!(!c.error);
    assert_eq!(t.turns[0].replies.len(), 2);
}

#[test]
fn markdown_keeps_markdown_and_collapses_long_results() {
    let mut t = transcript(&LINES);
    let md = render(&t, Format::Markdown);
    assert!(md.contains("## Turn 1: user\n\nFix **this**"), "{md}");
    assert!(md.contains("**Tool call** `Bash(ls)`"), "{md}");
    assert!(md.contains("Result:\n\n```\na\nb\n```"), "{md}");
    assert!(md.contains("## Usage"), "{md}");
    t.turns[0].replies[0].calls[0].result = Some("x\n".repeat(100) + "```");
    let md = render(&t, Format::Markdown);
    assert!(md.contains("<details><summary>Result (101 lines"), "{md}");
    assert!(
        md.contains("````\nx\n"),
        "a fence longer than the content's: {md}"
    );
}

#[test]
fn html_is_escaped_and_self_contained() {
    let mut t = transcript(&LINES);
    t.turns[0].replies[0].calls[0].result = Some("<b>".repeat(500));
    let h = render(&t, Format::Html);
    assert!(!h.contains("<script"), "{h}");
    assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{h}");
    assert!(h.contains("<strong>this</strong>"), "{h}");
    assert!(h.contains("Session s&lt;1&gt;"), "{h}");
    assert!(!h.contains("<img"), "{h}");
    assert!(!h.contains("javascript:"), "{h}");
    assert!(!h.contains("<b>"), "{h}");
    assert!(h.contains("<details><summary>Result (1 lines"), "{h}");
    for needle in ["<link", "src=", "@import", "url("] {
        assert!(!h.contains(needle), "{needle}");
    }
}

#[test]
fn json_has_the_documented_shape() {
    let t = transcript(&LINES);
    let v: Value = serde_json::from_str(&render(&t, Format::Json)).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "format",
            "version",
            "session",
            "project",
            "exported_at",
            "archived_messages",
            "skipped_lines",
            "turns",
            "usage",
            "sub_sessions"
        ]
    );
    assert_eq!(v["format"], "bash-agent-transcript");
    assert_eq!(
        v["turns"][0]["replies"][0]["tool_calls"][0]["result"],
        "a\nb"
    );
    assert_eq!(v["turns"][0]["replies"][0]["thinking"], "hmm");
    assert_eq!(v["usage"]["calls"], 0);
}

#[test]
fn formats_parse() {
    assert_eq!(Format::parse("md"), Some(Format::Markdown));
    assert_eq!(Format::parse("HTML"), Some(Format::Html));
    assert_eq!(Format::parse("pdf"), None);
    assert_eq!(
        Format::from_path(std::path::Path::new("a/t.json")),
        Some(Format::Json)
    );
}
