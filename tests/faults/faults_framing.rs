//! Exact input.fifo framing, by the bytes and not by timing, against a real `--listen`
//! agent and real writers of its input.fifo:
//! - a plain line written right after a malformed frame (by another writer, back to back
//!   or with both writers open at once) is never swallowed: 200 times in one run;
//! - a writer that leaves a partial line and closes: its bytes are dropped and reported,
//!   never glued to the next writer's frame or line;
//! - two raw writers of frames larger than PIPE_BUF that skip the lock: whatever
//!   interleaves is dropped and reported, never accepted as user input;
//! - a 200 MB line without a newline is dropped with an error event and does not grow the
//!   agent's memory by 200 MB (peak resident size from /proc/<pid>/status).

use crate::support::listen::Listening;
use crate::support::*;
use bash_agent::ipc::fifo::write_frame;
use bash_agent::ipc::resp::Frame;
use std::io::Write;
use std::path::Path;
use std::process::Command;

const REPS: usize = 200;

fn start(env: &Env, id: &str) -> Agent {
    Agent(Listening::start(env, id, "sk-framing"))
}

/// The listening agent, with what this file adds to it.
struct Agent(Listening);

impl std::ops::Deref for Agent {
    type Target = Listening;
    fn deref(&self) -> &Listening {
        &self.0
    }
}

impl Agent {
    /// A writer of its own: open, write everything, close.
    fn write(&self, bytes: &[u8]) {
        let mut w = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.fifo)
            .unwrap();
        w.write_all(bytes).unwrap();
    }
    /// A separate process writes `bytes` (printf-style, no lock) and exits.
    fn shell_write(&self, printf_arg: &str) {
        let st = Command::new("sh")
            .arg("-c")
            .arg("printf \"$1\" > \"$2\"")
            .args(["sh", printf_arg])
            .arg(&self.fifo)
            .status()
            .unwrap();
        assert!(st.success());
    }
    fn finish(self) {
        self.0.finish()
    }
}

fn bad_frame(i: usize) -> &'static [u8] {
    const BAD: [&[u8]; 6] = [
        b"*x\r\n",
        b"*1\r\n$3\r\nabcXY\r\n",
        b"*2\r\n$3\r\nabcdef\r\n$1\r\nx\r\n",
        b"*0\r\n",
        b"*2\r\n:5\r\nhello\r\n:1\r\nx\r\n",
        b"*1\r\n$abc\r\nxyz\r\n",
    ];
    BAD[i % BAD.len()]
}

#[test]
fn plain_line_after_a_bad_frame_is_never_lost() {
    let env = Env::new();
    let a = start(&env, "B");
    for i in 0..REPS {
        let line = format!("PLAIN-{i}\n");
        if i % 2 == 0 {
            // Two writers back to back.
            a.write(bad_frame(i / 2));
            a.write(line.as_bytes());
        } else {
            // Both writers hold the FIFO open: no end-of-file between them.
            let mut w1 = std::fs::OpenOptions::new()
                .write(true)
                .open(&a.fifo)
                .unwrap();
            let mut w2 = std::fs::OpenOptions::new()
                .write(true)
                .open(&a.fifo)
                .unwrap();
            w1.write_all(bad_frame(i / 2)).unwrap();
            w2.write_all(line.as_bytes()).unwrap();
        }
    }
    let want: Vec<String> = (0..REPS).map(|i| format!("PLAIN-{i}")).collect();
    assert!(
        wait_for(120, || a.inputs().len() >= REPS),
        "only {} of {REPS} plain lines arrived",
        a.inputs().len()
    );
    assert_eq!(
        a.inputs(),
        want,
        "a plain line was lost, reordered or altered"
    );
    let errors = a.errors();
    assert_eq!(
        errors.len(),
        REPS,
        "one error per bad frame: {:?}",
        &errors[..5.min(errors.len())]
    );
    assert!(errors
        .iter()
        .all(|m| m.starts_with("malformed frame on input.fifo")));
    a.finish();
}

