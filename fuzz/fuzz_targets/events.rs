//! events.jsonl readers: `session::events::read_all` over a temp file must agree with
//! serde_json line by line; the replay scanner (`ui::jscan::object_line`) must accept
//! every object serde accepts, with the same keys.
#![no_main]
use bash_agent::session::events::read_all;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let mut f = tempfile_in_tmp();
    f.1.write_all(data).unwrap();
    let (good, bad) = read_all(&f.0);
    let _ = std::fs::remove_file(&f.0);
    let mut lines: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    if data.ends_with(b"\n") {
        lines.pop();
    }
    let (mut g, mut b) = (0, 0);
    for l in &lines {
        let text = String::from_utf8_lossy(l);
        let t = text.trim_end_matches(['\n', '\r']);
        if t.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(t) {
            Ok(v) if v.get("type").and_then(Value::as_str).is_some() => g += 1,
            _ => b += 1,
        }
        if let Ok(s) = std::str::from_utf8(l) {
            if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(s.trim_end_matches('\r')) {
                // The scanner refuses nesting deeper than the awk replay does (MAX_DEPTH);
                // serde_json goes to 128. Anything else serde accepts, it must accept.
                let Some(scanned) = bash_agent::ui::jscan::object_line(l) else {
                    let d = depth(&Value::Object(m));
                    assert!(
                        d > bash_agent::ui::jscan::MAX_DEPTH,
                        "jscan rejected valid JSON"
                    );
                    continue;
                };
                if !m.keys().any(|k| k.contains('\0')) {
                    let keys: Vec<&[u8]> = m.keys().map(|k| k.as_bytes()).collect();
                    // One entry per key, first occurrence (serde keeps the first position).
                    let mut got: Vec<&[u8]> = Vec::new();
                    for (k, _) in &scanned {
                        if !got.contains(&k.as_slice()) {
                            got.push(k.as_slice());
                        }
                    }
                    assert_eq!(got, keys);
                }
            }
        } else {
            let _ = bash_agent::ui::jscan::object_line(l);
        }
    }
    assert_eq!((good.len(), bad.len()), (g, b));
});

fn tempfile_in_tmp() -> (std::path::PathBuf, std::fs::File) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let p = std::env::temp_dir().join(format!(
        "bash-agent-fuzz-events-{}-{}.jsonl",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let f = std::fs::File::create(&p).unwrap();
    (p, f)
}

/// Containers nested in `v`, `v` itself included.
fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}
