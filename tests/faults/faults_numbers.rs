//! Numbers from frames are checked: a `--listen` agent receives AGENT_RESULT frames on its
//! real notify.fifo whose counts are not decimal, have a sign or do not fit; each is
//! rejected with an `error` event and changes no total. Two valid results near the largest
//! count saturate stats.json instead of wrapping to a negative number.

use crate::support::checks::*;
use crate::support::*;
use bash_agent::ipc::client::has_reader;
use bash_agent::ipc::fifo::write_frame;
use bash_agent::ipc::resp::Frame;
use std::process::Stdio;

fn result(sid: &str, counts: [&str; 5]) -> Frame {
    let mut f = vec!["AGENT_RESULT", sid, "ok", "", "done"];
    f.extend(counts);
    Frame::new(f)
}

#[test]
fn bad_counts_are_rejected_and_totals_saturate() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"repeat":true,"text":"noted."}]"#);
    let errlog = env.dir.path().join("stderr.log");
    let mut agent = Guard(
        env.cmd()
            .args(["--provider", "claude", "--base-url", &mock.base("claude")])
            .args(["--api-key", "sk-num", "--session", "N", "--listen"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&errlog).unwrap())
            .spawn()
            .unwrap(),
    );
    let sdir = env.session_dir("N");
    let nf = sdir.join("notify.fifo");
    assert!(wait_for(20, || has_reader(&nf)), "no notify reader");

    let big = "9223372036854775000";
    let frames = [
        result("sub_bad1", ["12abc", "1", "1", "1", "1"]),
        result("sub_bad2", ["1", "99999999999999999999", "0", "0", "1"]),
        result("sub_bad3", ["1", "1", "0", "0", "-5"]),
        result("sub_bad4", ["1", " 7", "0", "0", "1"]),
        result("sub_big1", [big, "0", "0", "0", big]),
        result("sub_big2", [big, "0", "0", "0", big]),
    ];
    for f in &frames {
        write_frame(&nf, f).unwrap();
    }
    let ev = sdir.join("events.jsonl");
    let count = |ty: &str, needle: &str| {
        events(&ev)
            .iter()
            .filter(|e| e["type"] == ty && e.to_string().contains(needle))
            .count()
    };
    assert!(
        wait_for(20, || count("error", "not a decimal count") == 4
            && count("sub_agent_result", "sub_big2") == 1),
        "events: {:?}",
        types(&events(&ev))
    );
    for bad in ["sub_bad1", "sub_bad2", "sub_bad3", "sub_bad4"] {
        assert_eq!(count("sub_agent_result", bad), 0, "{bad} was accepted");
    }
    // The result event is logged before the totals are added: wait for the second one.
    let read_stats = || -> serde_json::Value {
        serde_json::from_str(
            std::fs::read_to_string(sdir.join("stats.json"))
                .unwrap_or_default()
                .trim(),
        )
        .unwrap_or_default()
    };
    wait_for(20, || read_stats()["total_input_tokens"] == i64::MAX);
    let stats = read_stats();
    assert_eq!(stats["total_input_tokens"], i64::MAX, "{stats}");
    assert_eq!(stats["agent_request_count"], i64::MAX, "{stats}");
    for (k, v) in stats.as_object().unwrap() {
        if let Some(n) = v.as_number() {
            assert!(n.as_u64().is_some(), "{k} wrapped: {n}");
        }
    }

    write_frame(&sdir.join("input.fifo"), &Frame::new(["SESSION_END"])).unwrap();
    let st = wait_timeout(&mut agent, 30);
    assert_eq!(st.code(), Some(0));
    assert_no_panic(&std::fs::read_to_string(&errlog).unwrap());
    check_tree(&env.home);
}
