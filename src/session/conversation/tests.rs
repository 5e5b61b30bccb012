//! Unit tests of conversation.jsonl: shapes, repair, the tail read from the end.
use super::*;

#[test]
fn shapes() {
    assert_eq!(user_text_line("hi"), r#"{"role":"user","content":"hi"}"#);
    let t = ToolUse {
        id: "toolu_1_2".into(),
        name: "Read".into(),
        input_raw: r#"{"path": "notes.txt"}"#.into(),
    };
    assert_eq!(
        assistant_line(
            "I should look at the notes first.",
            "Reading the notes.",
            &[t]
        ),
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"I should look at the notes first."},{"type":"text","text":"Reading the notes."},{"type":"tool_use","id":"toolu_1_2","name":"Read","input":{"path": "notes.txt"}}]}"#
    );
    assert_eq!(
        tool_results_line(&[("toolu_1_2".into(), "alpha\nbeta".into())]),
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1_2","content":"alpha\nbeta"}]}"#
    );
}

#[test]
fn repair_adds_missing_results() {
    let t = ToolUse {
        id: "a".into(),
        name: "Bash".into(),
        input_raw: "{}".into(),
    };
    let lines = vec![
        user_text_line("x"),
        assistant_line("", "", &[t]),
        user_text_line("y"),
    ];
    let fixed = repair(lines);
    assert_eq!(fixed.len(), 4);
    assert!(fixed[2].contains("\"tool_use_id\":\"a\""));
    assert!(is_user_turn_line(&fixed[3]));
    assert!(!is_user_turn_line(&fixed[2]));
}

#[test]
fn load_drops_dangling_tail_and_merges_user_turns() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("conversation.jsonl");
    let t = ToolUse {
        id: "w1".into(),
        name: "Write".into(),
        input_raw: "{}".into(),
    };
    let a = assistant_line("", "ok", &[]);
    append_lines(
        &p,
        &[
            user_text_line("first"),
            a.clone(),
            user_text_line("second"),
            assistant_line("", "", &[t]),
        ],
    )
    .unwrap();
    append_lines(&p, &[user_text_line("third")]).unwrap();
    let got = message_lines(&p);
    assert_eq!(
        got,
        vec![
            user_text_line("first"),
            a,
            user_text_line("second\n\nthird")
        ]
    );
    // One user turn at the end stays as it is.
    let one = vec![user_text_line("x")];
    assert_eq!(merge_trailing_user_turns(one.clone()), one);
}

#[test]
fn last_line_reads_from_the_end() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("c.jsonl");
    assert_eq!(last_line(&p), None);
    std::fs::write(&p, "").unwrap();
    assert_eq!(last_line(&p), None);
    std::fs::write(&p, "\n\n").unwrap();
    assert_eq!(last_line(&p), None);
    std::fs::write(&p, "only\n").unwrap();
    assert_eq!(last_line(&p), Some((0, "only".into())));
    let long = "x".repeat(200_000);
    std::fs::write(&p, format!("a\n{long}\n\n")).unwrap();
    assert_eq!(last_line(&p), Some((2, long.clone())));
    let pad = "\n".repeat(70_000);
    std::fs::write(&p, format!("{long}\nlast{pad}")).unwrap();
    assert_eq!(last_line(&p), Some((200_001, "last".into())));
}

#[test]
fn last_output() {
    let lines = vec![assistant_line("t1", "a", &[]), assistant_line("", "b", &[])];
    assert_eq!(last_assistant_output(&lines), (String::new(), "b".into()));
}

/// A session over the two-thread threshold, with lines each reader treats differently
/// (corrupt, blank, CRLF, invalid UTF-8, escapes and numbers the quick read declines, a
/// line longer than the read buffer, no final newline): the same lines and facts as a
/// plain line-by-line read with the full parse.
#[test]
fn long_file_reads_as_line_by_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("conversation.jsonl");
    let mut text: Vec<u8> = Vec::new();
    for i in 0..6000 {
        let l = match i % 9 {
            0 => format!(
                r#"{{"role":"user","content":"step {i} {}"}}"#,
                "p".repeat(200)
            ),
            1 => format!(r#"{{"role":"user","content":"bad {i}""#),
            2 => "   \t".to_string(),
            3 => format!("{{\"role\":\"user\",\"content\":\"crlf {i}\"}}\r"),
            4 => format!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":"\u00e9 {i}"}},{{"type":"tool_use","id":"t{i}","name":"B","input":{{"n":{i}}}}}]}}"#
            ),
            5 => format!(
                r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{}","content":"r"}}]}}"#,
                i - 1
            ),
            6 => format!(
                r#"{{"role":"user","content":"{}"}}"#,
                "L".repeat(if i == 6 { 600_000 } else { 10 })
            ),
            7 => "{\"role\":\"user\",\"content\":\"\u{fffd}x\"}".to_string(),
            _ => format!(
                r#"{{"role":"assistant","content":[{{"type":"thinking","thinking":""}},{{"type":"text","text":"done {i}"}}]}}"#
            ),
        };
        text.extend_from_slice(l.as_bytes());
        if i % 9 == 7 {
            // Invalid UTF-8 inside the string: read lossily.
            text.extend_from_slice(b"\xff");
        }
        text.push(b'\n');
    }
    text.extend_from_slice(br#"{"role":"user","content":"last, no newline"}"#);
    std::fs::write(&p, &text).unwrap();
    assert!(text.len() > 1 << 20);
    let (lines, metas, bad) = read_with_meta(&p);
    let plain = String::from_utf8_lossy(&text).into_owned();
    let (mut want, mut want_metas, mut want_bad) = (Vec::new(), Vec::new(), 0);
    for l in plain.lines().filter(|l| !l.trim().is_empty()) {
        match line_meta::slow(l) {
            Some(m) if l.trim_start().starts_with('{') => {
                want.push(l.to_string());
                want_metas.push(m);
            }
            _ => want_bad += 1,
        }
    }
    assert_eq!(bad, want_bad);
    assert_eq!(lines.len(), want.len());
    assert!(lines == want);
    assert!(metas == want_metas);
}
