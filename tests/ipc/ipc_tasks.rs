//! Background tasks and sub-agent plumbing with real processes.

use crate::support::ipc::{of_type, session};
use crate::support::wait_until;
use bash_agent::agent::{background, subagent};
use bash_agent::ipc::fifo::{InputChannel, InputMsg};
use bash_agent::ipc::notify::{self, drain};
use bash_agent::ipc::{counter, resp::Frame};
use bash_agent::session::conversation as conv;
use bash_agent::session::Session;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

fn pending(ch: &InputChannel) {
    match ch.rx.recv_timeout(Duration::from_secs(10)) {
        Ok(InputMsg::NotifyPending) => {}
        other => panic!("expected NOTIFY_PENDING, got {other:?}"),
    }
}

#[test]
fn background_task_result_arrives() {
    let d = tempfile::tempdir().unwrap();
    let (s, log) = session(d.path(), "p");
    let ch = InputChannel::open(&s).unwrap();
    let _r = notify::spawn_reader(&s, log, ch.writer()).unwrap();
    let msg = background::spawn_exe(
        std::path::Path::new(crate::support::BIN),
        &s,
        "echo hi; printf 'bad\\377\\n' >&2; exit 3",
        s.notify_fifo(),
    )
    .unwrap();
    assert!(
        msg.starts_with("Async task started: task_id=async_"),
        "{msg}"
    );
    assert!(msg.contains(", pid="));
    pending(&ch);
    let t = &of_type(&s, "async_task_result")[0];
    assert_eq!(t["exit_code"], 3);
    assert_eq!(t["output"], "hi\nbad\u{fffd}\n");
    assert_eq!(counter::get(&s), 0);
    let f = drain(&s);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind(), "ASYNC_TASK_RESULT");
    assert!(msg.contains(&f[0].field(1)));
}

#[test]
fn background_task_without_reader_lands_in_buffer() {
    let d = tempfile::tempdir().unwrap();
    let (s, _) = session(d.path(), "p");
    let bin = std::path::Path::new(crate::support::BIN);
    background::spawn_exe(bin, &s, "echo later", s.notify_fifo()).unwrap();
    assert_eq!(counter::get(&s), 1);
    wait_until("buffered task result", 10, || {
        bash_agent::util::fsx::non_empty(&s.notify_buf())
    });
    let f = drain(&s);
    assert_eq!(
        (f[0].field(2), f[0].field(3)),
        ("0".to_string(), "later\n".to_string())
    );
    assert!(bash_agent::ipc::fifo::is_fifo(&s.notify_fifo()));
}

fn child_with_answer(project: &std::path::Path) -> Session {
    let c = Session::new(project, "sub_child");
    c.create_dir().unwrap();
    conv::append_lines(
        &c.conversation(),
        &[
            conv::user_text_line("task"),
            conv::assistant_line("hmm", "The result.", &[]),
        ],
    )
    .unwrap();
    bash_agent::session::stats::update(&c.stats(), |s| {
        s.total_input_tokens = 50;
        s.total_output_tokens = 7;
        s.agent_request_count = 2;
    })
    .unwrap();
    c
}

#[test]
fn send_result_to_live_and_gone_parents() {
    let d = tempfile::tempdir().unwrap();
    let (p, log) = session(d.path(), "p");
    let c = child_with_answer(d.path());
    // Live parent: a wire frame, recorded by the reader.
    let ch = InputChannel::open(&p).unwrap();
    let r = notify::spawn_reader(&p, log, ch.writer()).unwrap();
    counter::add(&p, 1);
    subagent::send_result(&p.notify_fifo(), &c, "ok");
    pending(&ch);
    let res = &of_type(&p, "sub_agent_result")[0];
    assert_eq!(
        (res["status"].as_str(), res["text"].as_str()),
        (Some("ok"), Some("The result."))
    );
    assert_eq!(res["input_tokens"], 50);
    assert_eq!(counter::get(&p), 0);
    assert_eq!(
        bash_agent::session::stats::Stats::load(&p.stats()).agent_request_count,
        2
    );
    drain(&p);
    r.stop();
    drop(ch);

    // FIFO present but nobody reads (parent exited uncleanly): buffer, 7-field form.
    subagent::send_result(&p.notify_fifo(), &c, "failed");
    let f = drain(&p);
    assert_eq!(
        f,
        vec![Frame::new([
            "AGENT_RESULT",
            "sub_child",
            "failed",
            "50",
            "7",
            "",
            ""
        ])]
    );

    // FIFO removed (clean parent exit): still the buffer, never a regular notify.fifo.
    std::fs::remove_file(p.notify_fifo()).unwrap();
    subagent::send_result(&p.notify_fifo(), &c, "ok");
    assert!(!p.notify_fifo().exists());
    let f = drain(&p);
    assert_eq!(f[0].field(6), "The result.");
}

