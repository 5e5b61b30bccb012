//! Deterministic fuzzing of the parsers that read untrusted bytes: the RESP frame reader
//! (input.fifo, notify.fifo, notify.buf), the SSE parser (+ the three providers'
//! normalisers), the events.jsonl readers (`session::events::read_all` and the replay
//! scanner `ui::jscan`) and the quick read of stored conversation lines
//! (`session::line_meta`, checked against the full serde parse). A small xorshift PRNG with fixed seeds keeps every run identical;
//! the whole file takes a few seconds in a debug build.
//!
//! Besides "never panics", each loop checks an invariant that could fail:
//! decode(encode(frames)) == frames, a strict prefix of a frame never yields a frame,
//! SSE output does not depend on how the bytes are chunked, a stream always ends in Stop
//! or Error, and the events reader agrees with serde_json line by line.
//!
//! WebFetch's HTML to markdown conversion is fuzzed too: it never panics, text without
//! markup comes out with only its white space collapsed, and every word of a random
//! well-formed page of content elements comes out, in order.
//!
//! `tests/fuzz_corpus/{resp,sse,events,conversation,html}/` holds regression inputs (hand-written edge cases
//! and any crash the cargo-fuzz targets in `fuzz/` ever find); every file is replayed here.
use bash_agent::ipc::resp::{self, Frame, Item, Reader};
use bash_agent::provider::norm::run_text;
use bash_agent::provider::sse::SseParser;
use bash_agent::provider::{ProviderKind, StreamEvent};
use bash_agent::session::events;
use serde_json::Value;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// xorshift64* — tiny, deterministic, good enough for input generation.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    /// Bytes biased towards the protocol's interesting characters.
    fn bytes(&mut self, max: usize) -> Vec<u8> {
        const SPECIAL: &[u8] = b"*$\r\n:{}[]\",\\0123456789 e-dt";
        let n = self.below(max + 1);
        (0..n)
            .map(|_| match self.below(4) {
                0 => self.next() as u8,
                1 => *self.pick(SPECIAL),
                _ => b'a' + self.below(26) as u8,
            })
            .collect()
    }
    fn text(&mut self, max: usize) -> String {
        const PIECES: &[&str] = &[
            "a", "b", " ", "\n", "\r\n", "\"", "\\", "é", "✓", "\u{1}", "\t", "{", "}", "😀",
            "data: ", "event: ", "*2", "$3", "/", "\u{7f}",
        ];
        let n = self.below(max + 1);
        (0..n).map(|_| *self.pick(PIECES)).collect()
    }
}

/// Each loop runs for its iteration count or until its time share is used up (so a slow
/// machine still finishes in bounded time; the counts are reached on a normal one).
fn budget(iters: usize, secs: f64, mut f: impl FnMut(usize)) -> usize {
    let t0 = Instant::now();
    let limit = Duration::from_secs_f64(secs);
    let mut done = 0;
    while done < iters && (done < 50 || t0.elapsed() < limit) {
        f(done);
        done += 1;
    }
    eprintln!("budget: {done}/{iters} in {:?}", t0.elapsed());
    done
}

// ---------------------------------------------------------------- RESP

fn random_frame(r: &mut Rng) -> Frame {
    let n = 1 + r.below(6);
    Frame(
        (0..n)
            .map(|_| {
                if r.chance(15) {
                    Vec::new()
                } else {
                    r.bytes(40)
                }
            })
            .collect(),
    )
}

/// Decode with both reader flavours; returns (frames, skips) of the strict decoder and
/// checks the plain-line reader terminates and never panics.
fn resp_decode(bytes: &[u8]) -> (Vec<Frame>, usize) {
    let mut skips = 0;
    let frames = resp::decode_all(bytes, |_| skips += 1);
    let mut rd = Reader::with_plain_lines(Cursor::new(bytes));
    let mut items = 0;
    while let Ok(Some(item)) = rd.next_item() {
        items += 1;
        assert!(items <= bytes.len() + 1, "reader does not make progress");
        if let Item::Line(l) = item {
            assert!(!l.contains('\n'), "a plain line carries a newline: {l:?}");
        }
    }
    assert!(frames.len() + skips <= bytes.len() + 1);
    (frames, skips)
}