#[test]
fn unfinished_writers_are_dropped_not_glued() {
    let env = Env::new();
    let a = start(&env, "P");
    // A partial line, then (another process) a frame.
    a.shell_write("partial-bytes");
    write_frame(
        &a.fifo,
        &Frame::new(["USER_INPUT", "0", "AFTER-PARTIAL-FRAME"]),
    )
    .unwrap();
    assert!(wait_for(30, || a.inputs().len() == 1), "{:?}", a.inputs());
    // A partial line, its writer gone, then another writer's plain line.
    a.shell_write("more-partial");
    assert!(wait_for(30, || a.errors().len() >= 2), "{:?}", a.errors());
    a.shell_write("AFTER-PARTIAL-LINE\\n");
    // A frame whose writer died after its header, then a plain line.
    a.shell_write("*3\\r\\n$10\\r\\nUSER_INPUT\\r\\n$1\\r\\n0\\r\\n$500\\r\\ncut");
    // (The cut is seen when the reader reads the end of file before the next writer's
    // bytes; a plain line that lands inside the declared length cannot be told apart.)
    assert!(wait_for(30, || a.errors().len() >= 3), "{:?}", a.errors());
    a.shell_write("AFTER-CUT-FRAME\\n");
    // A partial line whose writer still has the FIFO open when the next frame comes:
    // the bytes glued in front of the frame header are dropped, the frame is read.
    {
        let mut w = std::fs::OpenOptions::new()
            .write(true)
            .open(&a.fifo)
            .unwrap();
        w.write_all(b"glued-bytes").unwrap();
        write_frame(&a.fifo, &Frame::new(["USER_INPUT", "0", "AFTER-GLUED"])).unwrap();
    }
    assert!(wait_for(30, || a.inputs().len() >= 4), "{:?}", a.inputs());
    assert_eq!(
        a.inputs(),
        [
            "AFTER-PARTIAL-FRAME",
            "AFTER-PARTIAL-LINE",
            "AFTER-CUT-FRAME",
            "AFTER-GLUED"
        ]
    );
    let errors = a.errors();
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert!(errors[0].contains("13 bytes"), "{errors:?}");
    assert!(errors[1].contains("12 bytes dropped"), "{errors:?}");
    assert!(errors[2].contains("inside a frame"), "{errors:?}");
    assert!(errors[3].contains("11 bytes"), "{errors:?}");
    a.finish();
}

#[test]
fn unlocked_large_frames_never_become_input() {
    let env = Env::new();
    let a = start(&env, "R");
    // Frames of 1 MB (far above PIPE_BUF), written by two `cat` processes at once.
    let frame = |c: char| {
        let content: String = std::iter::repeat_n(c, 1 << 20).collect();
        Frame::new(["USER_INPUT", "0", &content]).encode()
    };
    let fa = env.dir.path().join("a.resp");
    let fb = env.dir.path().join("b.resp");
    std::fs::write(&fa, frame('A')).unwrap();
    std::fs::write(&fb, frame('B')).unwrap();
    let pairs = 8;
    for _ in 0..pairs {
        let cat = |p: &Path| {
            Command::new("sh")
                .arg("-c")
                .arg("cat \"$1\" > \"$2\"")
                .args(["sh"])
                .arg(p)
                .arg(&a.fifo)
                .spawn()
                .unwrap()
        };
        let (mut x, mut y) = (cat(&fa), cat(&fb));
        assert!(x.wait().unwrap().success() && y.wait().unwrap().success());
    }
    // A frame: after torn frames plain lines (and frames over PIPE_BUF) are not read again
    // until every writer has closed the FIFO, which the reader may not have seen yet.
    write_frame(&a.fifo, &Frame::user_input("END-OF-RAW")).unwrap();
    assert!(
        wait_for(120, || a.inputs().iter().any(|i| i == "END-OF-RAW")),
        "{} inputs",
        a.inputs().len()
    );
    let inputs = a.inputs();
    let whole = |c: char| {
        inputs
            .iter()
            .filter(|i| i.len() == 1 << 20 && i.chars().all(|x| x == c))
            .count()
    };
    let (na, nb) = (whole('A'), whole('B'));
    assert_eq!(
        inputs.len(),
        na + nb + 1,
        "a fragment became user input: {:?}",
        inputs
            .iter()
            .map(|i| (i.len(), i.chars().next()))
            .collect::<Vec<_>>()
    );
    let errors = a.errors();
    if na + nb < 2 * pairs {
        assert!(!errors.is_empty(), "interleaved frames were not reported");
    }
    eprintln!(
        "raw writers: {na}+{nb} of {} frames whole, {} error events",
        2 * pairs,
        errors.len()
    );
    a.finish();
}

fn vm_hwm_kb(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn a_200_mb_line_is_capped_without_buffering_it() {
    let env = Env::new();
    let a = start(&env, "H");
    write_frame(&a.fifo, &Frame::new(["USER_INPUT", "0", "WARM-UP"])).unwrap();
    assert!(wait_for(30, || a.inputs().len() == 1));
    let before = vm_hwm_kb(a.child.id());
    {
        let mut w = std::fs::OpenOptions::new()
            .write(true)
            .open(&a.fifo)
            .unwrap();
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..200 {
            w.write_all(&chunk).unwrap();
        }
        w.write_all(b"\nAFTER-HUGE\n").unwrap();
    }
    assert!(
        wait_for(120, || a.inputs().len() == 2),
        "{:?}",
        a.inputs().iter().map(|i| i.len()).collect::<Vec<_>>()
    );
    assert_eq!(a.inputs()[1], "AFTER-HUGE");
    let grown_mb = (vm_hwm_kb(a.child.id()).saturating_sub(before)) / 1024;
    eprintln!("peak resident size grew by {grown_mb} MB for a 200 MB line");
    assert!(
        grown_mb < 100,
        "the agent buffered the line: +{grown_mb} MB"
    );
    let errors = a.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("longer than 64 MiB"), "{errors:?}");
    a.finish();
}