/// A stand-in for the agent binary: records its argv and environment, then runs `body`.
fn fake_exe(dir: &std::path::Path, body: &str) -> std::path::PathBuf {
    let p = dir.join("fake-agent.sh");
    let script =
        format!("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$0.args\"\nenv > \"$0.env\"\n{body}\n");
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn killed_sub_agent_is_reported_failed() {
    let d = tempfile::tempdir().unwrap();
    let (p, log) = session(d.path(), "p");
    let ch = InputChannel::open(&p).unwrap();
    let r = notify::spawn_reader(&p, log.clone(), ch.writer()).unwrap();
    let exe = fake_exe(d.path(), "kill -9 $$");
    let args: Vec<String> = [
        "--provider",
        "openai",
        "--api-key",
        "sk-secret",
        "--model",
        "m",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let t0 = Instant::now();
    let msg = subagent::spawn_exe(
        &exe,
        &p,
        &log,
        r.reported(),
        &args,
        subagent::Task {
            prompt: "-do it",
            description: "desc",
            fork: true,
            prepare: None,
        },
        p.notify_fifo(),
    )
    .unwrap();
    assert!(
        msg.starts_with("Sub-agent started: session_id=sub_"),
        "{msg}"
    );
    pending(&ch);
    assert!(t0.elapsed() < Duration::from_secs(6));
    let start = &of_type(&p, "sub_agent_start")[0];
    let sid = start["session_id"].as_str().unwrap().to_string();
    assert_eq!(
        (start["prompt"].as_str(), start["fork"].as_bool()),
        (Some("-do it"), Some(true))
    );
    let res = &of_type(&p, "sub_agent_result")[0];
    assert_eq!(
        (res["session_id"].as_str(), res["status"].as_str()),
        (Some(sid.as_str()), Some("failed"))
    );
    assert_eq!(counter::get(&p), 0);
    let argv = std::fs::read_to_string(exe.with_extension("sh.args")).unwrap();
    let argv: Vec<&str> = argv.lines().collect();
    let nf = p.notify_fifo();
    let want_tail = [
        "--session",
        &sid,
        "--sub-agent-notify",
        nf.to_str().unwrap(),
        "--depth",
        "1",
        "--parent-dir",
        p.dir.to_str().unwrap(),
        "--",
        "-do it",
    ];
    assert_eq!(&argv[argv.len() - want_tail.len()..], &want_tail);
    assert!(!argv.contains(&"sk-secret"));
    let env = std::fs::read_to_string(exe.with_extension("sh.env")).unwrap();
    assert!(env.contains("BASH_AGENT_SUB_API_KEY=sk-secret"));
    assert!(
        !env.contains("OPENAI_API_KEY=sk-secret"),
        "only the internal variable carries the key"
    );
    assert!(p.project_dir().join(&sid).is_dir());
}

#[test]
fn reporting_sub_agent_is_not_reported_twice() {
    let d = tempfile::tempdir().unwrap();
    let (p, log) = session(d.path(), "p");
    let ch = InputChannel::open(&p).unwrap();
    let r = notify::spawn_reader(&p, log.clone(), ch.writer()).unwrap();
    // The stand-in reports itself like a real child would, then exits.
    let exe = fake_exe(
        d.path(),
        "while [ \"$1\" != --session ]; do shift; done; sid=$2; f=$4\n\
         printf '*10\\r\\n$12\\r\\nAGENT_RESULT\\r\\n$%s\\r\\n%s\\r\\n$2\\r\\nok\\r\\n$0\\r\\n\\r\\n$4\\r\\ndone\\r\\n$1\\r\\n1\\r\\n$1\\r\\n2\\r\\n$1\\r\\n0\\r\\n$1\\r\\n0\\r\\n$1\\r\\n1\\r\\n' \"${#sid}\" \"$sid\" > \"$f\"",
    );
    subagent::spawn_exe(
        &exe,
        &p,
        &log,
        r.reported(),
        &[],
        subagent::Task {
            prompt: "go",
            description: "d",
            fork: false,
            prepare: None,
        },
        p.notify_fifo(),
    )
    .unwrap();
    pending(&ch);
    // Past the reaper's grace period: no synthetic `failed` follows.
    std::thread::sleep(subagent::REPORT_GRACE + Duration::from_millis(500));
    let res = of_type(&p, "sub_agent_result");
    assert_eq!(res.len(), 1, "{res:?}");
    assert_eq!(
        (res[0]["status"].as_str(), res[0]["text"].as_str()),
        (Some("ok"), Some("done"))
    );
    assert_eq!(counter::get(&p), 0);
}