/// The RESP invariants for one input (also used for corpus files).
fn check_resp_input(bytes: &[u8]) {
    resp_decode(bytes);
    // Garbage without `*` or `$`, ended by a newline, never hides a following frame.
    let clean: Vec<u8> = bytes
        .iter()
        .copied()
        .filter(|b| *b != b'*' && *b != b'$')
        .collect();
    let good = Frame::new(["USER_INPUT", "0", "after garbage"]);
    let mut input = clean;
    input.push(b'\n');
    input.extend(good.encode());
    let (frames, _) = resp_decode(&input);
    assert_eq!(
        frames.last(),
        Some(&good),
        "frame lost after {:?}",
        String::from_utf8_lossy(bytes)
    );
}

#[test]
fn resp_round_trip_and_random_bytes() {
    let mut r = Rng::new(1);
    let n = budget(10000, 1.2, |_| {
        // Round trip of a batch of frames.
        let frames: Vec<Frame> = (0..1 + r.below(4)).map(|_| random_frame(&mut r)).collect();
        let mut wire = Vec::new();
        for f in &frames {
            wire.extend(f.encode());
        }
        let (got, skips) = resp_decode(&wire);
        assert_eq!(skips, 0);
        assert_eq!(got, frames);
        // LF-only headers (the reference's writers) decode the same.
        let lf = String::from_utf8_lossy(&frames[0].encode()).into_owned();
        if frames[0].0.iter().all(|f| std::str::from_utf8(f).is_ok()) {
            let mut alt = Vec::new();
            alt.extend(format!("*{}\n", frames[0].len()).as_bytes());
            for f in &frames[0].0 {
                alt.extend(format!("${}\n", f.len()).as_bytes());
                alt.extend(f);
                alt.extend(b"\r\n");
            }
            let (got, _) = resp_decode(&alt);
            assert_eq!(got.first(), Some(&frames[0]), "{lf:?}");
        }
        // A strict, non-empty prefix of one frame never yields a frame.
        let one = frames[0].encode();
        let cut = 1 + r.below(one.len() - 1);
        let (got, skips) = resp_decode(&one[..cut]);
        assert!(
            got.is_empty(),
            "prefix {:?} decoded",
            String::from_utf8_lossy(&one[..cut])
        );
        assert!(
            skips >= 1,
            "prefix {:?} not reported",
            String::from_utf8_lossy(&one[..cut])
        );
        // Random bytes.
        check_resp_input(&r.bytes(200));
    });
    assert!(n >= 50);
}

#[test]
fn resp_mutated_streams() {
    let mut r = Rng::new(2);
    budget(10000, 1.0, |_| {
        let mut wire = Vec::new();
        for _ in 0..1 + r.below(3) {
            wire.extend(random_frame(&mut r).encode());
        }
        for _ in 0..1 + r.below(4) {
            let at = r.below(wire.len() + 1);
            match r.below(4) {
                0 if at < wire.len() => wire[at] = r.next() as u8,
                1 if at < wire.len() => {
                    wire.remove(at);
                }
                2 => wire.insert(at, *r.pick(b"*$\r\n0123456789")),
                _ => {
                    // A count/length header with a huge or odd number.
                    let h = format!(
                        "{}{}\r\n",
                        r.pick(&["*", "$"]),
                        r.pick(&["0", "-1", "99999999", "4097", "67108865", "x", ""])
                    );
                    wire.splice(at..at, h.bytes());
                }
            }
        }
        check_resp_input(&wire);
    });
}

#[test]
fn resp_caps_are_enforced() {
    let mut skipped = Vec::new();
    let f = resp::decode_all(b"*4097\r\n", |e| skipped.push(e.to_string()));
    assert!(f.is_empty() && skipped.len() == 1, "{skipped:?}");
    let mut skipped = 0;
    let f = resp::decode_all(b"*1\r\n$67108865\r\nx\r\n", |_| skipped += 1);
    assert!(f.is_empty() && skipped >= 1);
    // The largest allowed field count decodes.
    let big = Frame((0..resp::MAX_FIELDS).map(|_| b"x".to_vec()).collect());
    assert_eq!(
        resp::decode_all(&big.encode(), |e| panic!("{e}")),
        vec![big]
    );
}

