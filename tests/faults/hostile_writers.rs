//! input.fifo exactly once under hostile writers (issue 27), against a real `--listen`
//! agent, the scripted model server and real writer processes:
//! - random bytes from /dev/urandom, each run of them starting with a malformed frame or a
//!   partial header, mixed with valid frames (one writer holding the FIFO for all of it,
//!   then one writer process per block): every valid frame is one input and one model
//!   turn, and nothing else becomes input;
//! - several raw writers (`cat`, no lock) of multi-line frames of about 100 KB, far above
//!   PIPE_BUF, at once: every input is one whole frame's text, never a mix or a part.
use crate::support::listen::Listening;
use crate::support::*;
use bash_agent::ipc::fifo::write_frame;
use bash_agent::ipc::resp::Frame;
use std::path::{Path, PathBuf};
use std::process::Command;

fn start(env: &Env, id: &str) -> Agent {
    Agent(Listening::start(env, id, "sk-hostile"))
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
    /// Send the last input (locked, framed) and wait until it has been read: everything
    /// written before it has been decoded by then.
    fn mark_end(&self) {
        write_frame(&self.fifo, &Frame::user_input("END-MARK")).unwrap();
        assert!(
            wait_for(120, || self.inputs().iter().any(|i| i == "END-MARK")),
            "the end mark never arrived ({} inputs)",
            self.inputs().len()
        );
    }
    fn finish(self) {
        self.0.finish()
    }
}

/// A `sh` process writing the file `p` to the FIFO with `cat`, no lock.
fn cat_to(p: &Path, fifo: &Path) -> std::process::Child {
    Command::new("sh")
        .arg("-c")
        .arg("cat \"$1\" > \"$2\"")
        .arg("sh")
        .arg(p)
        .arg(fifo)
        .spawn()
        .unwrap()
}

/// How the runs of garbage start: partial headers, lying lengths, binary.
const STARTS: [&[u8]; 6] = [
    b"*3\r\n$10\r\nUSER_IN",
    b"*3\r\n$10\r\nUSER_INPUT\r\n$1\r\n0\r\n$9000\r\n",
    b"*x",
    b"*2\r\n$5\r\nab",
    b"\x00\xff\xfe",
    b"*3\r\n$10\r\nUSER_INPUT\r\n$1\r\n0\r\n",
];

/// A shell script printing, per block, a garbage start, `n` bytes of /dev/urandom and a
/// valid USER_INPUT frame `JUNK-OK-<i>`.
fn block_script(dir: &Path, i: usize, n: usize) -> String {
    let start = dir.join(format!("start-{i}"));
    std::fs::write(&start, STARTS[i % STARTS.len()]).unwrap();
    let frame = dir.join(format!("frame-{i}"));
    std::fs::write(&frame, Frame::user_input(&format!("JUNK-OK-{i}")).encode()).unwrap();
    format!(
        "cat '{}'; head -c {n} /dev/urandom; cat '{}'; ",
        start.display(),
        frame.display()
    )
}

#[test]
fn urandom_garbage_between_frames_never_becomes_input() {
    let env = Env::new();
    let a = start(&env, "J");
    let dir = env.dir.path();
    let blocks = 12;
    let size = |i: usize| 1000 + (i * 7919) % 20_000;
    // One writer holding the FIFO open for all of it.
    let all: String = (0..blocks).map(|i| block_script(dir, i, size(i))).collect();
    let st = Command::new("sh")
        .arg("-c")
        .arg(format!("{{ {all} }} > \"$1\""))
        .arg("sh")
        .arg(&a.fifo)
        .status()
        .unwrap();
    assert!(st.success());
    // Then one writer process per block.
    for i in blocks..2 * blocks {
        let st = Command::new("sh")
            .arg("-c")
            .arg(format!("{{ {} }} > \"$1\"", block_script(dir, i, size(i))))
            .arg("sh")
            .arg(&a.fifo)
            .status()
            .unwrap();
        assert!(st.success());
    }
    a.mark_end();
    let mut want: Vec<String> = (0..2 * blocks).map(|i| format!("JUNK-OK-{i}")).collect();
    want.push("END-MARK".into());
    let got = a.inputs();
    assert_eq!(
        got,
        want,
        "garbage became input, or a valid frame was lost: {:?}",
        got.iter()
            .filter(|i| !want.contains(i))
            .map(|i| i.chars().take(20).collect::<String>())
            .collect::<Vec<_>>()
    );
    // One model turn per valid frame, none for the garbage.
    assert!(wait_for(60, || a.mock.requests().len() >= want.len()));
    assert_eq!(a.mock.requests().len(), want.len());
    a.finish();
}

/// The text of frame `f` of writer `w` in round `r`: about 100 KB of numbered lines.
fn big_text(r: usize, w: usize, f: usize) -> String {
    let mut s = format!("R{r}W{w}F{f} begins\n");
    let mut n = 0;
    while s.len() < 100_000 {
        s.push_str(&format!(
            "W{w}F{f} line {n}: the quick brown fox jumps over it\n"
        ));
        n += 1;
    }
    s.push_str(&format!("R{r}W{w}F{f} ends"));
    s
}

#[test]
fn raw_writers_of_large_frames_give_whole_inputs_or_none() {
    let env = Env::new();
    let a = start(&env, "W");
    let (writers, frames, rounds) = (4, 2, 2);
    let mut sent = Vec::new();
    for r in 0..rounds {
        // Every frame's text is unique (round, writer, frame), so a repeat is a bug.
        let files: Vec<PathBuf> = (0..writers)
            .map(|w| {
                let mut bytes = Vec::new();
                for f in 0..frames {
                    let t = big_text(r, w, f);
                    bytes.extend(Frame::user_input(&t).encode());
                    sent.push(t);
                }
                let p = env.dir.path().join(format!("r{r}w{w}.resp"));
                std::fs::write(&p, bytes).unwrap();
                p
            })
            .collect();
        let mut kids: Vec<_> = files.iter().map(|p| cat_to(p, &a.fifo)).collect();
        for k in &mut kids {
            assert!(k.wait().unwrap().success());
        }
    }
    a.mark_end();
    let got = a.inputs();
    let bad: Vec<(usize, String)> = got
        .iter()
        .filter(|i| *i != "END-MARK" && !sent.contains(i))
        .map(|i| (i.len(), i.chars().take(30).collect()))
        .collect();
    assert!(
        bad.is_empty(),
        "a mixed or partial text became input: {bad:?}"
    );
    let mut seen = std::collections::HashSet::new();
    assert!(
        got.iter().all(|i| seen.insert(i)),
        "an input was read twice"
    );
    let whole = got.len() - 1;
    assert!(whole <= writers * frames * rounds);
    eprintln!(
        "raw writers: {whole} of {} frames whole, the rest rejected",
        writers * frames * rounds
    );
    a.finish();
}
