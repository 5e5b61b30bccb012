//! SSE parser + the three providers' normalisers. Invariants: no panic, the events do
//! not depend on chunking (the first byte picks a split point), a stream always ends in
//! Stop or Error.
#![no_main]
use bash_agent::provider::norm::run_text;
use bash_agent::provider::sse::SseParser;
use bash_agent::provider::{ProviderKind, StreamEvent};
use libfuzzer_sys::fuzz_target;

fn parse(chunks: &[&[u8]]) -> Vec<(String, String)> {
    let mut p = SseParser::new();
    let mut out = Vec::new();
    let mut cb = |n: &str, d: &str| out.push((n.to_string(), d.to_string()));
    for c in chunks {
        p.feed(c, &mut cb);
    }
    p.finish(&mut cb);
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else {
        return;
    };
    let whole = parse(&[rest]);
    let at = (k as usize).min(rest.len());
    let step = 1 + (k as usize % 7);
    let mut chunks: Vec<&[u8]> = vec![&rest[..at]];
    chunks.extend(rest[at..].chunks(step));
    assert_eq!(parse(&chunks), whole);
    for kind in [
        ProviderKind::Claude,
        ProviderKind::OpenAi,
        ProviderKind::Responses,
    ] {
        let (evs, _) = run_text(kind, rest);
        assert!(matches!(
            evs.last(),
            Some(StreamEvent::Stop(_)) | Some(StreamEvent::Error(_))
        ));
    }
});