// ---------------------------------------------------------------- SSE

fn sse_events(chunks: &[&[u8]]) -> Vec<(String, String)> {
    let mut p = SseParser::new();
    let mut out = Vec::new();
    let mut cb = |n: &str, d: &str| out.push((n.to_string(), d.to_string()));
    for c in chunks {
        p.feed(c, &mut cb);
    }
    p.finish(&mut cb);
    out
}

fn random_chunks<'a>(r: &mut Rng, bytes: &'a [u8]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = (1 + r.below(8)).min(rest.len());
        let n = if r.chance(20) {
            rest.len().min(n * 16)
        } else {
            n
        };
        out.push(&rest[..n]);
        rest = &rest[n..];
        if r.chance(5) {
            out.push(&[]);
        }
    }
    out
}

/// The SSE invariants for one input (also used for corpus files).
fn check_sse_input(r: &mut Rng, bytes: &[u8]) {
    let whole = sse_events(&[bytes]);
    let chunks = random_chunks(r, bytes);
    assert_eq!(sse_events(&chunks), whole, "chunking changed the events");
    for (_, d) in &whole {
        assert!(!d.contains('\r'), "a CR leaked into data");
    }
    for kind in [
        ProviderKind::Claude,
        ProviderKind::OpenAi,
        ProviderKind::Responses,
    ] {
        let (evs, _) = run_text(kind, bytes);
        assert!(
            matches!(
                evs.last(),
                Some(StreamEvent::Stop(_)) | Some(StreamEvent::Error(_))
            ),
            "{kind:?}: stream did not end in Stop/Error: {:?}",
            evs.last()
        );
    }
}

#[test]
fn sse_well_formed_streams_parse_exactly() {
    let mut r = Rng::new(3);
    budget(6000, 1.0, |_| {
        let n = r.below(6);
        let mut wire = Vec::new();
        let mut want = Vec::new();
        let eol = *r.pick(&["\n", "\r\n", "\r"]);
        for _ in 0..n {
            if r.chance(20) {
                wire.extend(format!(": comment {}{eol}", r.below(99)).bytes());
            }
            let name = if r.chance(30) {
                None
            } else {
                Some(format!("ev{}", r.below(9)))
            };
            let lines: Vec<String> = (0..1 + r.below(3))
                .map(|_| r.text(20).replace(['\r', '\n'], "_"))
                .collect();
            if let Some(nm) = &name {
                wire.extend(format!("event: {nm}{eol}").bytes());
            }
            for l in &lines {
                let sep = if r.chance(50) { " " } else { "" };
                // A value starting with a space keeps it when there is no separator space.
                let sep = if l.starts_with(' ') { " " } else { sep };
                wire.extend(format!("data:{sep}{l}{eol}").bytes());
            }
            wire.extend(eol.bytes());
            want.push((name.unwrap_or_else(|| "message".into()), lines.join("\n")));
        }
        let chunks = random_chunks(&mut r, &wire);
        assert_eq!(
            sse_events(&chunks),
            want,
            "{:?}",
            String::from_utf8_lossy(&wire)
        );
    });
}

