//! Replay against the shell reference's fixtures and a few hand-made lines.
use super::*;
use crate::protocol::Event;
use std::path::PathBuf;

/// The display frame of a typed event (ipc's one builder of turn frames).
fn display_frame(e: &Event) -> Frame {
    crate::ipc::display::frame(e).expect("a displayed event")
}

fn fixtures() -> Vec<(PathBuf, PathBuf)> {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shell-sessions/projects");
    let mut v = Vec::new();
    for proj in std::fs::read_dir(&root).expect("fixtures").flatten() {
        for e in std::fs::read_dir(proj.path()).expect("project").flatten() {
            let p = e.path();
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(id) = name.strip_suffix(".expected-replay.resp") {
                v.push((proj.path().join(id).join("events.jsonl"), p.clone()));
            }
        }
    }
    assert!(v.len() >= 7, "fixtures found: {}", v.len());
    v
}

fn encode_all(frames: &[Frame]) -> Vec<u8> {
    frames.iter().flat_map(|f| f.encode()).collect()
}

#[test]
fn reproduces_every_fixture_byte_for_byte() {
    for (events, expected) in fixtures() {
        let want = std::fs::read(&expected).expect("expected");
        let got = encode_all(&replay_frames(&events, 10));
        assert!(got == want, "replay differs for {}", events.display());
    }
}

fn frames_of(line: &str, rich: bool) -> Vec<Frame> {
    let mut v = Vec::new();
    line_frames(line.as_bytes(), rich, &mut |f| v.push(f));
    v
}

#[test]
fn translates_lines() {
    let f = frames_of(
        r#"{"type":"tool_call","name":"X","id":"i","input":{"a" : 1 ,"s":"x\ny"}}"#,
        false,
    );
    assert_eq!(
        f,
        // The byte scanner's frame is the one the typed path builds for the same call.
        vec![display_frame(&Event::tool_call(
            "X",
            "i",
            r#"{"a" : 1 ,"s":"x\ny"}"#,
            None
        ))]
    );
    assert!(frames_of(r#"{"type":"text","content":""}"#, false).is_empty());
    assert!(frames_of(r#"{"type":"text","content":"x"#, false).is_empty());
    assert!(frames_of(
        r#"{"type":"context_update","kind":"compact","trigger":"auto"}"#,
        false
    )
    .is_empty());
    assert_eq!(
        frames_of(
            r#"{"type":"context_update","kind":"compact","trigger":"auto"}"#,
            true
        ),
        vec![display_frame(&Event::context_update("auto"))]
    );
    let long = "é".repeat(150);
    let f = frames_of(
        &format!(r#"{{"type":"tool_result","tool_use_id":"t","name":"Bash","content":"{long}"}}"#),
        false,
    );
    let mut want = long.as_bytes()[..200].to_vec();
    want.extend_from_slice(b"...");
    assert_eq!(f[0].raw(3), &want[..]);
}

#[test]
fn missing_file_replays_nothing() {
    let d = tempfile::tempdir().expect("tmp");
    assert!(replay_frames(&d.path().join("events.jsonl"), 10).is_empty());
    let mut disp = Display::new(false, false);
    let (mut o, mut e) = (Vec::new(), Vec::new());
    assert!(!replay_to_terminal(
        &d.path().join("events.jsonl"),
        10,
        &mut disp,
        &mut o,
        &mut e
    ));
    assert!(o.is_empty() && e.is_empty());
}
