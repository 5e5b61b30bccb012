//! Where the rules of a "don't ask again" answer are kept (docs/interactive.md,
//! "Permissions"): this session, the project's `.bash-agent/settings.json` or the user's own
//! settings file. A project rule applies only in a trusted folder, so saving one in a folder
//! never decided trusts it (the menu says so before the person picks it): otherwise the next
//! run would open with the trust question and ignore the rule. A folder the person chose not
//! to trust keeps that choice: the rule is not saved there.
use crate::permission::menu::ProjectTrust;
use crate::permission::save::{save_to, SaveTo};
use crate::settings::trust;
use crate::util::shown;
use std::path::Path;

/// The project folder's stored trust decision (`--trust` is for one run: it stores none).
pub fn project_trust(cwd: &Path) -> ProjectTrust {
    match trust::lookup(&trust::root_of(cwd)).decision {
        Some(true) => ProjectTrust::Trusted,
        Some(false) => ProjectTrust::Declined,
        None => ProjectTrust::Undecided,
    }
}

/// Keep `rules` as the person chose: Ok is how the confirmation goes on, Err why the rules
/// hold for this session only.
pub fn save_rules(cwd: &Path, to: SaveTo, rules: &[String]) -> Result<String, String> {
    let files = crate::settings::files(cwd);
    match to {
        SaveTo::Session => Ok(" for this session".into()),
        SaveTo::User => {
            let p = save_to(&files[0].1, None, rules)?;
            Ok(format!("; saved in {}", shown::path(&p)))
        }
        SaveTo::Project => {
            let trust_now = match project_trust(cwd) {
                ProjectTrust::Trusted => false,
                ProjectTrust::Undecided => true,
                ProjectTrust::Declined => {
                    return Err("you chose not to trust this folder, so a rule saved in it would not apply (save it for you instead, or change that with: bash-agent trust)".into())
                }
            };
            let root = crate::settings::project_root(cwd);
            if let Some(why) = trust_now.then(|| trust::too_wide(&root)).flatten() {
                return Err(format!(
                    "this folder is not trusted and cannot be ({why}: trusting it would trust every folder below it); save it for you instead"
                ));
            }
            let p = save_to(&files[1].1, Some(&root), rules)?;
            let mut how = format!("; saved in {}", shown::path(&p));
            if trust_now {
                match trust::store(&root, Some(true)) {
                    Ok(dir) => how.push_str(&format!(
                        "; {} is now a trusted folder, so its project settings apply from the next run (undo with: bash-agent trust --untrust)",
                        shown::path(&dir)
                    )),
                    Err(e) => how.push_str(&format!(
                        "; the folder could not be trusted ({e}), so the next run asks first"
                    )),
                }
            }
            Ok(how)
        }
    }
}