#[test]
fn sse_random_and_mutated_provider_streams() {
    let mut r = Rng::new(4);
    // Real streams from the mock server's generator, then mutated.
    let step: bash_agent::mock::script::Step = serde_json::from_str(
        r#"{"thinking":"hm","text":"Hello wörld","tool_calls":[{"name":"Read","id":"t1","input":{"path":"a"}}],"chunk":3}"#,
    )
    .unwrap();
    let wires = [
        bash_agent::mock::wire::Wire::Anthropic,
        bash_agent::mock::wire::Wire::OpenAi,
        bash_agent::mock::wire::Wire::Responses,
    ];
    let streams: Vec<Vec<u8>> = wires
        .iter()
        .map(|w| {
            bash_agent::mock::wire::frames(*w, &step)
                .into_iter()
                .filter_map(|f| match f {
                    bash_agent::mock::wire::Frame::Sse(s) => Some(s.into_bytes()),
                    _ => None,
                })
                .flatten()
                .collect()
        })
        .collect();
    budget(1500, 1.2, |i| {
        let mut s = if i % 4 == 0 {
            r.bytes(300)
        } else {
            r.pick(&streams).clone()
        };
        for _ in 0..r.below(6) {
            let at = r.below(s.len() + 1);
            match r.below(3) {
                0 if at < s.len() => s[at] = r.next() as u8,
                1 if at < s.len() => {
                    s.truncate(at);
                }
                _ => s.insert(at, *r.pick(b"\r\n{}\":,")),
            }
        }
        check_sse_input(&mut r, &s);
    });
}

// ---------------------------------------------------------------- events.jsonl

fn random_event_line(r: &mut Rng) -> String {
    use bash_agent::session::events::ev;
    let t = r.text(30);
    match r.below(7) {
        0 => ev::text(&t),
        1 => ev::thinking(&t),
        2 => ev::user_input(&t),
        3 => ev::tool_result("toolu_1", "Bash", &t),
        4 => ev::tool_call(
            "Write",
            "call_1",
            &format!("{{\"path\":{}}}", serde_json::to_string(&t).unwrap()),
        ),
        5 => {
            let reasons = ["end_turn", "tool_use", "interrupted"];
            ev::stop(reasons[r.below(reasons.len())])
        }
        _ => ev::error(&t),
    }
}

/// Lossy text of a line as the reader sees it (`\r` trimmed).
fn oracle(line: &[u8]) -> Option<Option<Value>> {
    let text = String::from_utf8_lossy(line);
    let t = text.trim_end_matches(['\n', '\r']);
    if t.trim().is_empty() {
        return None; // blank: neither good nor bad
    }
    match serde_json::from_str::<Value>(t) {
        Ok(v) if v.get("type").and_then(Value::as_str).is_some() => Some(Some(v)),
        _ => Some(None),
    }
}

/// Write `lines` (each without its newline) and compare `read_all` with serde line by line.
fn check_events_file(dir: &Path, content: &[u8]) {
    let p = dir.join("events.jsonl");
    std::fs::write(&p, content).unwrap();
    let (good, bad) = events::read_all(&p);
    let mut want_good = Vec::new();
    let mut want_bad = Vec::new();
    let mut lines: Vec<&[u8]> = content.split(|b| *b == b'\n').collect();
    if content.ends_with(b"\n") {
        lines.pop();
    }
    for (i, l) in lines.iter().enumerate() {
        match oracle(l) {
            None => {}
            Some(Some(v)) => want_good.push(v),
            Some(None) => want_bad.push(i + 1),
        }
    }
    assert_eq!(good, want_good);
    assert_eq!(bad.iter().map(|b| b.line_no).collect::<Vec<_>>(), want_bad);
    // The replay scanner accepts every line serde accepts, with the same keys in order.
    for l in &lines {
        let Ok(text) = std::str::from_utf8(l) else {
            let _ = bash_agent::ui::jscan::object_line(l);
            continue;
        };
        let scanned = bash_agent::ui::jscan::object_line(l);
        if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(text.trim_end_matches('\r')) {
            let keys: Vec<Vec<u8>> = m.keys().map(|k| k.as_bytes().to_vec()).collect();
            // serde keeps one entry per key (at its first position); the scanner reports
            // every occurrence (lookups take the first, as the reference awk does).
            let mut got: Vec<Vec<u8>> = Vec::new();
            // The scanner refuses nesting deeper than the awk replay does (MAX_DEPTH);
            // serde_json goes to 128. Anything else serde accepts, it must accept.
            let Some(scanned) = scanned else {
                let d = depth(&Value::Object(m));
                assert!(
                    d > bash_agent::ui::jscan::MAX_DEPTH,
                    "jscan rejected a valid object: {text:?}"
                );
                continue;
            };
            for (k, _) in scanned {
                if !got.contains(&k) {
                    got.push(k);
                }
            }
            if !keys.iter().any(|k| k.contains(&0)) {
                assert_eq!(got, keys, "{text:?}");
            }
        }
    }
}

