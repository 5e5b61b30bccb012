//! Custom slash commands and custom sub-agents from Markdown files, in Claude Code's
//! format (docs/custom-commands.md, docs/claude-code.md): where they are found (files),
//! their YAML frontmatter, Claude Code's names mapped (cc_names), the commands' argument
//! substitution, skills run as commands (skills), the agents' definitions, and the
//! narrowing a command's turn or an agent's run gets (scope). The runtime side — expanding
//! `` !`cmd` `` and `@path`, the palette, `/help`, start-up warnings — is here too.
pub mod agents;
pub mod cc_names;
pub mod commands;
pub mod files;
pub mod frontmatter;
pub mod scope;
pub mod skills;

use crate::agent::context::AgentCtx;
use crate::ui::complete::Command;
use commands::{Catalog, CustomCommand};
use std::path::Path;

/// The custom commands of a run in `cwd` (built-in names excluded), then the skills whose
/// names no command takes.
pub fn commands_here(cwd: &Path) -> Catalog {
    let builtin = |n: &str| crate::agent::slash::table::canonical(n).is_some();
    let mut cat = commands::load(&files::roots_here(cwd, "commands"), &builtin);
    let (more, warnings) = skills::as_commands(cwd, &skills::home(), &|n| {
        builtin(n) || cat.commands.iter().any(|c| c.name == n)
    });
    cat.commands.extend(more);
    cat.warnings.extend(warnings);
    cat
}

/// What start-up reports once: skipped files and names taken by built-ins.
pub fn warnings(cwd: &Path) -> Vec<String> {
    let mut w = commands_here(cwd).warnings;
    w.extend(agents::load_here(cwd).warnings);
    w
}

/// The palette's table: the built-ins, then the custom commands (made once per run, for
/// the editor's whole life).
pub fn palette(cwd: &Path) -> &'static [Command] {
    let builtin = crate::agent::slash::table::COMMANDS;
    let custom = commands_here(cwd).commands;
    if custom.is_empty() {
        return builtin;
    }
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let mut all: Vec<Command> = builtin.to_vec();
    for c in custom {
        all.push(Command {
            name: leak(c.name),
            args: leak(c.argument_hint),
            about: leak(c.description),
        });
    }
    Box::leak(all.into_boxed_slice())
}

/// `/help`'s section of custom commands ("" when there are none).
pub fn help_text(cwd: &Path) -> String {
    let cat = commands_here(cwd);
    if cat.commands.is_empty() {
        return String::new();
    }
    let mut s = String::from("Custom commands (.claude/commands, .bash-agent/commands, skills):\n");
    for c in &cat.commands {
        let head = if c.argument_hint.is_empty() {
            c.name.clone()
        } else {
            format!("{} {}", c.name, c.argument_hint)
        };
        s.push_str(&format!("  {head:<20} {}\n", c.description));
    }
    s
}

/// The custom command `word` names, if any.
pub fn find(cwd: &Path, word: &str) -> Option<CustomCommand> {
    commands_here(cwd)
        .commands
        .into_iter()
        .find(|c| c.name == word)
}

/// Turn a custom command into the text of its turn: arguments substituted, then
/// `` !`cmd` `` replaced by the command's output (the Bash tool under this run's
/// permission gate and sandbox, with the command's `allowed-tools` as allow rules), then
/// `@path` words attached. The turn's narrowing (`allowed-tools`, `model`) is set here
/// and lifted by [`end_turn`] when the turn ends. Err: nothing is sent.
pub fn prepare(ctx: &AgentCtx, cmd: &CustomCommand, args: &str) -> Result<String, String> {
    let body = commands::substitute(&with_session_id(cmd, &ctx.session.id), args);
    let mut rules = Vec::new();
    for r in &cmd.allowed_tools {
        let rule = crate::permission::Rule::parse(crate::permission::RuleKind::Allow, r, &ctx.cwd)
            .map_err(|e| format!("{}: allowed-tools: {e}", cmd.path.display()))?;
        rules.push(rule);
    }
    let tools = (!cmd.allowed_tools.is_empty()).then(|| scope::tools_of_rules(&cmd.allowed_tools));
    ctx.permission.set_turn_rules(rules);
    ctx.custom.begin_turn(&cmd.name, tools, cmd.model.clone());
    ctx.custom.deny(true, cmd.disallowed_tools.clone());
    match shell_parts(ctx, cmd, &body) {
        Ok(text) => Ok(crate::agent::slash::attach::expand(ctx, &text)),
        Err(e) => {
            end_turn(ctx);
            Err(e)
        }
    }
}

/// The command with `${CLAUDE_SESSION_ID}` (and our `${BASH_AGENT_SESSION_ID}`) replaced
/// by the session's id, as Claude Code does in commands and skills (a script a command
/// runs can name a per-session file). Replaced before the arguments go in, so an
/// argument's text is never read as the variable.
fn with_session_id(cmd: &CustomCommand, id: &str) -> CustomCommand {
    let mut c = cmd.clone();
    c.body = c
        .body
        .replace("${CLAUDE_SESSION_ID}", id)
        .replace("${BASH_AGENT_SESSION_ID}", id);
    c
}

/// Lift a command's narrowing (the runtime calls this after every turn).
pub fn end_turn(ctx: &AgentCtx) {
    ctx.permission.set_turn_rules(Vec::new());
    ctx.custom.end_turn();
}

/// Replace each `` !`cmd` `` with its output. A refusal by the permission gate is an error.
fn shell_parts(ctx: &AgentCtx, cmd: &CustomCommand, body: &str) -> Result<String, String> {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(i) = rest.find("!`") {
        let after = &rest[i + 2..];
        let Some(end) = after.find('`') else {
            break;
        };
        let command = &after[..end];
        out.push_str(&rest[..i]);
        rest = &after[end + 1..];
        if command.trim().is_empty() {
            out.push_str("!``");
            continue;
        }
        let input = serde_json::json!({ "command": command });
        // A PermissionRequest hook may rewrite the call: what runs is what the gate passed.
        let input =
            crate::agent::tool_call::permission_check(ctx, "Bash", &input).map_err(|why| {
                format!(
                    "{}: !`{command}` was not run: {why}; nothing was sent",
                    cmd.name
                )
            })?;
        ctx.cancel.reset();
        ctx.running.store(true, std::sync::atomic::Ordering::SeqCst);
        let res = crate::tools::run(ctx, "custom_command", "Bash", &input);
        ctx.running
            .store(false, std::sync::atomic::Ordering::SeqCst);
        out.push_str(res.conv.trim_end_matches('\n'));
    }
    out.push_str(rest);
    Ok(out)
}

/// A custom sub-agent's run (`--agent NAME`): its tools and instructions from its file.
pub fn apply_agent(ctx: &AgentCtx, name: &str) -> Result<(), String> {
    let all = agents::load_here(&ctx.cwd);
    let def = all.find(name).ok_or_else(|| all.unknown(name))?;
    ctx.custom
        .set_agent(&def.name, def.tools.clone(), &def.prompt);
    ctx.custom.deny(false, def.disallowed.clone());
    Ok(())
}
