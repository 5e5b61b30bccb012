//! A 50 MB answer (quotes, backslashes, control characters, non-ASCII and astral
//! characters, newlines) from a scripted Anthropic stream, sent once as ONE SSE data line
//! and (a tenth of it) in 16 KiB deltas: it is shown, logged and stored whole and byte for byte. (Its
//! peak memory is measured by `scripts/bench.sh`, `bench_huge_answer`, never asserted.)
use crate::support::checks::assert_no_panic;
use crate::support::*;

const SIZE: usize = 50_000_000;

fn answer() -> String {
    let block: String = (0..40)
        .map(|i| format!("line {i:02}: \"quoted\" back\\slash tab\there é ü 😀 \u{1} </b>\n"))
        .collect();
    let mut s = String::with_capacity(SIZE + block.len());
    while s.len() < SIZE {
        s.push_str(&block);
    }
    s
}

/// A JSON string literal of `s`, for the characters [`answer`] uses (serde_json's escaping
/// of them). std's `replace` is optimised even in a debug build; serde_json is not, and
/// escaping 100 MB with it would be most of this test's time.
fn q(s: &str) -> String {
    let e = s
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
        .replace('\u{1}', "\\u0001");
    format!("\"{e}\"")
}

/// The whole Anthropic stream, its text split into `pieces`.
fn stream(pieces: &[&str]) -> String {
    let mut out = String::from(concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    ));
    for p in pieces {
        out.push_str("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":");
        out.push_str(&q(p));
        out.push_str("}}\n\n");
    }
    out.push_str(concat!(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":12000000}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    ));
    out
}

/// Pieces of about `n` bytes, cut at character boundaries.
fn split(s: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let mut at = n.min(rest.len());
        while !rest.is_char_boundary(at) {
            at -= 1;
        }
        let (a, b) = rest.split_at(at);
        out.push(a);
        rest = b;
    }
    out
}

fn check_stored(text: &str, pieces: &[&str], session: &str) {
    let env = Env::new();
    let script = format!("[{{\"raw\":[{}]}}]", q(&stream(pieces)));
    let mock = Mock::start(&script);
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", session, "go"],
    );
    assert_no_panic(&stderr(&o));
    expect_code(&o, 0);
    assert!(
        o.stdout.len() >= text.len() && stdout(&o).contains(text),
        "the answer is shown whole"
    );
    // conversation.jsonl: the assistant line holds the answer exactly (compared as bytes:
    // parsing 50 MB twice in a debug build is what would make this test slow).
    let conv = env.read(session, "conversation.jsonl");
    let want = format!(
        "{{\"role\":\"assistant\",\"content\":[{{\"type\":\"thinking\",\"thinking\":\"\"}},{{\"type\":\"text\",\"text\":{}}}]}}\n",
        q(text)
    );
    let mut lines = conv.split_inclusive('\n');
    assert!(lines.next().unwrap().starts_with("{\"role\":\"user\""));
    let got = lines.next().unwrap_or("");
    assert_eq!(got.len(), want.len(), "the stored answer's length");
    assert!(got == want, "the stored answer differs");
    assert_eq!(lines.next(), None);
    // events.jsonl: one text event per delta, in order, that add up to the answer.
    let evs = std::fs::read_to_string(env.session_dir(session).join("events.jsonl")).unwrap();
    let want: String = pieces
        .iter()
        .map(|p| format!("{{\"type\":\"text\",\"content\":{}}}\n", q(p)))
        .collect();
    assert!(evs.contains(&want), "the logged answer differs");
    assert!(evs.ends_with("{\"type\":\"stop\",\"reason\":\"end_turn\"}\n"));
}

#[test]
fn a_50_mb_answer_is_stored_whole() {
    let text = answer();
    check_stored(&text, &[&text], "one-line");
    // In 16 KiB deltas: a tenth of it is enough to prove the joining (and keeps the debug
    // build's run short); bench.sh measures the memory of the whole 50 MB this way.
    let tenth = &text[..text.floor_char_boundary(SIZE / 10)];
    check_stored(tenth, &split(tenth, 16 * 1024), "deltas");
}
