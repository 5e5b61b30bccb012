//! Tests of the framing module.
use super::*;
use crate::ipc::resp::encode;

fn run(chunks: &[&[u8]]) -> Vec<Event> {
    let mut d = Decoder::new();
    let mut out = Vec::new();
    for c in chunks {
        d.feed(c);
        while let Some(e) = d.next_event() {
            out.push(e);
        }
    }
    out
}

fn line(s: &str) -> Event {
    Event::Line(s.into())
}

#[test]
fn frames_and_lines_byte_by_byte() {
    let mut bytes = encode(&["USER_INPUT", "0", "a\r\nb"]);
    bytes.extend(b"plain\n");
    bytes.extend(encode(&["X", ""]));
    let chunks: Vec<&[u8]> = bytes.chunks(1).collect();
    let got = run(&chunks);
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(matches!(&got[0], Event::Frame(f) if f.field(2) == "a\r\nb"));
    assert_eq!(got[1], line("plain"));
    assert!(matches!(&got[2], Event::Frame(f) if f.len() == 2 && f.raw(1).is_empty()));
}

#[test]
fn plain_line_right_after_a_bad_frame_is_kept() {
    for bad in [
        &b"*x\r\n"[..],
        b"*1\r\n$3\r\nabcXY\r\n",
        b"*2\r\n$3\r\nabcdef\r\n$1\r\nx\r\n",
        b"*0\r\n",
        b"*2\r\n:5\r\nhello\r\n:1\r\nx\r\n",
    ] {
        let got = run(&[&[bad, &b"hello\n"[..]].concat()]);
        assert!(matches!(got[0], Event::Malformed(_)), "{got:?}");
        assert_eq!(got.last(), Some(&line("hello")), "{bad:?}: {got:?}");
        assert_eq!(got.len(), 2, "{got:?}");
    }
}

#[test]
fn unfinished_writers_never_glue() {
    // Glued in front of a frame.
    let got = run(&[&[&b"partial"[..], &encode(&["USER_INPUT", "0", "x"])].concat()]);
    assert!(
        matches!(&got[0], Event::Dropped(m) if m.contains("7 bytes")),
        "{got:?}"
    );
    assert!(matches!(&got[1], Event::Frame(f) if f.field(2) == "x"));
    // A writer gone with a partial line, then the next writer's line.
    let mut d = Decoder::new();
    d.feed(b"partial");
    assert_eq!(d.next_event(), None);
    d.writers_gone();
    assert!(matches!(d.next_event(), Some(Event::Dropped(_))));
    assert_eq!(d.next_event(), None);
    d.feed(b"hello\n");
    assert_eq!(d.next_event(), Some(line("hello")));
    // A frame cut by its writer's end, then a line.
    d.feed(b"*2\r\n$10\r\nUSER_INPUT\r\n$5000\r\nshort");
    assert_eq!(d.next_event(), None);
    d.writers_gone();
    assert_eq!(
        d.next_event(),
        Some(Event::Malformed(FrameError::Truncated))
    );
    assert_eq!(d.next_event(), None);
    d.feed(b"next\n");
    assert_eq!(d.next_event(), Some(line("next")));
    // A frame whose writer died before a field header, then a plain line.
    let got = run(&[b"*3\r\n$10\r\nUSER_INPUT\r\nhello\n"]);
    assert_eq!(
        got,
        vec![Event::Malformed(FrameError::Truncated), line("hello")]
    );
}

#[test]
fn crlf_fragments_are_not_input() {
    let got = run(&[b"xxxxfragment of a torn frame\r\n$5\r\n", b"ok\n"]);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(matches!(got[0], Event::Dropped(_)));
    assert_eq!(got[1], line("ok"));
}

#[test]
fn long_lines_are_discarded_not_kept() {
    let mut d = Decoder::new();
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..(MAX_LINE >> 20) + 2 {
        d.feed(&chunk);
        assert_eq!(d.next_event(), None);
    }
    assert!(d.buf.capacity() <= MAX_LINE * 2 + (2 << 20));
    d.feed(b"tail\nafter\n");
    assert!(matches!(d.next_event(), Some(Event::Dropped(m)) if m.contains("longer than")));
    assert_eq!(d.next_event(), Some(line("after")));
}

#[test]
fn binary_bytes_never_become_lines_until_every_writer_closed() {
    let mut junk = b"*3\r\n$10\r\nUSER_IN".to_vec();
    let mut x: u32 = 0x2545_f491;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        junk.push(x as u8);
    }
    junk.extend(b"\nclean looking line\n");
    junk.extend(encode(&["USER_INPUT", "0", "valid"]));
    let mut d = Decoder::new();
    d.feed(&junk);
    let mut got = Vec::new();
    while let Some(e) = d.next_event() {
        got.push(e);
    }
    assert!(!got.iter().any(|e| matches!(e, Event::Line(_))), "{got:?}");
    let frames: Vec<_> = got
        .iter()
        .filter(|e| matches!(e, Event::Frame(_)))
        .collect();
    assert_eq!(frames.len(), 1, "{got:?}");
    // Every writer closed: a new writer's line is input again.
    d.writers_gone();
    assert_eq!(d.next_event(), None);
    d.feed(b"hello\n");
    assert_eq!(d.next_event(), Some(line("hello")));
}

#[test]
fn a_frame_inside_a_lying_frame_is_read_and_the_rest_is_not_input() {
    // A declares 9000 bytes, sends 5 and a line of its text; B's frame follows at once.
    let mut bytes = b"*3\r\n$10\r\nUSER_INPUT\r\n$1\r\n0\r\n$9000\r\nabcde\nmore of A\n".to_vec();
    bytes.extend(encode(&["USER_INPUT", "0", "B"]));
    bytes.extend(vec![b'z'; 9000]);
    bytes.extend(b"\r\nrest of A\n");
    let got = run(&[&bytes]);
    let texts: Vec<_> = got
        .iter()
        .filter_map(|e| match e {
            Event::Frame(f) => Some(f.field(2)),
            Event::Line(l) => Some(l.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["B"], "{got:?}");
}