#[test]
fn events_reader_agrees_with_serde() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = Rng::new(5);
    budget(600, 1.0, |_| {
        let mut content = Vec::new();
        for _ in 0..r.below(12) {
            let line = random_event_line(&mut r).into_bytes();
            match r.below(8) {
                0 => content.extend(&line[..r.below(line.len())]), // torn
                1 => content.extend(r.bytes(40)),                  // garbage
                2 => {}                                            // blank
                3 => {
                    content.extend(&line);
                    content.push(b'\r');
                }
                4 => {
                    // invalid UTF-8 inside a string
                    let mut l = line.clone();
                    if let Some(q) = l.iter().rposition(|b| *b == b'"') {
                        l.insert(q, 0xff);
                    }
                    content.extend(l);
                }
                _ => content.extend(&line),
            }
            content.push(b'\n');
        }
        if r.chance(30) {
            content.extend(r.bytes(30)); // no final newline
        }
        check_events_file(dir.path(), &content);
    });
}

// ---------------------------------------------------------------- conversation lines

/// Lines of the shapes the agent stores, with the pieces the quick read must decline or
/// get right: escapes, duplicate keys, numbers, nesting, other roles and block types.
fn random_conversation_line(r: &mut Rng) -> String {
    let s = |r: &mut Rng| serde_json::to_string(&r.text(12)).unwrap();
    let role = *r.pick(&["\"user\"", "\"assistant\"", "\"system\"", "1", "null"]);
    let block = |r: &mut Rng| -> String {
        match r.below(6) {
            0 => format!("{{\"type\":\"text\",\"text\":{}}}", s(r)),
            1 => format!(
                "{{\"type\":\"tool_use\",\"id\":{},\"name\":\"Read\",\"input\":{{\"path\":{}}}}}",
                s(r),
                s(r)
            ),
            2 => format!(
                "{{\"type\":\"tool_result\",\"tool_use_id\":{},\"content\":{},\"is_error\":false}}",
                s(r),
                s(r)
            ),
            3 => format!("{{\"type\":\"tool_use\",\"id\":{},\"id\":{}}}", s(r), s(r)),
            4 => "{\"type\":\"thinking\",\"thinking\":\"\",\"n\":-1.5e3}".to_string(),
            _ => format!("[{}]", s(r)),
        }
    };
    let content = if r.chance(40) {
        s(r)
    } else {
        let n = r.below(4);
        let blocks: Vec<String> = (0..n).map(|_| block(r)).collect();
        format!("[{}]", blocks.join(","))
    };
    match r.below(5) {
        0 => format!("{{\"content\":{content},\"role\":{role}}}"),
        1 => format!("{{\"role\":{role},\"role\":\"user\",\"content\":{content}}}"),
        _ => format!("{{\"role\":{role},\"content\":{content}}}"),
    }
}

/// `line_meta::meta` (its quick one-pass read first) gives what the full parse gives.
fn check_conversation_line(line: &str) {
    use bash_agent::session::line_meta::{meta, slow};
    assert_eq!(meta(line), slow(line), "{line:?}");
}

#[test]
fn conversation_lines_agree_with_serde() {
    let mut r = Rng::new(7);
    budget(4000, 1.0, |_| {
        let line = random_conversation_line(&mut r);
        check_conversation_line(&line);
        let b = line.as_bytes();
        // Cut, with a byte changed, with garbage after: still the serde answer.
        let cut = &b[..r.below(b.len())];
        let mut changed = b.to_vec();
        let at = r.below(changed.len());
        changed[at] = *r.pick(&b"{}[]\",:\\ 0ae-"[..]);
        let mut tail = b.to_vec();
        tail.extend(r.bytes(6));
        for v in [cut.to_vec(), changed, tail] {
            if let Ok(t) = std::str::from_utf8(&v) {
                check_conversation_line(t);
            }
        }
    });
}

