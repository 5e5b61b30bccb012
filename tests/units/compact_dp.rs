//! Decision-table tests for the compaction cost model (model-tools.md §6.3–6.4), against
//! values computed by hand (see the comments for the arithmetic).
use bash_agent::agent::compact::dp::{dp_choose, dp_keep, line_tokens, turn_keep, DpParams};
use bash_agent::session::stats::Stats;

/// A line of exactly `tokens` estimated tokens (`bytes = 4·(tokens−1)`).
fn padded(prefix: &str, suffix: &str, tokens: u64) -> String {
    let bytes = 4 * (tokens as usize - 1);
    let pad = bytes - prefix.len() - suffix.len();
    let l = format!("{prefix}{}{suffix}", "x".repeat(pad));
    assert_eq!(line_tokens(&l), tokens);
    l
}
fn u(t: u64) -> String {
    padded(r#"{"role":"user","content":""#, r#""}"#, t)
}
fn a(t: u64) -> String {
    padded(
        r#"{"role":"assistant","content":[{"type":"text","text":""#,
        r#""}]}"#,
        t,
    )
}
fn tr(t: u64) -> String {
    padded(
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":""#,
        r#""}]}"#,
        t,
    )
}
/// `n` lines alternating user/assistant, each `t` tokens.
fn alternating(n: usize, t: u64) -> Vec<String> {
    (0..n)
        .map(|i| if i % 2 == 0 { u(t) } else { a(t) })
        .collect()
}

const M: u64 = 200_000;

fn close(x: f64, y: f64) {
    assert!((x - y).abs() < 1e-9, "{x} != {y}");
}

#[test]
fn sizes() {
    assert_eq!(line_tokens(""), 1);
    assert_eq!(line_tokens("a"), 2);
    assert_eq!(line_tokens("abcd"), 2);
    assert_eq!(line_tokens("abcde"), 3);
}

// Fresh stats: E = max(8−0, 4) = 8, L = 5, R = 40, avg = 4000, r_t = 0.8,
// info_loss = 0.03·0.2·40·4000·3/1e6 = 0.00288.
// benefit(k) = (39·0.3·H − 2.7·(500+K) − (1500 + 3·(H+70) + 7500))/1e6 − 0.00288
//            = (8.7·H − 2.7·K − 10560)/1e6 − 0.00288

#[test]
fn ten_lines_of_2000_keeps_from_a_user_turn() {
    // T = 20000, min_keep = max(3, int(2.5+0.5)) = 3, max_keep = int(7.5+0.5) = 8.
    // k=3: H=14000, K=6000 → (121800 − 16200 − 10560)/1e6 − 0.00288 = 0.09216 (best).
    let lines = alternating(10, 2000);
    let c = dp_choose(&lines, &DpParams::default(), &Stats::default(), M).unwrap();
    assert_eq!((c.k, c.min_keep, c.max_keep), (3, 3, 8));
    close(c.benefit, 0.09216);
    // Cut at index 7 (assistant) moves back to index 6 (user) → keep 4; dropped = 12000
    // ≥ H_min = 10000. (The reference measured the KEPT 8000 tokens and would refuse.)
    assert_eq!(
        dp_keep(&lines, &DpParams::default(), &Stats::default(), M),
        4
    );
}

#[test]
fn guard_checks_dropped_not_kept_tokens() {
    // U9000 U5000 A5000 U5000: min_keep = max_keep = 3 → k=3, H = 9000, K = 15000:
    // (78300 − 40500 − 10560)/1e6 − 0.00288 = 0.02436 > 0. Cut lands on index 1 (user).
    // Dropped 9000 < 10000 → 0, although the kept 15000 would pass the reference's check.
    let lines = vec![u(9000), u(5000), a(5000), u(5000)];
    let c = dp_choose(&lines, &DpParams::default(), &Stats::default(), M).unwrap();
    assert_eq!(c.k, 3);
    close(c.benefit, 0.02436);
    assert_eq!(
        dp_keep(&lines, &DpParams::default(), &Stats::default(), M),
        0
    );
    // With S = 400, H_min = 8000 ≤ 9000 → keep 3 (benefit changes but stays positive).
    let p = DpParams {
        s: 400.0,
        ..DpParams::default()
    };
    assert_eq!(dp_keep(&lines, &p, &Stats::default(), M), 3);
}

#[test]
fn small_conversation_is_not_worth_it() {
    // 10 × 1000: k=3 → (60900 − 8100 − 10560)/1e6 − 0.00288 = 0.03936 > 0, but the aligned
    // cut (index 6) drops only 6000 < 10000 tokens → 0.
    let lines = alternating(10, 1000);
    let c = dp_choose(&lines, &DpParams::default(), &Stats::default(), M).unwrap();
    close(c.benefit, 0.03936);
    assert_eq!(
        dp_keep(&lines, &DpParams::default(), &Stats::default(), M),
        0
    );
    // 10 × 100: benefit(3) = (6090 − 810 − 10560)/1e6 − 0.00288 < 0 → 0.
    let tiny = alternating(10, 100);
    let c = dp_choose(&tiny, &DpParams::default(), &Stats::default(), M).unwrap();
    close(c.benefit, -0.00816);
    assert_eq!(
        dp_keep(&tiny, &DpParams::default(), &Stats::default(), M),
        0
    );
}

#[test]
fn alignment_past_max_keep_aborts() {
    // Only line 0 is a user turn: the cut walks back to it → keep 10 > max_keep 8 → 0.
    let mut lines = vec![u(2000)];
    for i in 0..9 {
        lines.push(if i % 2 == 0 { a(2000) } else { tr(2000) });
    }
    assert_eq!(
        dp_keep(&lines, &DpParams::default(), &Stats::default(), M),
        0
    );
}

#[test]
fn stats_change_the_economics() {
    // t=6, requests=30, input=300000, compactions=2: E = max(2, 4) = 4, L = 5, R = 20,
    // avg = 10000, r_t = max(0.8³, 0.37) = 0.512,
    // info_loss = 0.03·0.488·20·10000·3/1e6 = 0.008784.
    // k=3: (19·0.3·14000 − 2.7·6500 − (1500 + 3·14070 + 7500))/1e6 − 0.008784
    //    = (79800 − 17550 − 51210)/1e6 − 0.008784 = 0.002256
    let st = Stats {
        current_turn_count: 6,
        agent_request_count: 30,
        total_input_tokens: 300_000,
        compact_request_count: 2,
        ..Stats::default()
    };
    let lines = alternating(10, 2000);
    let c = dp_choose(&lines, &DpParams::default(), &st, M).unwrap();
    assert_eq!(c.k, 3);
    close(c.benefit, 0.002256);
    // A fixed L = 1 makes R = 4: savings no longer pay for the summary call → 0.
    let p = DpParams {
        l_fixed: 1.0,
        ..DpParams::default()
    };
    assert_eq!(dp_keep(&lines, &p, &st, M), 0);
}

#[test]
fn quality_penalty_applies_near_the_window() {
    // M = 20000 < T/0.3: quality(k=3) = 0.2·3·(25000² − 11000²)/(20000·1e6) = 0.01512.
    let lines = alternating(10, 2000);
    let c = dp_choose(&lines, &DpParams::default(), &Stats::default(), 20_000).unwrap();
    assert_eq!(c.k, 3);
    close(c.benefit, 0.09216 + 0.01512);
}

#[test]
fn params_from_lookup() {
    let p = DpParams::from_lookup(|k| match k {
        "DP_S" => Some("100".into()),
        "DP_R" => Some("garbage".into()),
        "DP_MIN_KEEP_RATIO" => Some(" 0.5 ".into()),
        _ => None,
    });
    assert_eq!(p.s, 100.0);
    assert_eq!(p.r, 0.8);
    assert_eq!(p.min_keep_ratio, 0.5);
    assert_eq!(p.v, 5000.0);
}

#[test]
fn turn_keep_table() {
    // U A U A TR U A: three user turns.
    let lines = vec![u(30), a(30), u(30), a(30), tr(30), u(30), a(30)];
    assert_eq!(turn_keep(&lines, 0.25), 2); // round(0.75) = 1 turn → U A
    assert_eq!(turn_keep(&lines, 0.5), 5); // round(1.5) = 2 turns → U A TR U A
    assert_eq!(turn_keep(&lines, 0.0), 2); // at least one turn
    assert_eq!(turn_keep(&lines, 1.0), 7);
    assert_eq!(turn_keep(&[a(30), tr(30)], 0.25), 0);
    assert_eq!(turn_keep(&[], 0.25), 0);
}

#[test]
fn cut_never_orphans_tool_results() {
    // Whatever the sizes, the first kept line is a user-turn line.
    for t in [500, 1500, 2000, 4000, 9000] {
        let mut lines = Vec::new();
        for _ in 0..8 {
            lines.extend([u(t), a(t), tr(t), a(t)]);
        }
        for keep in [
            dp_keep(&lines, &DpParams::default(), &Stats::default(), M),
            turn_keep(&lines, 0.25),
        ] {
            if keep > 0 && keep < lines.len() {
                assert!(
                    lines[lines.len() - keep].contains(r#""content":""#),
                    "t={t} keep={keep}"
                );
            }
        }
    }
}

#[test]
fn decide_thresholds() {
    use bash_agent::agent::compact::decide;
    let p = DpParams::default();
    // 8 turns × 4 lines of 30 tokens = 960 estimated tokens.
    let mut lines = Vec::new();
    for _ in 0..8 {
        lines.extend([u(30), a(30), tr(30), a(30)]);
    }
    let st = Stats::default();
    // auto: 960 ≤ 90% of 1100 (990) → nothing; above 90% of 1000 (900) → fallback: 2 turns.
    assert_eq!(decide(&lines, "auto", false, &st, &p, 1100), None);
    assert_eq!(decide(&lines, "auto", false, &st, &p, 1000), Some(8));
    // The last call's real context counts too.
    let big = Stats {
        current_context_tokens: 5000,
        ..Stats::default()
    };
    assert_eq!(decide(&lines, "auto", false, &big, &p, 5000), Some(8));
    // Plan triggers and manual compaction ignore the threshold.
    assert_eq!(
        decide(&lines, "plan_clear", false, &st, &p, 1_000_000),
        Some(8)
    );
    assert_eq!(decide(&lines, "manual", true, &st, &p, 1_000_000), Some(8));
    // Nothing droppable: a single turn, or an empty conversation.
    assert_eq!(decide(&lines[..4], "manual", true, &st, &p, 10), None);
    assert_eq!(decide(&[], "manual", true, &st, &p, 10), None);
}
