//! notify.fifo reader, notify.buf, counter and recovery, with real FIFOs.

use crate::support::ipc::{of_type, session};
use crate::support::wait_until;
use bash_agent::ipc::fifo::{write_frame, InputChannel, InputMsg};
use bash_agent::ipc::notify::{self, append_to_buf, drain, injection_text, recover_stale};
use bash_agent::ipc::resp::Frame;
use bash_agent::ipc::{counter, flag};
use bash_agent::session::stats::Stats;
use std::time::Duration;

fn pending(ch: &InputChannel) {
    match ch.rx.recv_timeout(Duration::from_secs(10)) {
        Ok(InputMsg::NotifyPending) => {}
        other => panic!("expected NOTIFY_PENDING, got {other:?}"),
    }
}

#[test]
fn reader_records_results_and_wakes_the_loop() {
    let d = tempfile::tempdir().unwrap();
    let (s, log) = session(d.path(), "p");
    let ch = InputChannel::open(&s).unwrap();
    let reader = notify::spawn_reader(&s, log, ch.writer()).unwrap();
    counter::add(&s, 2);
    let nf = s.notify_fifo();
    let wire = Frame::new([
        "AGENT_RESULT",
        "sub_1",
        "ok",
        "thought",
        "The answer.",
        "100",
        "20",
        "5",
        "3",
        "4",
    ]);
    write_frame(&nf, &wire).unwrap();
    pending(&ch);
    let ev = crate::support::ipc::events(&s);
    let tail: Vec<&str> = ev
        .iter()
        .rev()
        .take(3)
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(tail, ["sub_agent_end", "sub_agent_result", "usage"]);
    let usage = &of_type(&s, "usage")[0];
    assert_eq!(usage["kind"], "sub_agent");
    assert_eq!(usage["sub_session_id"], "sub_1");
    assert_eq!(usage["cache_read_input_tokens"], 5);
    let res = &of_type(&s, "sub_agent_result")[0];
    assert_eq!(res["text"], "The answer.");
    assert_eq!(res["input_tokens"], 100);
    assert_eq!(of_type(&s, "sub_agent_end")[0]["status"], "ok");
    let st = Stats::load(&s.stats());
    assert_eq!((st.total_input_tokens, st.total_output_tokens), (100, 20));
    assert_eq!(
        (st.total_cache_read_tokens, st.total_cache_creation_tokens),
        (5, 3)
    );
    assert_eq!((st.sub_agent_request_count, st.agent_request_count), (1, 4));
    assert_eq!(counter::get(&s), 1);
    assert!(reader.reported().lock().unwrap().contains("sub_1"));

    // A duplicate (e.g. a late synthetic `failed`) changes nothing.
    let dup = Frame::new([
        "AGENT_RESULT",
        "sub_1",
        "failed",
        "",
        "",
        "0",
        "0",
        "0",
        "0",
        "0",
    ]);
    write_frame(&nf, &dup).unwrap();
    // Malformed frames are logged and skipped; the reader goes on.
    write_frame(&nf, &Frame::new(["AGENT_RESULT", "short"])).unwrap();
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf '*1\\r\\n$99\\r\\nx\\r\\n' > '{}'",
            nf.display()
        ))
        .status()
        .unwrap();
    // A writer that died mid-frame: detected after a short stall, then the reader resyncs.
    wait_until("truncated-frame error", 5, || {
        of_type(&s, "error").iter().any(|e| {
            e["message"]
                .as_str()
                .unwrap_or("")
                .contains("inside a frame")
        })
    });
    write_frame(
        &nf,
        &Frame::new(["ASYNC_TASK_RESULT", "task_9", "3", "out\n"]),
    )
    .unwrap();
    pending(&ch);
    let errs = of_type(&s, "error");
    assert!(errs.len() >= 2, "{errs:?}");
    assert!(errs[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("malformed frame on notify.fifo"));
    let t = &of_type(&s, "async_task_result")[0];
    assert_eq!(
        (t["task_id"].as_str(), t["exit_code"].as_i64()),
        (Some("task_9"), Some(3))
    );
    assert_eq!(of_type(&s, "sub_agent_result").len(), 1);
    assert_eq!(counter::get(&s), 0);

    write_frame(&nf, &Frame::new(["USER_NOTIFY", "also check tests"])).unwrap();
    pending(&ch);
    assert_eq!(counter::get(&s), 0);

    let frames = drain(&s);
    assert_eq!(frames.len(), 3);
    assert_eq!(
        frames[0],
        Frame::new([
            "AGENT_RESULT",
            "sub_1",
            "ok",
            "100",
            "20",
            "thought",
            "The answer."
        ])
    );
    assert_eq!(
        injection_text(&frames),
        "[sub-agent sub_1] ok (in=100, out=20)\nThinking: thought\nText: The answer.\n\
         [async-task task_9] exit_code=3\nOutput: out\n\nalso check tests"
    );
    assert!(drain(&s).is_empty());
    assert!(!s.notify_buf().exists());

    // stop() processes what is already queued, then ends the thread.
    write_frame(&nf, &Frame::new(["USER_NOTIFY", "last"])).unwrap();
    reader.stop();
    assert_eq!(drain(&s), vec![Frame::new(["USER_NOTIFY", "last"])]);
}

