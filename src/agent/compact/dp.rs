//! The compaction decision (docs/compaction.md): how many trailing conversation lines
//! to keep. A cost model weighs the cache savings of a shorter prefix against the cost of
//! the summary call, the cache miss after the cut and the information lost.
//!
//! Differences from the reference: the `H_min` guard checks the DROPPED tokens (the
//! reference measured the kept ones), and every cut lands on a user-turn line.
use crate::session::conversation::is_user_turn_line;
use crate::session::stats::Stats;

/// Tuning parameters (`DP_*` environment variables).
#[derive(Debug, Clone, PartialEq)]
pub struct DpParams {
    pub baseline_e: f64,
    pub e_fixed: f64,
    pub l_fixed: f64,
    pub v: f64,
    pub p_input: f64,
    pub p_cache: f64,
    pub p_out: f64,
    pub s: f64,
    pub min_keep_ratio: f64,
    pub r: f64,
    pub beta: f64,
    pub quality_penalty: f64,
}

impl Default for DpParams {
    fn default() -> Self {
        DpParams {
            baseline_e: 8.0,
            e_fixed: 0.0,
            l_fixed: 0.0,
            v: 5000.0,
            p_input: 3.0,
            p_cache: 0.30,
            p_out: 15.0,
            s: 500.0,
            min_keep_ratio: 0.25,
            r: 0.8,
            beta: 0.03,
            quality_penalty: 0.2,
        }
    }
}

impl DpParams {
    /// Defaults overridden by `DP_*` variables (unparsable values keep the default).
    pub fn from_env() -> DpParams {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Same as [`from_env`](Self::from_env) with an injectable lookup (tests).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> DpParams {
        let d = DpParams::default();
        let f = |k: &str, def: f64| {
            get(k)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|x| x.is_finite())
                .unwrap_or(def)
        };
        DpParams {
            baseline_e: f("DP_BASELINE_E", d.baseline_e),
            e_fixed: f("DP_E_FIXED", d.e_fixed),
            l_fixed: f("DP_L", d.l_fixed),
            v: f("DP_V", d.v),
            p_input: f("DP_P_INPUT", d.p_input),
            p_cache: f("DP_P_CACHE", d.p_cache),
            p_out: f("DP_P_OUT", d.p_out),
            s: f("DP_S", d.s),
            min_keep_ratio: f("DP_MIN_KEEP_RATIO", d.min_keep_ratio),
            r: f("DP_R", d.r),
            beta: f("DP_BETA", d.beta),
            quality_penalty: f("DP_QUALITY_PENALTY", d.quality_penalty),
        }
    }
}

/// Estimated tokens of one line: `floor((bytes+3)/4) + 1`.
pub fn line_tokens(line: &str) -> u64 {
    (line.len() as u64).div_ceil(4) + 1
}

/// `int(x + 0.5)` as the awk reference rounds.
fn round(x: f64) -> usize {
    (x + 0.5).floor().max(0.0) as usize
}

/// The best candidate of the cost model before alignment.
#[derive(Debug, Clone, PartialEq)]
pub struct DpChoice {
    /// Lines kept (from the end).
    pub k: usize,
    pub benefit: f64,
    pub min_keep: usize,
    pub max_keep: usize,
}

/// Expected future requests E, requests per turn L, and the per-compaction info loss.
fn model_terms(p: &DpParams, st: &Stats) -> (f64, f64) {
    let t = st.current_turn_count as f64;
    let e = if p.e_fixed > 0.0 {
        p.e_fixed
    } else if p.baseline_e > 0.0 {
        let lo = if p.baseline_e <= 1.0 {
            2.0
        } else {
            (p.baseline_e / 2.0).floor()
        };
        (p.baseline_e - t).max(lo)
    } else {
        2.0
    };
    let reqs = st.agent_request_count as f64;
    let l = if p.l_fixed > 0.0 {
        p.l_fixed
    } else if reqs > 0.0 && t > 0.0 {
        reqs / t
    } else {
        5.0
    }
    .max(1.0);
    let avg = if st.total_input_tokens > 0 && reqs > 0.0 {
        st.total_input_tokens as f64 / reqs
    } else {
        4000.0
    };
    let r_big = e * l;
    let c = st.compact_request_count as i32;
    let r_t = p.r.powi(c.saturating_add(1)).max(0.37);
    let info_loss = p.beta * (1.0 - r_t) * r_big * avg * p.p_input / 1e6;
    (r_big, info_loss)
}

