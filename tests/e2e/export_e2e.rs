//! `bash-agent export` through the real binary: a session made by the scripted model (a
//! markdown answer, a Bash call with a long output) exported as markdown on stdout, as one
//! self-contained HTML file with `-o` (format from the extension), and as JSON of the
//! documented shape; the latest session by default; bad input exits 2 with a clear error.
use crate::support::*;

fn make_session(env: &Env, sid: &str) {
    let script = r#"[
      {"tool_calls": [{"name": "Bash", "id": "b1", "input": {"command": "seq 1 200"}}],
       "text": "Let me count.", "usage": {"input": 100, "output": 20}},
      {"text": "Counted to **200**.\n\n- done <b>raw</b>", "usage": {"input": 150, "output": 10}},
      {"text": "again", "repeat": true, "usage": {"input": 1, "output": 1}}
    ]"#;
    let mock = Mock::start(script);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", sid, "count please"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn export_formats_and_errors() {
    let env = Env::new();
    make_session(&env, "ex");

    // Markdown on stdout by default, the latest session without --session.
    let out = env.run(&["export"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.starts_with("# Session ex\n"), "{md}");
    assert!(md.contains("## Turn 1: user\n\ncount please"), "{md}");
    assert!(md.contains("Let me count."), "{md}");
    assert!(md.contains("**Tool call** `Bash(seq 1 200)`"), "{md}");
    assert!(md.contains("<details><summary>Result (200 lines"), "{md}");
    assert!(md.contains("Counted to **200**."), "{md}");
    assert!(md.contains("## Usage"), "{md}");
    assert!(md.contains("| 2 | 250 | 30 |"), "{md}");

    // HTML to a file, the format from the extension; atomically written, nothing else left.
    let out = env.run(&["export", "--session", "ex", "-o", "t.html"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("to "), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    let h = std::fs::read_to_string(env.cwd.join("t.html")).unwrap();
    assert!(h.starts_with("<!DOCTYPE html>"));
    assert!(h.contains("<strong>200</strong>"), "{h}");
    assert!(h.contains("&lt;b&gt;raw&lt;/b&gt;"), "{h}");
    assert!(h.contains("<details><summary>Result (200 lines"), "{h}");
    for bad in ["<script", "<link", "<img", "src=", "url(", "@import"] {
        assert!(!h.contains(bad), "{bad} in {h}");
    }
    let names: Vec<String> = std::fs::read_dir(&env.cwd)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["t.html"]);

    // JSON: the documented shape.
    let out = env.run(&["export", "--session", "ex", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["format"], "bash-agent-transcript");
    assert_eq!(v["version"], 1);
    assert_eq!(v["session"], "ex");
    assert_eq!(v["turns"][0]["n"], 1);
    assert_eq!(v["turns"][0]["prompt"], "count please");
    let call = &v["turns"][0]["replies"][0]["tool_calls"][0];
    assert_eq!(call["name"], "Bash");
    assert_eq!(call["input"]["command"], "seq 1 200");
    assert!(call["result"].as_str().unwrap().ends_with("200"));
    assert_eq!(call["error"], false);
    assert_eq!(v["usage"]["input_tokens"], 250);
    assert_eq!(v["usage"]["output_tokens"], 30);

    // Bad input: exit 2, a clear error, nothing written.
    let out = env.run(&["export", "--session", "nope"]);
    expect_code(&out, 2);
    assert!(
        stderr(&out).contains("Error: session not found: nope"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["export", "--format", "pdf", "-o", "x.pdf"]);
    expect_code(&out, 2);
    assert!(
        stderr(&out).contains("unknown export format \"pdf\""),
        "{}",
        stderr(&out)
    );
    assert!(!env.cwd.join("x.pdf").exists());
    let out = env.run(&["export", "--session", "../x"]);
    expect_code(&out, 2);
    let empty = env.other_cwd("empty");
    let out = env.run_in(&empty, &["export"]);
    expect_code(&out, 2);
    assert!(
        stderr(&out).contains("no session to export"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn export_includes_compacted_turns_and_marks_errors() {
    let env = Env::new();
    let s = env.session("c");
    std::fs::write(
        s.archive(),
        concat!(
            "{\"role\":\"user\",\"content\":\"first, compacted\"}\n",
            "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"\"},{\"type\":\"text\",\"text\":\"old answer\"},{\"type\":\"tool_use\",\"id\":\"r1\",\"name\":\"Read\",\"input\":{\"path\":\"gone.txt\"}}]}\n",
            "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"r1\",\"content\":\"Error: file not found: gone.txt\"}]}\n",
        ),
    )
    .unwrap();
    std::fs::write(
        s.conversation(),
        concat!(
            "{\"role\":\"user\",\"content\":\"second\"}\n",
            "not json\n",
            "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"\"},{\"type\":\"text\",\"text\":\"new answer\"}]}\n",
        ),
    )
    .unwrap();
    let before = std::fs::read(s.conversation()).unwrap();
    let out = env.run(&["export", "--session", "c", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["archived_messages"], 3);
    assert_eq!(v["skipped_lines"], 1);
    assert_eq!(v["turns"][0]["prompt"], "first, compacted");
    assert_eq!(v["turns"][1]["n"], 2);
    assert_eq!(v["turns"][1]["replies"][0]["text"], "new answer");
    let call = &v["turns"][0]["replies"][0]["tool_calls"][0];
    assert_eq!(call["error"], true);
    let md = stdout(&env.run(&["export", "--session", "c"]));
    assert!(md.contains("3 messages were compacted"), "{md}");
    assert!(md.contains("Error:\n\n```\nError: file not found"), "{md}");
    assert!(md.contains("## Turn 2: user\n\nsecond"), "{md}");
    // Export only reads.
    assert_eq!(std::fs::read(s.conversation()).unwrap(), before);
}

/// Issue 34 item 5: no string of a session breaks out of the place the markdown transcript
/// gives it. A Write whose path holds blank lines, raw HTML and a `#` line, a Bash command
/// with backticks and newlines, a prompt and an answer with raw HTML, an image and an open
/// fence: parsed back with a CommonMark reader, the only headings are the transcript's own
/// and the only raw HTML is its own `<details>`; each label is one code span.
#[test]
fn markdown_export_keeps_every_session_string_in_its_place() {
    let env = Env::new();
    let path = "p\n\n<img src=x onerror=alert(1)>\n\n# PWNED-PATH\n\n.txt";
    let command = "echo `x` ``y``\n\n# PWNED-CMD\n<img src=y onerror=alert(2)>";
    let script = serde_json::json!([
        {"tool_calls": [
            {"name": "Write", "id": "w1", "input": {"path": path, "content": "c\n"}},
            {"name": "Bash", "id": "b1", "input": {"command": command}}
        ]},
        {"text": "Done <img src=z onerror=alert(3)> ![i](http://127.0.0.1:9/x.png)\n\n</details>\n\n```\nopen fence"},
        {"text": "again", "repeat": true}
    ]);
    let mock = Mock::start(&script.to_string());
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[
            "--session",
            "esc",
            "hi <script>alert(4)</script>\n\n# PWNED-PROMPT-HEADING?",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = env.run(&["export", "--session", "esc"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut headings = Vec::new();
    let mut in_heading = false;
    let mut spans = Vec::new();
    let mut images = 0;
    for ev in Parser::new_ext(&md, Options::all()) {
        match ev {
            Event::Start(Tag::Heading { .. }) => {
                in_heading = true;
                headings.push(String::new());
            }
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Text(t) | Event::Code(t) if in_heading => {
                headings.last_mut().unwrap().push_str(&t)
            }
            Event::Code(t) => spans.push(t.to_string()),
            Event::Html(h) | Event::InlineHtml(h) => {
                let ok = ["<details><summary>", "</details>", "</summary>"]
                    .iter()
                    .any(|p| h.trim_start().starts_with(p));
                assert!(ok, "raw HTML from the session: {h:?}\n{md}");
            }
            Event::Start(Tag::Image { .. }) => images += 1,
            _ => {}
        }
    }
    // The prompt's own `# …` line is markdown the person typed (kept); nothing else adds one.
    for h in &headings {
        assert!(
            h.starts_with("Session")
                || h.starts_with("Turn ")
                || h == "Assistant"
                || h == "Usage"
                || h == "PWNED-PROMPT-HEADING?",
            "a heading from a session string: {h:?}\n{md}"
        );
    }
    assert!(!headings
        .iter()
        .any(|h| h.contains("PWNED-PATH") || h.contains("PWNED-CMD")));
    assert_eq!(images, 0, "{md}");
    assert!(
        spans
            .iter()
            .any(|s| s.starts_with("Write(p\\n\\n<img src=x onerror")),
        "{spans:?}\n{md}"
    );
    assert!(
        spans
            .iter()
            .any(|s| s.starts_with("Bash(echo `x` ``y``") && s.contains("PWNED-CMD")),
        "{spans:?}\n{md}"
    );
    // The open fence of the answer is closed: the usage table after it is a table.
    assert!(md.contains("## Usage"), "{md}");
    let usage_is_heading = headings.iter().any(|h| h == "Usage");
    assert!(usage_is_heading, "{md}");
}