#[test]
fn drain_and_concurrent_appends_lose_nothing() {
    let d = tempfile::tempdir().unwrap();
    let (s, _) = session(d.path(), "p");
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let buf = s.notify_buf();
            std::thread::spawn(move || {
                for i in 0..150 {
                    append_to_buf(&buf, &Frame::new(["USER_NOTIFY", &format!("{w}-{i}")])).unwrap();
                }
            })
        })
        .collect();
    let mut got = Vec::new();
    while got.len() < 600 {
        got.extend(drain(&s).into_iter().map(|f| f.field(1)));
        if writers.iter().all(|h| h.is_finished()) {
            got.extend(drain(&s).into_iter().map(|f| f.field(1)));
            break;
        }
    }
    for h in writers {
        h.join().unwrap();
    }
    got.extend(drain(&s).into_iter().map(|f| f.field(1)));
    let uniq: std::collections::HashSet<_> = got.iter().cloned().collect();
    assert_eq!((got.len(), uniq.len()), (600, 600));
}

#[test]
fn crashed_run_leftovers_are_recovered() {
    let d = tempfile::tempdir().unwrap();
    let (s, log) = session(d.path(), "p");
    // Stale flag, a regular file where notify.fifo was (shell child of a dead parent),
    // an orphan drain snapshot, and a buffered result.
    std::fs::write(s.running_flag(), "999999 1\n").unwrap();
    std::fs::remove_file(s.notify_fifo()).unwrap();
    let wire = Frame::new([
        "AGENT_RESULT",
        "sub_x",
        "ok",
        "",
        "late",
        "1",
        "2",
        "0",
        "0",
        "1",
    ]);
    std::fs::write(s.notify_fifo(), wire.encode()).unwrap();
    std::fs::write(
        s.dir.join("notify.buf.4242"),
        Frame::new(["USER_NOTIFY", "from snapshot"]).encode(),
    )
    .unwrap();
    append_to_buf(
        &s.notify_buf(),
        &Frame::new(["ASYNC_TASK_RESULT", "task_1", "0", "ok"]),
    )
    .unwrap();

    let frames = recover_stale(&s).expect("leftovers");
    let kinds: Vec<String> = frames
        .iter()
        .map(|f| format!("{}:{}", f.kind(), f.field(1)))
        .collect();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    assert!(kinds.contains(&"AGENT_RESULT:sub_x".to_string()));
    assert!(kinds.contains(&"USER_NOTIFY:from snapshot".to_string()));
    let ar = frames.iter().find(|f| f.kind() == "AGENT_RESULT").unwrap();
    assert_eq!(ar.len(), 7);
    assert_eq!(ar.field(6), "late");
    assert!(!s.running_flag().exists());
    assert!(bash_agent::ipc::fifo::is_fifo(&s.notify_fifo()));
    assert!(!s.dir.join("notify.buf.4242").exists());
    // Not deleted: the first turn drains it.
    assert!(s.notify_buf().exists());
    assert_eq!(drain(&s).len(), 3);
    assert!(recover_stale(&s).is_none());
    // The recovered FIFO works.
    let ch = InputChannel::open(&s).unwrap();
    let _r = notify::spawn_reader(&s, log, ch.writer()).unwrap();
    write_frame(&s.notify_fifo(), &Frame::new(["USER_NOTIFY", "hi"])).unwrap();
    pending(&ch);
}

#[test]
fn running_flag_guard() {
    let d = tempfile::tempdir().unwrap();
    let (s, _) = session(d.path(), "p");
    let g = flag::RunningFlag::set(&s);
    assert!(s.running_flag().exists());
    drop(g);
    wait_until("flag removal", 1, || !s.running_flag().exists());
}
