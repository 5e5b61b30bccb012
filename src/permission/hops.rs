//! URLs under the rules (docs/sandbox.md, "Rules on URLs and paths"): the facts of a
//! WebFetch call are its URL in the one canonical spelling that rules are normalised to
//! as well, and every redirect hop of an allowed call is decided again by the same rules.
use super::gate::Gate;
use super::rules::{self, RuleKind};
use super::{Facts, PermMode, Rule};
use crate::tools::webfetch::{fetch, redirect::Hop, redirect::HopCheck, urlnorm};
use std::path::{Path, PathBuf};

/// The facts of a WebFetch call for the URL text `raw`: the canonical URL, its wider
/// decoded form (deny and ask rules only) and its host. A URL that does not parse keeps
/// its text (the tool refuses it anyway).
pub fn web_facts(raw: &str) -> Facts {
    let mut f = Facts {
        tool: "WebFetch".into(),
        ..Facts::default()
    };
    match fetch::parse_url(raw) {
        Ok(u) => {
            f.domain = Some(fetch::host_of(&u));
            f.url_loose = Some(urlnorm::loose(&u));
            f.url = Some(u.to_string());
        }
        Err(_) => f.url = Some(raw.trim().to_string()),
    }
    f
}

/// One redirect hop of a call that started at `start` (already allowed by the gate):
/// a deny rule refuses it; an ask rule (outside bypass) hands it back to the model; so
/// does a hop no allow rule covers when an allow rule is what let the start through.
/// Otherwise the hop is followed: the person who allowed the call (or the mode) allowed
/// that host.
pub fn decide_hop(mode: PermMode, rules: &[Rule], start: &Facts, hop: &Facts, home: &Path) -> Hop {
    if let Some(r) = rules::first(rules, RuleKind::Deny, hop, home) {
        return Hop::Refuse(format!("denied by the rule {}", r.text));
    }
    if mode != PermMode::Bypass {
        if let Some(r) = rules::first(rules, RuleKind::Ask, hop, home) {
            return Hop::HandBack(format!("the rule {} asks", r.text));
        }
    }
    if rules::allowed(rules, hop, home) {
        return Hop::Follow;
    }
    if mode != PermMode::Bypass && rules::allowed(rules, start, home) {
        return Hop::HandBack("no allow rule covers it".into());
    }
    Hop::Follow
}

impl Gate {
    /// The check of each redirect hop of a WebFetch call to `start`: the rules and mode of
    /// this moment, copied (the fetch runs on a thread of its own).
    pub fn hop_check(&self, start: &url::Url) -> HopCheck {
        let (mode, rules) = self.snapshot();
        let home: PathBuf = self.home().to_path_buf();
        let start = web_facts(start.as_str());
        Box::new(move |next: &url::Url| {
            decide_hop(mode, &rules, &start, &web_facts(next.as_str()), &home)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(kind: RuleKind, t: &str) -> Rule {
        Rule::parse(kind, t, Path::new("/w")).unwrap()
    }

    #[test]
    fn every_spelling_meets_the_deny_rule() {
        let h = Path::new("/h");
        for r in [
            "WebFetch(http://127.0.0.1:81/secret/*)",
            "WebFetch(HTTP://0x7f.0.0.1.:81/x/../secret/*)",
        ] {
            let deny = [rule(RuleKind::Deny, r)];
            for u in [
                "http://127.0.0.1:81/secret/k",
                "http://127.0.0.1:81/x/../secret/k",
                "HTTP://127.0.0.1:81/secret/k",
                "http://127.0.0.1.:81/secret/k",
                "http://0x7f.0.0.1:81/secret/k",
                "http://2130706433:81/secret/k",
                "http://127.1:81/secret/k",
                "http://127.0.0.1:81/%73ecret/k",
                "http://127.0.0.1:81/secret%2fk",
                "http://[::ffff:127.0.0.1]:81/secret/k",
            ] {
                let v = super::super::decide(PermMode::Bypass, &deny, &web_facts(u), h);
                assert!(
                    matches!(v, super::super::Verdict::Deny(_)),
                    "{r} vs {u}: {v:?}"
                );
            }
            let v = super::super::decide(
                PermMode::Bypass,
                &deny,
                &web_facts("http://127.0.0.1:81/public"),
                h,
            );
            assert_eq!(v, super::super::Verdict::Allow);
        }
        let d = [rule(RuleKind::Deny, "WebFetch(domain:0x7F.0.0.1.)")];
        let v = super::super::decide(PermMode::Bypass, &d, &web_facts("http://127.1/"), h);
        assert!(matches!(v, super::super::Verdict::Deny(_)));
        // An allow rule never matches through the loose form.
        let a = [rule(RuleKind::Allow, "WebFetch(http://h/a/b*)")];
        assert!(!rules::allowed(&a, &web_facts("http://h/a%2Fb"), h));
        assert!(rules::allowed(&a, &web_facts("http://h/a/%62"), h));
    }

    #[test]
    fn hops_are_decided_by_the_rules() {
        let h = Path::new("/h");
        let deny = rule(RuleKind::Deny, "WebFetch(http://127.0.0.1:81/secret/*)");
        let start = web_facts("http://127.0.0.1:81/open");
        for to in [
            "http://127.0.0.1:81/secret/k",
            "http://127.0.0.1:81/%73ecret/k",
            "http://127.0.0.1:81//secret/k",
            "http://127.0.0.1:81/secret%2Fk",
        ] {
            let hop = web_facts(to);
            assert!(
                matches!(
                    decide_hop(
                        PermMode::Bypass,
                        std::slice::from_ref(&deny),
                        &start,
                        &hop,
                        h
                    ),
                    Hop::Refuse(_)
                ),
                "{to}"
            );
        }
        let other = web_facts("http://127.0.0.1:81/public");
        assert_eq!(
            decide_hop(
                PermMode::Bypass,
                std::slice::from_ref(&deny),
                &start,
                &other,
                h
            ),
            Hop::Follow
        );
        // An allow rule let the start through; a hop outside it goes back to the model.
        let allow = rule(RuleKind::Allow, "WebFetch(http://127.0.0.1:81/open*)");
        let rules = [deny.clone(), allow];
        assert!(matches!(
            decide_hop(PermMode::Default, &rules, &start, &other, h),
            Hop::HandBack(_)
        ));
        let ask = rule(RuleKind::Ask, "WebFetch(domain:127.0.0.1)");
        assert!(matches!(
            decide_hop(
                PermMode::Default,
                std::slice::from_ref(&ask),
                &start,
                &other,
                h
            ),
            Hop::HandBack(_)
        ));
        assert_eq!(
            decide_hop(PermMode::Bypass, &[ask], &start, &other, h),
            Hop::Follow
        );
    }
}
