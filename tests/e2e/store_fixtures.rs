//! The shell-written fixture sessions: the store opens, lists and reads every line of them.
use crate::support::*;

#[test]
fn every_fixture_line_reads() {
    let env = Env::new();
    let names = install_fixtures(&env);
    assert!(names.len() >= 6, "{names:?}");
    for n in &names {
        let dir = env.project_dir().join(n);
        let (evs, bad) = bash_agent::session::events::read_all(&dir.join("events.jsonl"));
        assert!(bad.is_empty(), "{n}: {bad:?}");
        assert!(!evs.is_empty());
        let total = std::fs::read_to_string(dir.join("events.jsonl"))
            .unwrap()
            .lines()
            .count();
        assert_eq!(evs.len(), total, "{n}");
        let (conv, bad) =
            bash_agent::session::conversation::read_lines(&dir.join("conversation.jsonl"));
        assert_eq!(bad, 0, "{n}");
        let raw = std::fs::read_to_string(dir.join("conversation.jsonl")).unwrap();
        assert_eq!(
            conv.len(),
            raw.lines().filter(|l| !l.trim().is_empty()).count()
        );
        // Our own line builders reproduce the shell's assistant lines byte for byte.
        for l in &conv {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            if v["role"] == "assistant" {
                let blocks = v["content"].as_array().unwrap();
                let tools: Vec<_> = blocks
                    .iter()
                    .filter(|b| b["type"] == "tool_use")
                    .map(|b| {
                        let raw = l
                            .split(&format!(
                                "\"id\":\"{}\",\"name\":\"{}\",\"input\":",
                                b["id"].as_str().unwrap(),
                                b["name"].as_str().unwrap()
                            ))
                            .nth(1)
                            .unwrap();
                        let input_raw = first_json_value(raw);
                        bash_agent::session::conversation::ToolUse {
                            id: b["id"].as_str().unwrap().into(),
                            name: b["name"].as_str().unwrap().into(),
                            input_raw,
                        }
                    })
                    .collect();
                let rebuilt = bash_agent::session::conversation::assistant_line(
                    blocks[0]["thinking"].as_str().unwrap(),
                    blocks[1]["text"].as_str().unwrap(),
                    &tools,
                );
                assert_eq!(&rebuilt, l, "{n}");
            }
        }
        let stats = bash_agent::session::stats::Stats::load(&dir.join("stats.json"));
        let text = std::fs::read_to_string(dir.join("stats.json")).unwrap();
        if !text.trim().is_empty() {
            assert!(stats.last_updated.ends_with('Z'), "{n}");
        }
    }
}

/// The first complete JSON value at the start of `s` (raw text).
fn first_json_value(s: &str) -> String {
    let mut de = serde_json::Deserializer::from_str(s).into_iter::<serde_json::Value>();
    let _ = de.next();
    s[..de.byte_offset()].to_string()
}

#[test]
fn list_sessions_text_and_json_on_fixtures() {
    let env = Env::new();
    let names = install_fixtures(&env);
    let out = env.cmd().arg("--list-sessions").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!("{:<40} {:<16} {}", "NAME", "MODIFIED", "PREVIEW")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), names.len());
    for r in &rows {
        let name = r.split_whitespace().next().unwrap();
        assert!(names.contains(&name.to_string()));
        assert_eq!(&r[40..41], " ");
        assert!(r[41..57].chars().nth(4) == Some('-'), "{r}");
    }
    let plans = rows.iter().find(|r| r.starts_with("plans ")).unwrap();
    assert!(plans.len() > 58, "plans has a summary preview: {plans}");
    let out = env
        .cmd()
        .args(["--list-sessions", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), names.len());
    let rich = arr.iter().find(|e| e["name"] == "rich").unwrap();
    assert_eq!(rich["turns"], 2);
    assert_eq!(rich["running"], false);
    assert!(rich["last_activity"].as_str().unwrap().contains('T'));
}

#[test]
fn list_sessions_without_project() {
    let env = Env::new();
    let out = env.cmd().arg("--list-sessions").output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "No sessions found.\n"
    );
}
