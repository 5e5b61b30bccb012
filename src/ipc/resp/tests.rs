//! Tests of the resp module.
use super::*;

#[test]
fn exact_reference_frames() {
    let f = encode(&["USER_INPUT", "0", "h\u{e9}llo"]);
    assert_eq!(
        f,
        b"*3\r\n$10\r\nUSER_INPUT\r\n$1\r\n0\r\n$6\r\nh\xC3\xA9llo\r\n"
    );
    assert_eq!(f.len(), 40);
    assert_eq!(encode(&["NOTIFY_PENDING"]).len(), 25);
    assert_eq!(encode(&["SESSION_END"]).len(), 22);
    assert_eq!(encode(&["SESSION_END", "0"]).len(), 29);
    assert_eq!(encode(&["USER_NOTIFY", "also check tests"]).len(), 45);
}

#[test]
fn round_trip_and_empty_field() {
    let f = Frame::new(["TEXT", "", "a\r\nb"]);
    let got = decode_all(&f.encode(), |_| panic!("skip"));
    assert_eq!(got, vec![f]);
}

#[test]
fn lf_only_headers_tolerated() {
    let got = decode_all(b"*2\n$4\nTEXT\r\n$2\nhi\r\n", |_| panic!());
    assert_eq!(got[0].field(1), "hi");
}

#[test]
fn malformed_is_skipped_and_resyncs() {
    let mut bytes = b"garbage line\n*x\r\n".to_vec();
    bytes.extend(encode(&["NOTIFY_PENDING"]));
    let mut skipped = 0;
    let got = decode_all(&bytes, |_| skipped += 1);
    assert_eq!(skipped, 2);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].kind(), "NOTIFY_PENDING");
}

#[test]
fn caps_enforced() {
    let mut skipped = Vec::new();
    decode_all(b"*99999\r\n", |e| skipped.push(format!("{e}")));
    assert_eq!(skipped.len(), 1);
    let mut skipped = 0;
    decode_all(b"*1\r\n$999999999999\r\n", |_| skipped += 1);
    assert_eq!(skipped, 1);
}

#[test]
fn residue_of_a_bad_frame_is_not_plain_input() {
    // Field announced as 3 bytes but 6 follow: the rest must not become user input.
    let mut bytes = b"*2\r\n$3\r\nabcdef\r\n$1\r\nx\r\n".to_vec();
    bytes.extend(encode(&["USER_INPUT", "0", "ok"]));
    bytes.extend(b"after\n");
    let mut r = Reader::with_plain_lines(io::Cursor::new(bytes));
    assert!(matches!(r.next_item().unwrap(), Some(Item::Malformed(_))));
    match r.next_item().unwrap() {
        Some(Item::Frame(f)) => assert_eq!(f.field(2), "ok"),
        other => panic!("{other:?}"),
    }
    match r.next_item().unwrap() {
        Some(Item::Line(l)) => assert_eq!(l, "after"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn idle_input_ends_resync() {
    let mut r = Reader::with_plain_lines(io::Cursor::new(&b"*z\nhello\n"[..]));
    assert!(matches!(r.next_item().unwrap(), Some(Item::Malformed(_))));
    match r.next_item_with(|_| true).unwrap() {
        Some(Item::Line(l)) => assert_eq!(l, "hello"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn numbers_are_checked() {
    let f = Frame::new([
        "USAGE",
        "12",
        "",
        "9223372036854775807",
        "9223372036854775808",
    ]);
    assert_eq!(f.number(1), Ok(12));
    assert_eq!(f.number(2), Ok(0));
    assert_eq!(f.number(9), Ok(0));
    assert_eq!(f.number(3), Ok(MAX_NUMBER));
    assert!(f.number(4).is_err());
    for bad in ["-1", "1e3", " 5", "0x10", "99999999999999999999999"] {
        assert!(Frame::new(["USAGE", bad]).number(1).is_err(), "{bad}");
    }
}

#[test]
fn plain_lines() {
    let mut r = Reader::with_plain_lines(io::Cursor::new(&b"run the tests\n"[..]));
    match r.next_item().unwrap() {
        Some(Item::Line(l)) => assert_eq!(l, "run the tests"),
        other => panic!("{other:?}"),
    }
}
