//! Aliases (`sonnet`, `fable`, `gpt-mini`, ...) name a line of models, not one model: an
//! alias's entry in the table is `FAMILY` or `FAMILY:TIER`, and it resolves to the first
//! current row of that family and tier (rows are listed newest first). A new release added
//! to the table moves its alias with it; an alias written as a model id fell behind when
//! `claude-fable-5-2` was added and `fable` still meant `claude-fable-5-1`.
use super::{table, Status};

/// The tier of a model id within its family: the words of the id that are neither its
/// maker (the first word), nor the family's name, nor a version (`5`, `5.5`, `v4`).
/// `claude-fable-5-2` → "", `gpt-5.4-mini` → "mini", `deepseek-v4-flash` → "flash".
pub(super) fn tier(id: &str, family: &str) -> String {
    let version = |w: &str| {
        let w = w.strip_prefix('v').unwrap_or(w);
        !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.')
    };
    id.split('-')
        .skip(1)
        .filter(|w| *w != family && !version(w))
        .collect::<Vec<_>>()
        .join("-")
}

/// The model an alias entry (`FAMILY` or `FAMILY:TIER`) stands for now, if the table has a
/// current row for it.
pub(super) fn resolve(entry: &str) -> Option<&'static str> {
    let (family, tier_name) = entry.split_once(':').unwrap_or((entry, ""));
    table()
        .models
        .iter()
        .find(|m| {
            m.family == family && m.status == Status::Current && tier(&m.id, family) == tier_name
        })
        .map(|m| m.id.as_str())
}

#[cfg(test)]
mod tests {
    use super::super::{aliases, lookup, resolve_alias};
    use super::*;

    #[test]
    fn tiers_are_the_words_besides_maker_family_and_version() {
        assert_eq!(tier("claude-fable-5-2", "fable"), "");
        assert_eq!(tier("claude-3-5-sonnet", "sonnet"), "");
        assert_eq!(tier("gpt-5.5", "gpt-5"), "");
        assert_eq!(tier("gpt-5.4-mini", "gpt-5"), "mini");
        assert_eq!(tier("gpt-5.5-pro", "gpt-5"), "pro");
        assert_eq!(tier("deepseek-v4-flash", "deepseek"), "flash");
    }

    /// Every alias resolves to a current row, and no current row of the same family and tier
    /// is listed before it (newer): an alias never stays on an older model.
    #[test]
    fn every_alias_is_its_lines_newest_current_model() {
        let mut n = 0;
        for (alias, id) in aliases() {
            n += 1;
            let row = lookup(id).unwrap_or_else(|| panic!("alias {alias} -> {id} unknown"));
            assert_eq!(
                row.status,
                Status::Current,
                "alias {alias} -> {id} is not current"
            );
            let t = tier(id, &row.family);
            let newest = table()
                .models
                .iter()
                .find(|m| {
                    m.family == row.family
                        && m.status == Status::Current
                        && tier(&m.id, &m.family) == t
                })
                .map(|m| m.id.as_str());
            assert_eq!(
                Some(id),
                newest,
                "alias {alias} is not its line's newest model"
            );
        }
        assert_eq!(
            n,
            table().aliases.len(),
            "an alias entry resolves to nothing"
        );
        assert_eq!(resolve_alias("fable"), "claude-fable-5-2");
        assert_eq!(resolve_alias("gpt-mini"), "gpt-5.4-mini");
        assert_eq!(resolve_alias("deepseek"), "deepseek-v4-flash");
    }
}
