use super::*;
use crate::agent::status_line::TAIL_LINES;

#[test]
fn status_line_and_tool_tail() {
    let mut p = Progress {
        phase: Some(Phase::Tool("Bash(make)".into())),
        bytes: 9,
        ..Default::default()
    };
    p.tool_output(b"one\ntwo\nthree\nfour\nfive\nsix\r\nhalf");
    let lines = p.status(0, false, false);
    assert_eq!(lines.len(), TAIL_LINES + 1);
    assert_eq!(lines[0], "  four");
    assert_eq!(lines[3], "  half");
    assert!(lines[4].contains("running Bash(make)… (0s · ↓ 3 tokens · esc to interrupt)"));
    assert_eq!(p.status(0, false, true), ["? waiting for your answer (0s)"]);
    p.phase = Some(Phase::Children(2));
    assert_eq!(
        p.status(0, false, false),
        ["⠋ waiting for 2 sub-agents or background tasks… (0s)"]
    );
}