// ---------------------------------------------------------------- HTML

/// The conversion of `html`; text with no `<` and no `&` must come out as its words.
fn check_html_input(html: &str) -> String {
    let md = bash_agent::tools::webfetch::html_to_markdown(html);
    if !html.contains(['<', '&']) {
        let words: Vec<&str> = html.split_ascii_whitespace().collect();
        assert_eq!(md, words.join(" "), "{html:?}");
    }
    md
}

/// A random well-formed tree of content elements around the words w0, w1, ... (appended to
/// `words` in document order).
fn random_page(r: &mut Rng, depth: usize, words: &mut Vec<String>, out: &mut String) {
    const TAGS: &[&str] = &[
        "p",
        "div",
        "b",
        "em",
        "code",
        "a href=/x",
        "h2",
        "ul",
        "ol",
        "li",
        "blockquote",
        "pre",
        "table",
        "tr",
        "td",
        "th",
        "span",
        "dl",
        "dt",
        "dd",
        "section",
        "del",
        "a",
    ];
    for _ in 0..1 + r.below(4) {
        if depth < 6 && r.chance(45) {
            let tag = *r.pick(TAGS);
            let name = tag.split(' ').next().unwrap_or(tag);
            out.push_str(&format!("<{tag}>"));
            random_page(r, depth + 1, words, out);
            if r.chance(90) {
                out.push_str(&format!("</{name}>"));
            }
        } else {
            let w = format!("w{}", words.len());
            out.push_str(&w);
            const AFTER: &[&str] = &[" ", "\n", "", "<br>", "&nbsp;", " &amp; "];
            let after = *r.pick(AFTER);
            out.push_str(after);
            words.push(w);
        }
    }
}

#[test]
fn html_conversion_never_panics_and_keeps_every_word() {
    let mut r = Rng::new(7);
    budget(3000, 4.0, |_| {
        let mut page = String::new();
        let mut words = Vec::new();
        random_page(&mut r, 0, &mut words, &mut page);
        let md = check_html_input(&page);
        let mut at = 0;
        for w in &words {
            // w1 must not be found inside w12: the word with a non-digit after it.
            let found = md[at..]
                .match_indices(w.as_str())
                .find(|(k, _)| !md[at + k + w.len()..].starts_with(|c: char| c.is_ascii_digit()));
            let Some((k, _)) = found else {
                panic!("{w} missing or out of order in {md:?} from {page:?}");
            };
            at += k + w.len();
        }
    });
    budget(3000, 3.0, |_| {
        let text = r.text(200);
        check_html_input(&text);
        let mut bytes = r.bytes(300);
        for _ in 0..r.below(8) {
            let piece = *r.pick(&[
                &b"<p>"[..],
                b"</li>",
                b"<!--",
                b"<script>",
                b"<a href='",
                b"&#x",
                b"<pre>",
                b"<table><td>",
                b"&amp",
                b"</",
            ]);
            let at = r.below(bytes.len() + 1);
            bytes.splice(at..at, piece.iter().copied());
        }
        check_html_input(&String::from_utf8_lossy(&bytes));
    });
}

// ---------------------------------------------------------------- corpus

fn corpus(kind: &str) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_corpus")
        .join(kind);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

#[test]
fn corpus_regressions_replay() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = Rng::new(6);
    let mut n = 0;
    for p in corpus("resp") {
        check_resp_input(&std::fs::read(&p).unwrap());
        n += 1;
    }
    for p in corpus("sse") {
        check_sse_input(&mut r, &std::fs::read(&p).unwrap());
        n += 1;
    }
    for p in corpus("events") {
        check_events_file(dir.path(), &std::fs::read(&p).unwrap());
        n += 1;
    }
    for p in corpus("conversation") {
        for l in String::from_utf8_lossy(&std::fs::read(&p).unwrap()).lines() {
            check_conversation_line(l);
        }
        n += 1;
    }
    for p in corpus("html") {
        check_html_input(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
        n += 1;
    }
    assert!(n >= 9, "corpus too small: {n} files");
}

/// Containers nested in `v`, `v` itself included.
fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}
