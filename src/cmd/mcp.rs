//! `bash-agent mcp list|get|add|remove`: show and edit the MCP servers of the project's
//! `.mcp.json` and the user's `~/.bash-agent/settings.json`.
use crate::cli::{McpCmd, Opts};
use crate::error::{Error, Result};
use crate::mcp::config::{self, Scope, Transport};
use serde_json::{json, Map, Value};

fn describe(t: &Transport) -> String {
    match t {
        Transport::Stdio { command, args, .. } => {
            let mut s = command.clone();
            for a in args {
                s.push(' ');
                s.push_str(a);
            }
            s
        }
        Transport::Http { url, .. } => format!("{url} (http)"),
    }
}

pub fn cmd_mcp(o: &Opts, action: &McpCmd) -> Result {
    let cwd = crate::session::paths::physical_cwd().map_err(Error::runtime)?;
    match action {
        McpCmd::List => {
            // An untrusted folder's servers are listed, marked: they would not start.
            let trusted = crate::settings::trust::is_trusted(&cwd);
            let (servers, warnings) = config::load_with(&cwd, true);
            for w in warnings {
                eprintln!("warning: {}", crate::util::shown::shown(&w));
            }
            if o.json {
                let v: Vec<Value> = servers
                    .iter()
                    .map(|s| {
                        let mut v =
                            json!({"name": s.name, "scope": s.scope.name(), "config": s.raw});
                        if s.scope == Scope::Project && !trusted {
                            v["untrusted"] = Value::Bool(true);
                        }
                        v
                    })
                    .collect();
                println!("{}", Value::Array(v));
            } else if servers.is_empty() {
                println!("No MCP servers configured (add one with: bash-agent mcp add NAME -- COMMAND ...)");
            } else {
                for s in &servers {
                    let mark = if s.scope == Scope::Project && !trusted {
                        "\t(folder not trusted: not started; bash-agent trust)"
                    } else {
                        ""
                    };
                    let auth = match &s.transport {
                        Transport::Http { url, .. } => crate::mcp::auth::status(&s.name, url)
                            .map(|a| format!("\t({a})"))
                            .unwrap_or_default(),
                        _ => String::new(),
                    };
                    println!(
                        "{}	{}	{}{mark}{auth}",
                        crate::util::shown::shown(&s.name),
                        s.scope.name(),
                        crate::util::shown::shown(&describe(&s.transport))
                    );
                }
            }
            Ok(())
        }
        McpCmd::Get { name } => {
            // The probe starts the server as a run would: under the run's sandbox, and with
            // the run's key known (never expanded into the entry).
            let cfg = crate::config::resolve(o, false)?;
            crate::sandbox::env::register_provider_keys(&cfg.provider.api_key);
            crate::sandbox::configure(cfg.sandbox.clone(), None);
            let (servers, warnings) = config::load(&cwd);
            let Some(s) = servers.iter().find(|s| &s.name == name) else {
                // An entry that could not be read (a provider key it names, say) says why.
                let own = format!("MCP server {name}: ");
                if let Some(w) = warnings.iter().find(|w| w.starts_with(&own)) {
                    return Err(Error::usage(w.clone()));
                }
                let (all, _) = config::load_with(&cwd, true);
                if all.iter().any(|s| &s.name == name) {
                    return Err(Error::usage(format!(
                        "MCP server {name} is in the project's .mcp.json and this folder is not trusted, so it is not started (bash-agent trust, or --trust for one run)"
                    )));
                }
                return Err(Error::usage(format!("no MCP server named {name}")));
            };
            println!(
                "{} ({} scope, {})",
                s.name,
                s.scope.name(),
                s.scope.path(&cwd).display()
            );
            println!(
                "{}",
                serde_json::to_string_pretty(&s.raw).unwrap_or_default()
            );
            let probe = crate::mcp::probe(s, &cwd);
            match probe {
                Ok(tools) => {
                    println!("status: connected, {} tool(s)", tools.len());
                    for t in tools {
                        println!("  {}", t.full_name);
                    }
                    Ok(())
                }
                Err(e) => Err(Error::runtime(format!("MCP server {name}: {e}"))),
            }
        }
        McpCmd::Add {
            name,
            scope,
            env,
            transport,
            header,
            command,
        } => {
            let scope = Scope::parse(scope)
                .ok_or_else(|| Error::usage("--scope must be project or user"))?;
            if !config::valid_name(name) {
                return Err(Error::usage(format!(
                    "bad server name {name:?}: use letters, digits, '-' and '_' (no \"__\")"
                )));
            }
            let mut entry = Map::new();
            match transport.as_str() {
                "stdio" => {
                    entry.insert("command".into(), json!(command[0]));
                    entry.insert("args".into(), json!(command[1..]));
                    let mut e = Map::new();
                    for kv in env {
                        let (k, v) = kv
                            .split_once('=')
                            .ok_or_else(|| Error::usage(format!("-e {kv}: use KEY=VALUE")))?;
                        e.insert(k.to_string(), json!(v));
                    }
                    entry.insert("env".into(), Value::Object(e));
                }
                "http" | "sse" => {
                    entry.insert("type".into(), json!(transport));
                    entry.insert("url".into(), json!(command[0]));
                    let mut h = Map::new();
                    for kv in header {
                        let (k, v) = kv.split_once(':').ok_or_else(|| {
                            Error::usage(format!("--header {kv}: use 'Name: value'"))
                        })?;
                        h.insert(k.trim().to_string(), json!(v.trim()));
                    }
                    if !h.is_empty() {
                        entry.insert("headers".into(), Value::Object(h));
                    }
                }
                other => {
                    return Err(Error::usage(format!(
                        "--transport {other}: use stdio or http"
                    )))
                }
            }
            let path = scope.path(&cwd);
            config::write_entry(&path, name, Some(Value::Object(entry))).map_err(Error::runtime)?;
            println!("Added MCP server {name} to {}", path.display());
            Ok(())
        }
        McpCmd::Login { name } | McpCmd::Logout { name } => {
            super::mcp_login::run(&cwd, name, matches!(action, McpCmd::Login { .. }))
        }
        McpCmd::Remove { name, scope } => {
            let scopes = match scope {
                Some(s) => vec![Scope::parse(s)
                    .ok_or_else(|| Error::usage("--scope must be project or user"))?],
                None => vec![Scope::Project, Scope::User],
            };
            for s in scopes {
                let path = s.path(&cwd);
                if config::write_entry(&path, name, None).map_err(Error::runtime)? {
                    println!("Removed MCP server {name} from {}", path.display());
                    return Ok(());
                }
            }
            Err(Error::usage(format!("no MCP server named {name}")))
        }
    }
}