/// Evaluate every allowed `k` and return the best (first on ties), or None when there is
/// no candidate with a non-empty head.
pub fn dp_choose(lines: &[String], p: &DpParams, st: &Stats, max_context: u64) -> Option<DpChoice> {
    let nr = lines.len();
    if nr == 0 {
        return None;
    }
    let sizes: Vec<f64> = lines.iter().map(|l| line_tokens(l) as f64).collect();
    let total: f64 = sizes.iter().sum();
    let (r_big, info_loss) = model_terms(p, st);
    let m = max_context.max(1) as f64;
    let ratio = p.min_keep_ratio;
    let min_keep = round(nr as f64 * ratio).max(3).min(nr);
    let mut max_keep = round(nr as f64 * (1.0 - ratio)).min(nr);
    if max_keep < min_keep {
        max_keep = nr;
    }
    let l_instr = 70.0;
    let quality_on = total > 0.3 * m;
    // suffix[k] = tokens of the last k lines
    let mut kept = 0.0;
    let mut best: Option<DpChoice> = None;
    for k in 1..=max_keep {
        kept += sizes[nr - k];
        if k < min_keep {
            continue;
        }
        let h = total - kept;
        if h <= 0.0 {
            continue;
        }
        let savings = (r_big - 1.0) * p.p_cache * h / 1e6;
        let cache_miss = (p.s + kept) * (p.p_input - p.p_cache) / 1e6;
        let compact_cost = (p.p_cache * p.v + p.p_input * (h + l_instr) + p.p_out * p.s) / 1e6;
        let quality = if quality_on {
            p.quality_penalty * p.p_input * ((p.v + total).powi(2) - (p.v + kept).powi(2))
                / (m * 1e6)
        } else {
            0.0
        };
        let benefit = savings - cache_miss - compact_cost - info_loss + quality;
        if best.as_ref().map(|b| benefit > b.benefit).unwrap_or(true) {
            best = Some(DpChoice {
                k,
                benefit,
                min_keep,
                max_keep,
            });
        }
    }
    best
}

/// The cost model: how many trailing lines to keep, or 0 for "do not compact". The cut is moved
/// back to a user-turn line; it is abandoned when that keeps more than `max_keep` lines or
/// drops fewer than `20·S` tokens.
pub fn dp_keep(lines: &[String], p: &DpParams, stats: &Stats, max_context: u64) -> usize {
    let choice = match dp_choose(lines, p, stats, max_context) {
        Some(c) if c.benefit > 0.0 => c,
        _ => return 0,
    };
    let nr = lines.len();
    // index (0-based) of the first kept line, moved back to a user-turn line
    let mut cut = nr - choice.k;
    while cut > 0 && !is_user_turn_line(&lines[cut]) {
        cut -= 1;
    }
    let adj = nr - cut;
    let dropped: u64 = lines[..cut].iter().map(|l| line_tokens(l)).sum();
    if adj > choice.max_keep || (dropped as f64) < 20.0 * p.s {
        return 0;
    }
    adj
}

/// The fallback: keep the last `round(user_turns·ratio)` user turns (at least one), counted in
/// lines from the end; 0 when there is no user-turn line.
pub fn turn_keep(lines: &[String], ratio: f64) -> usize {
    let user_turns = lines.iter().filter(|l| is_user_turn_line(l)).count();
    if user_turns == 0 {
        return 0;
    }
    let target = round(user_turns as f64 * ratio).clamp(1, user_turns);
    let mut seen = 0;
    for (n, l) in lines.iter().rev().enumerate() {
        if is_user_turn_line(l) {
            seen += 1;
            if seen == target {
                return n + 1;
            }
        }
    }
    lines.len()
}
