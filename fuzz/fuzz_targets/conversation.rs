//! Stored conversation lines: the quick one-pass read behind `session::line_meta::meta`
//! (a hand-written JSON scan, with serde as its fallback) must give, for every line, the
//! answer of the full serde_json parse (`line_meta::slow`).
#![no_main]
use bash_agent::session::line_meta::{meta, slow};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for l in data.split(|b| *b == b'\n') {
        if let Ok(line) = std::str::from_utf8(l) {
            assert_eq!(meta(line), slow(line), "{line:?}");
        }
    }
});
