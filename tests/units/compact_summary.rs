//! Compaction end to end in-process: real session folders, the scripted model server, the
//! real provider stream. Nothing is lost; failures leave the folder byte-identical.

use crate::support::compact::{config, conversation};
use crate::support::{wait_until, Mock};
use bash_agent::agent::compact::dp::line_tokens;
use bash_agent::agent::compact::{compact, CompactOutcome, SUMMARY_INSTRUCTION};
use bash_agent::agent::context::AgentCtx;
use bash_agent::agent::recorder::Recorder;
use bash_agent::session::conversation::is_user_turn_line;
use bash_agent::session::events::EventLog;
use bash_agent::session::stats::Stats;
use bash_agent::session::Session;
use bash_agent::util::cancel::Cancel;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

const SUMMARY: &str = "Task focus: keep the demo running\nLatest request: request 19\nProgress: answered 19 requests\nTool evidence: ls output seen\nReflections: none";

struct Fx {
    _tmp: tempfile::TempDir,
    session: Session,
    events: EventLog,
    lines: Vec<String>,
}

fn fixture(turns: usize, pad: usize) -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let session = Session::new(&tmp.path().join("projects/-p"), "s");
    let events = EventLog::new(session.events(), None);
    session.init(&events).unwrap();
    let lines = conversation(turns, pad);
    let mut text = lines.join("\n");
    text.push('\n');
    fs::write(session.conversation(), text).unwrap();
    fs::write(session.summary(), "Task focus: older snapshot\n").unwrap();
    Fx {
        _tmp: tmp,
        session,
        events,
        lines,
    }
}

/// A model server answering `steps` in order (Anthropic wire).
fn serve(steps: Vec<Value>) -> Mock {
    Mock::start(&Value::Array(steps).to_string())
}

/// A step answering with `text` and (input, output) token usage.
fn text(text: &str, input: u64, output: u64) -> Value {
    json!({"text": text, "usage": {"input": input, "output": output}})
}

fn status(code: u16) -> Value {
    json!({"status": code})
}

fn run(
    fx: &Fx,
    srv: &Mock,
    max_context: u64,
    trigger: &str,
    force: bool,
    cancel: &Cancel,
) -> CompactOutcome {
    let cfg = config(&srv.base("claude"), max_context);
    let rec = Recorder::new(fx.session.clone(), fx.events.clone(), &cfg);
    let mut ctx = AgentCtx::new(fx.session.clone(), cfg, fx.session.dir.clone(), rec);
    ctx.cancel = cancel.clone();
    compact(&ctx, "SYSTEM PROMPT", trigger, force)
}

/// Every regular file of the folder with its bytes (FIFOs skipped).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            m.insert(
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            );
        }
    }
    m
}

fn file_lines(p: &Path) -> Vec<String> {
    fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn over_max_context_compacts_and_loses_nothing() {
    let fx = fixture(20, 300);
    let srv = serve(vec![text(SUMMARY, 50, 20)]);
    let out = run(&fx, &srv, 2000, "auto", false, &Cancel::new());
    let CompactOutcome::Compacted { dropped, kept } = out else {
        panic!("{out:?}")
    };
    assert_eq!(dropped + kept, fx.lines.len());
    assert!(kept > 0 && dropped > 0);

    let archive = file_lines(&fx.session.archive());
    let conv = file_lines(&fx.session.conversation());
    assert_eq!(archive.len(), dropped);
    assert_eq!(
        [archive.clone(), conv.clone()].concat(),
        fx.lines,
        "every line exactly once"
    );
    assert!(
        is_user_turn_line(&conv[0]),
        "the tail starts on a user turn"
    );
    // Fallback keeps a quarter of the 20 user turns.
    assert_eq!(conv.iter().filter(|l| is_user_turn_line(l)).count(), 5);
    assert_eq!(
        fs::read_to_string(fx.session.summary()).unwrap(),
        format!("{SUMMARY}\n")
    );

    let ev = fs::read_to_string(fx.session.events()).unwrap();
    assert!(ev.ends_with(
        "{\"type\":\"usage\",\"input_tokens\":50,\"output_tokens\":20,\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0,\"kind\":\"compact\"}\n"
    ));
    let st = Stats::load(&fx.session.stats());
    assert_eq!((st.compact_request_count, st.agent_request_count), (1, 0));
    assert_eq!((st.total_input_tokens, st.total_output_tokens), (50, 20));
    // The stale context figure is replaced by an estimate of what is left.
    let est = |ls: &[String]| ls.iter().map(|l| line_tokens(l)).sum::<u64>();
    assert_eq!(
        st.current_context_tokens,
        est(&conv) + line_tokens("SYSTEM PROMPT")
    );

    // The request: dropped lines + our instruction, same system prompt, tools, no thinking.
    let reqs = srv.records();
    assert_eq!(reqs.len(), 1);
    let body = &reqs[0]["body"];
    assert_eq!(body["system"], "SYSTEM PROMPT");
    assert!(body.get("thinking").is_none() && body.get("output_config").is_none());
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), dropped + 1);
    assert_eq!(
        msgs[0],
        serde_json::from_str::<serde_json::Value>(&fx.lines[0]).unwrap()
    );
    assert_eq!(msgs[dropped]["content"], SUMMARY_INSTRUCTION);
    for f in [
        "Task focus:",
        "Latest request:",
        "Progress:",
        "Tool evidence:",
        "Reflections:",
    ] {
        assert!(SUMMARY_INSTRUCTION.contains(f));
    }
}

