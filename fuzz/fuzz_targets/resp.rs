//! RESP frame reader: arbitrary bytes through `decode_all` and the plain-line reader
//! (input.fifo mode). Invariants: no panic, progress, and the first frame of the input
//! round-trips through encode/decode.
#![no_main]
use bash_agent::ipc::resp::{self, Item, Reader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let frames = resp::decode_all(data, |_| {});
    for f in &frames {
        let again = resp::decode_all(&f.encode(), |e| panic!("re-encoded frame rejected: {e}"));
        assert_eq!(again.as_slice(), std::slice::from_ref(f));
    }
    let mut rd = Reader::with_plain_lines(std::io::Cursor::new(data));
    let mut n = 0usize;
    while let Ok(Some(item)) = rd.next_item() {
        n += 1;
        assert!(n <= data.len() + 1, "no progress");
        if let Item::Line(l) = item {
            assert!(!l.contains('\n'));
        }
    }
});
