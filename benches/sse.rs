//! SSE parsing throughput (not a test): ~50 MB of Anthropic-style SSE fed in 16 KiB
//! chunks, once through the bare parser and once through parser + normaliser.
//! Run: `cargo bench --bench sse`.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use bash_agent::provider::norm::{self, Flow};
use bash_agent::provider::sse::SseParser;
use bash_agent::provider::ProviderKind;
use std::time::Instant;

fn generate(target: usize) -> Vec<u8> {
    let mut s = String::with_capacity(target + 4096);
    s.push_str("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n");
    s.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    let mut i = 0u64;
    while s.len() < target {
        s.push_str("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"token ");
        s.push_str(&i.to_string());
        s.push_str(" of the streamed answer, with \\\"quotes\\\" and unicode é✓\"}}\n\n");
        if i.is_multiple_of(50) {
            s.push_str(": keep-alive\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n");
        }
        i += 1;
    }
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    s.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":999}}\n\n");
    s.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s.into_bytes()
}

fn main() {
    let data = generate(50 * 1024 * 1024);
    let mb = data.len() as f64 / (1024.0 * 1024.0);

    let t = Instant::now();
    let mut parser = SseParser::new();
    let mut events = 0usize;
    let mut bytes = 0usize;
    for c in data.chunks(16 * 1024) {
        parser.feed(c, &mut |_, d| {
            events += 1;
            bytes += d.len();
        });
    }
    parser.finish(&mut |_, _| events += 1);
    let secs = t.elapsed().as_secs_f64();
    println!(
        "sse parse:            {mb:.1} MB, {events} events in {secs:.3} s = {:.0} MB/s",
        mb / secs
    );

    let t = Instant::now();
    let mut n = norm::for_kind(ProviderKind::Claude);
    let mut parser = SseParser::new();
    let mut flow = Flow::Continue;
    let mut text_bytes = 0usize;
    let mut handle = |name: &str, d: &str| {
        if flow == Flow::Continue {
            flow = n.event(name, d, &mut |e| {
                if let bash_agent::provider::StreamEvent::Text(s) = e {
                    text_bytes += s.len();
                }
            });
        }
    };
    for c in data.chunks(16 * 1024) {
        parser.feed(c, &mut handle);
    }
    parser.finish(&mut handle);
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(flow, Flow::Done);
    println!(
        "sse parse+normalise:  {mb:.1} MB in {secs:.3} s = {:.0} MB/s ({text_bytes} bytes of text)",
        mb / secs
    );
    std::hint::black_box(bytes);
}