#[test]
fn small_context_is_left_alone() {
    let fx = fixture(20, 300);
    let srv = serve(vec![]);
    let before = snapshot(&fx.session.dir);
    assert_eq!(
        run(&fx, &srv, 1_000_000, "auto", false, &Cancel::new()),
        CompactOutcome::NotNeeded
    );
    assert_eq!(snapshot(&fx.session.dir), before);
    assert!(srv.records().is_empty());
}

#[test]
fn manual_and_plan_triggers_ignore_the_threshold() {
    for (trigger, force) in [("manual", true), ("plan_confirm", false)] {
        let fx = fixture(8, 10);
        let srv = serve(vec![text(SUMMARY, 5, 5)]);
        let out = run(&fx, &srv, 1_000_000, trigger, force, &Cancel::new());
        // 8 user turns → keep the last 2 turns = 8 lines.
        assert_eq!(
            out,
            CompactOutcome::Compacted {
                dropped: 24,
                kept: 8
            },
            "{trigger}"
        );
    }
}

#[test]
fn nothing_to_drop_makes_no_call() {
    let fx = fixture(1, 10);
    let srv = serve(vec![]);
    assert_eq!(
        run(&fx, &srv, 10, "manual", true, &Cancel::new()),
        CompactOutcome::NotNeeded
    );
    assert!(srv.records().is_empty());
}

#[test]
fn failing_summary_leaves_the_folder_byte_identical() {
    let fx = fixture(20, 300);
    let before = snapshot(&fx.session.dir);
    // The provider retries 5xx three times; all four attempts fail.
    let srv = serve(vec![status(500); 4]);
    let out = run(&fx, &srv, 2000, "auto", false, &Cancel::new());
    let CompactOutcome::Failed(msg) = out else {
        panic!("{out:?}")
    };
    assert!(
        msg.starts_with("Failed to generate context summary: "),
        "{msg}"
    );
    assert_eq!(snapshot(&fx.session.dir), before);
}

#[test]
fn interrupted_summary_leaves_the_folder_byte_identical() {
    let fx = fixture(20, 300);
    let before = snapshot(&fx.session.dir);
    // The headers and the start of the stream, then silence.
    let srv = serve(vec![json!({"stall_ms": 20_000})]);
    let cancel = Cancel::new();
    let c2 = cancel.clone();
    let record = srv.record.clone();
    let t = std::thread::spawn(move || {
        wait_until("the summary request", 20, || {
            fs::read_to_string(&record).is_ok_and(|r| !r.is_empty())
        });
        c2.cancel();
    });
    let started = std::time::Instant::now();
    let out = run(&fx, &srv, 2000, "auto", false, &cancel);
    t.join().unwrap();
    assert_eq!(
        out,
        CompactOutcome::Failed("Failed to generate context summary: interrupted".into())
    );
    assert!(
        started.elapsed() < crate::support::scaled(10),
        "cancel must be prompt"
    );
    assert_eq!(snapshot(&fx.session.dir), before);
}

#[test]
fn empty_summary_keeps_the_conversation() {
    let fx = fixture(20, 300);
    let srv = serve(vec![text("  \n", 7, 0)]);
    let conv = fs::read(fx.session.conversation()).unwrap();
    let out = run(&fx, &srv, 2000, "auto", false, &Cancel::new());
    assert_eq!(
        out,
        CompactOutcome::Failed(
            "Failed to generate context summary: empty text response (stop_reason=end_turn, error=none)".into()
        )
    );
    assert_eq!(fs::read(fx.session.conversation()).unwrap(), conv);
    assert_eq!(
        fs::read_to_string(fx.session.summary()).unwrap(),
        "Task focus: older snapshot\n"
    );
    assert_eq!(
        fs::metadata(fx.session.archive())
            .map(|m| m.len())
            .unwrap_or(0),
        0
    );
    // The tokens were spent, so they are still accounted for.
    assert_eq!(Stats::load(&fx.session.stats()).compact_request_count, 1);
}

#[test]
fn retry_then_success() {
    let fx = fixture(20, 300);
    let srv = serve(vec![status(503), text(SUMMARY, 1, 1)]);
    let out = run(&fx, &srv, 2000, "auto", false, &Cancel::new());
    assert!(matches!(out, CompactOutcome::Compacted { .. }), "{out:?}");
    assert_eq!(
        fs::read_to_string(fx.session.summary()).unwrap(),
        format!("{SUMMARY}\n")
    );
}

#[test]
fn conversation_changed_during_the_call_aborts() {
    let fx = fixture(20, 300);
    let extra = bash_agent::session::conversation::user_text_line("late line");
    // Another writer appends to the conversation while the summary is being made.
    let mut step = text(SUMMARY, 1, 1);
    step["append"] = json!({"path": fx.session.conversation(), "line": extra});
    let srv = serve(vec![step]);
    let out = run(&fx, &srv, 2000, "auto", false, &Cancel::new());
    assert!(
        matches!(&out, CompactOutcome::Failed(m) if m.contains("changed")),
        "{out:?}"
    );
    let conv = file_lines(&fx.session.conversation());
    assert_eq!(conv.len(), fx.lines.len() + 1);
    assert_eq!(conv.last(), Some(&extra));
    assert_eq!(
        fs::read_to_string(fx.session.summary()).unwrap(),
        "Task focus: older snapshot\n"
    );
}
