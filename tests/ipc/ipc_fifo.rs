//! input.fifo: real FIFOs, real writer processes and threads.

use crate::support::ipc::session;
use bash_agent::ipc::fifo::{write_frame, InputChannel, InputMsg, WriteError, PIPE_BUF};
use bash_agent::ipc::resp::Frame;
use std::collections::HashSet;
use std::process::Command;
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(10);

fn recv(ch: &InputChannel) -> InputMsg {
    ch.rx.recv_timeout(T).expect("a message within 10 s")
}

#[test]
fn concurrent_writers_lose_and_interleave_nothing() {
    let d = tempfile::tempdir().unwrap();
    let (s, _) = session(d.path(), "s");
    let ch = InputChannel::open(&s).unwrap();
    // 50 threads, mixed sizes: small (one atomic write) and > PIPE_BUF (locked).
    let mut want = HashSet::new();
    let mut hs = Vec::new();
    for i in 0..50usize {
        let size = if i.is_multiple_of(3) {
            PIPE_BUF * 4 + i * 97
        } else {
            20 + i
        };
        let text: String = format!("msg{i}:") + &"x".repeat(size) + &format!(":end{i}");
        want.insert(text.clone());
        let p = s.input_fifo();
        hs.push(std::thread::spawn(move || {
            write_frame(&p, &Frame::new(["USER_INPUT", "0", &text])).unwrap();
        }));
    }
    for h in hs {
        h.join().unwrap();
    }
    let mut got = HashSet::new();
    for _ in 0..50 {
        match recv(&ch) {
            InputMsg::UserInput(t) => assert!(got.insert(t)),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(got, want);
}

#[test]
fn fifty_shell_writer_processes() {
    let d = tempfile::tempdir().unwrap();
    let (s, _) = session(d.path(), "s");
    let ch = InputChannel::open(&s).unwrap();
    let mut kids = Vec::new();
    for i in 0..50 {
        let text = format!("from process {i:02}");
        let script = format!(
            "printf '*3\\r\\n$10\\r\\nUSER_INPUT\\r\\n$1\\r\\n0\\r\\n${}\\r\\n%s\\r\\n' '{}' > '{}'",
            text.len(),
            text,
            s.input_fifo().display()
        );
        kids.push(Command::new("sh").arg("-c").arg(script).spawn().unwrap());
    }
    for mut k in kids {
        assert!(k.wait().unwrap().success());
    }
    let mut got = HashSet::new();
    for _ in 0..50 {
        match recv(&ch) {
            InputMsg::UserInput(t) => assert!(got.insert(t)),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(got.len(), 50);
    assert!(got.contains("from process 07"));
}

#[test]
fn plain_lines_malformed_frames_and_control_frames() {
    let d = tempfile::tempdir().unwrap();
    let (s, _) = session(d.path(), "s");
    let ch = InputChannel::open(&s).unwrap();
    let fifo = s.input_fifo();
    let sh = |script: &str| {
        let st = Command::new("sh")
            .arg("-c")
            .arg(script)
            .env("F", &fifo)
            .status()
            .unwrap();
        assert!(st.success());
    };
    sh("echo 'run the tests' > \"$F\"");
    assert_eq!(recv(&ch), InputMsg::UserInput("run the tests".into()));
    // A malformed frame (declared 3 bytes, 6 sent) is reported; its residue is dropped.
    sh("printf '*2\\r\\n$3\\r\\nabcdef\\r\\n$1\\r\\nx\\r\\n' > \"$F\"");
    match recv(&ch) {
        InputMsg::Malformed(m) => assert!(m.contains("malformed frame on input.fifo"), "{m}"),
        other => panic!("{other:?}"),
    }
    // The reader keeps going: an empty USER_INPUT is ignored (G-13), the rest arrives.
    write_frame(&fifo, &Frame::new(["USER_INPUT", "0", ""])).unwrap();
    write_frame(&fifo, &Frame::new(["SOMETHING_ELSE", "x"])).unwrap();
    write_frame(&fifo, &Frame::new(["USER_INPUT", "0", "h\u{e9}llo"])).unwrap();
    write_frame(&fifo, &Frame::new(["NOTIFY_PENDING"])).unwrap();
    ch.writer().send(&Frame::new(["SESSION_END"])).unwrap();
    assert_eq!(recv(&ch), InputMsg::UserInput("h\u{e9}llo".into()));
    assert_eq!(recv(&ch), InputMsg::NotifyPending);
    assert_eq!(recv(&ch), InputMsg::SessionEnd);
    // A plain line after the bad frame's residue was consumed still counts.
    sh("echo 'second line' > \"$F\"");
    assert_eq!(recv(&ch), InputMsg::UserInput("second line".into()));
}

#[test]
fn writers_never_block_without_a_reader() {
    let d = tempfile::tempdir().unwrap();
    let (s, _) = session(d.path(), "s");
    let t0 = Instant::now();
    let f = Frame::new(["USER_INPUT", "0", "x"]);
    // A stale FIFO nobody reads.
    assert!(matches!(
        write_frame(&s.input_fifo(), &f),
        Err(WriteError::NoReader(_))
    ));
    // Missing path.
    let missing = d.path().join("nope.fifo");
    assert!(matches!(
        write_frame(&missing, &f),
        Err(WriteError::NoReader(_))
    ));
    assert!(!missing.exists());
    // A regular file is never written to.
    let reg = d.path().join("regular.fifo");
    std::fs::write(&reg, "keep").unwrap();
    assert!(matches!(
        write_frame(&reg, &f),
        Err(WriteError::NoReader(_))
    ));
    assert_eq!(std::fs::read_to_string(&reg).unwrap(), "keep");
    assert!(t0.elapsed() < Duration::from_secs(2));
}

#[test]
fn fifo_descriptors_are_not_inherited() {
    let d = tempfile::tempdir().unwrap();
    let (s, _) = session(d.path(), "s");
    let _ch = InputChannel::open(&s).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ls -l /proc/self/fd/ 2>/dev/null || true")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("input.fifo"), "{text}");
}
